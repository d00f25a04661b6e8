"""Model text is untrusted: strip control characters before it is stored or shown."""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and C1 controls. Removing ESC (0x1b) and the C1
# CSI/OSC introducers (0x9b, 0x9d) makes every terminal escape sequence inert. The bidi
# embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) go too: a right-to-left
# override makes text read otherwise than it is stored ("Trojan source").
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Lone surrogates (from JSON `\ud800` escapes) cannot be encoded as UTF-8: one would make every
# later save of the session fail, so each becomes U+FFFD.
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def strip_control(text: str) -> str:
    """Remove control characters (all but newline and tab), bidi overrides and lone surrogates;
    CRLF becomes LF."""
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", text.replace("\r\n", "\n")))


# Raw HTML a Markdown previewer would load from a remote address (`http://`, `https://`, `//host`):
# the tag's `<` is escaped, so it reads as text. A tag naming no remote address is left as written.
_FETCHING_TAG = re.compile(
    r"<(?=(?:img|image|picture|source|video|audio|track|iframe|frame|object|embed|link|script|style|svg|input|"
    r"meta|base)\b[^<>]*?(?:[a-z][a-z0-9+.-]*:)?//)",
    re.IGNORECASE,
)
_IMAGE = re.compile(r"!\[([^\]\n]*)\]")
_CODE_SPAN = re.compile(r"(`+[^`]*`+)")


def inert_images(markdown: str) -> str:
    """Markdown that loads nothing when previewed: an image (`![alt](url)`, `![alt][ref]`) becomes
    a link to it (`[image: alt](url)`), as in the HTML export, and raw HTML that would fetch a
    remote address (`<img src=http://...>`, `<iframe src=//...>`) is escaped. Code is left as written.

    Text with neither an image nor such a tag anywhere (almost every reply) is returned as it is,
    unparsed: the rewrites below only touch those matches, and parsing the block structure is
    what costs (a transcript of 1,000 turns took 0.4 s to render, bench row 9.d)."""
    if _IMAGE.search(markdown) is None and _FETCHING_TAG.search(markdown) is None:
        return markdown
    from ensemble_tui.core.text.markdown_blocks import block_parser

    code_lines: set[int] = set()
    for token in block_parser().parse(markdown):
        if token.type in ("fence", "code_block") and token.map:
            code_lines.update(range(*token.map))
    chunks: list[tuple[bool, list[str]]] = []  # runs of code lines and of other lines (a tag may span lines)
    for number, line in enumerate(markdown.splitlines(keepends=True)):
        code = number in code_lines
        if chunks and chunks[-1][0] == code:
            chunks[-1][1].append(line)
        else:
            chunks.append((code, [line]))
    return "".join("".join(lines) if code else _inert_text("".join(lines)) for code, lines in chunks)


def _inert_text(text: str) -> str:
    parts = _CODE_SPAN.split(text)
    for index in range(0, len(parts), 2):  # the odd parts are code spans
        text = _FETCHING_TAG.sub("&lt;", parts[index])
        parts[index] = _IMAGE.sub(lambda m: f"[image: {m[1]}]" if m[1].strip() else "[image]", text)
    return "".join(parts)
