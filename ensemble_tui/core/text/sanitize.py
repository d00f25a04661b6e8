"""Model text is untrusted: strip control characters before it is stored or shown."""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and C1 controls. Removing ESC (0x1b) and the C1
# CSI/OSC introducers (0x9b, 0x9d) makes every terminal escape sequence inert.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Lone surrogates (from JSON `\ud800` escapes) cannot be encoded as UTF-8: one would make every
# later save of the session fail, so each becomes U+FFFD.
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def strip_control(text: str) -> str:
    """Remove control characters (all but newline and tab) and lone surrogates; CRLF becomes LF."""
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", text.replace("\r\n", "\n")))
