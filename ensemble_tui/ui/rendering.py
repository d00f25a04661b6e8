"""Safe renderables for untrusted text (model output, user input, file names).

Everything the models write reaches the screen through this module, so the rules live in one
place: control characters are removed again (the core already strips model text; user input and
paths are not stripped there), markup is never parsed, and Markdown links are rendered as text
(`hyperlinks=False`) so neither Textual nor the terminal can follow them on a click. Links open
only through the explicit "Open a link" command, which accepts http(s) URLs alone.
"""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import RenderableType
from rich.markdown import Markdown
from rich.text import Text

from ensemble_tui.core.sanitize import strip_control

# Above this size a message is shown as plain text, and beyond the display limit it is cut:
# wrapping 1 MB of text takes about half a second, and a hostile reply must not freeze the app.
# The whole text stays in the session and the transcript ("Copy last reply" copies all of it).
MARKDOWN_LIMIT_CHARS = 100_000
DISPLAY_LIMIT_CHARS = 200_000
CODE_THEME = "monokai"

_URL = re.compile(r"https?://[^\s<>()\[\]`'\"]+")


def plain(text: str) -> Text:
    """Text shown exactly as written: no markup, no control characters."""
    return Text(strip_control(text), end="")


def markdown(text: str) -> RenderableType:
    """Markdown for a chat message; plain text when the message is too large to format cheaply."""
    clean = strip_control(text)
    if len(clean) > MARKDOWN_LIMIT_CHARS:
        shown = Text(clean[:DISPLAY_LIMIT_CHARS], end="")
        if len(clean) > DISPLAY_LIMIT_CHARS:
            hidden = len(clean) - DISPLAY_LIMIT_CHARS
            shown.append(f"\n\n… {hidden:,} more characters not shown here.", style="italic")
        return shown
    return Markdown(clean, code_theme=CODE_THEME, hyperlinks=False)


def http_links(*texts: str) -> list[str]:
    """Every distinct http(s) URL in `texts`, in order of appearance (trailing punctuation dropped)."""
    found: dict[str, None] = {}
    for text in texts:
        for match in _URL.finditer(strip_control(text)):
            found.setdefault(match.group(0).rstrip(".,;:!?*_"), None)
    return list(found)


def is_http_url(url: str) -> bool:
    return url.startswith(("http://", "https://")) and not any(ch.isspace() for ch in url)


def human_size(size: int) -> str:
    """1536 -> '1.5 KB': enough precision to recognise a file."""
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{size} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} bytes"  # pragma: no cover - loop always returns


def display_path(path: str | Path) -> str:
    """A path with the user's home folder shown as `~` (shorter, and stable in snapshots)."""
    resolved = Path(path)
    try:
        return "~/" + resolved.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(resolved)


def money(usd: float) -> str:
    return f"${usd:.4f}" if usd < 1 else f"${usd:.2f}"


_FENCE = re.compile(r"^\s{0,3}(```|~~~)")


def keep_line_breaks(text: str) -> str:
    """Markdown that keeps the writer's line breaks (outside code blocks) as hard breaks.

    People type questions as lines, not paragraphs; plain Markdown would join them.
    """
    lines = text.split("\n")
    in_fence = False
    out: list[str] = []
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            out.append(line)
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if not in_fence and line.strip() and following.strip() and not _FENCE.match(following):
            line = line.rstrip() + "  "
        out.append(line)
    return "\n".join(out)
