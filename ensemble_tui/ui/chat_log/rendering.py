"""Safe renderables for untrusted text (model output, user input, file names).

Everything the models write reaches the screen through this module, so the rules live in one
place: control characters are removed again (the core already strips model text; user input and
paths are not stripped there), markup is never parsed, and Markdown links are rendered as text
(`hyperlinks=False`) so neither Textual nor the terminal can follow them on a click. Links open
only through the explicit "Open a link" command, which accepts http(s) URLs alone.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.text import Text

from ensemble_tui.core.text.markdown_blocks import has_math
from ensemble_tui.core.text.sanitize import strip_control

if TYPE_CHECKING:
    from rich.markdown import Markdown

# Above this size a message is shown as plain text, and beyond the display limit it is cut:
# wrapping 1 MB of text takes about half a second, and a hostile reply must not freeze the app.
# The whole text stays in the session and the transcript ("Copy last reply" copies all of it).
MARKDOWN_LIMIT_CHARS = 100_000
DISPLAY_LIMIT_CHARS = 200_000
CODE_THEME = "monokai"

_URL = re.compile(r"https?://[^\s<>()\[\]`'\"]+")

# LaTeX math in Markdown shown as Unicode text (core/math/mathtext.py) or raw; the app's toggle sets it.
# Renderables already made keep the form they were made with: rebuild them after a switch.
_math_rendering = True


def set_math_rendering(on: bool) -> None:
    """Show LaTeX math as Unicode text (True) or as the raw LaTeX the model wrote (False)."""
    global _math_rendering
    _math_rendering = on


def math_rendering() -> bool:
    return _math_rendering


def plain(text: str) -> Text:
    """Text shown exactly as written: no markup, no control characters."""
    return Text(strip_control(text), end="")


def markdown(text: str) -> RenderableType:
    """Markdown for a chat message; plain text when the message is too large to format cheaply.
    LaTeX as text or raw, as the app's switch says."""
    return _formatted(strip_control(text))


def deferred_markdown(text: str) -> DeferredMarkdown:
    """Like `markdown`, but made only when first drawn (see DeferredMarkdown): for text in a
    pane that may never be looked at."""
    return DeferredMarkdown(strip_control(text))


class RenderedOnce:
    """A renderable that keeps what it rendered for the last set of console options.

    What Textual does not do: it renders a Rich renderable twice for every width it is laid out
    at, once to count its lines (the widget's height, RichVisual) and once to draw them, and
    keeps neither for the other. For a 2 KB reply with a table and highlighted code one pass
    cost 25 ms (median of 20, at 116 columns, on the loaded 2-core bench machine), on the event
    loop, in the frame that first shows the reply. What is wrapped here renders the same for the
    same options (Rich's default theme and a fixed code theme; Markdown ignores the height it is
    offered), so the second pass reuses the first: one render per width. It only implements
    Rich's public `__rich_console__`; nothing of Textual is replaced.
    """

    def __init__(self, renderable: RenderableType | None = None) -> None:
        self.renderable = renderable
        self._key: tuple[object, ...] | None = None
        self._segments: list[Segment] = []

    def content(self) -> RenderableType:
        """What to render (a subclass may build it on first use)."""
        assert self.renderable is not None
        return self.renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key = (
            options.max_width,
            options.min_width,
            options.justify,
            options.overflow,
            options.no_wrap,
            options.highlight,
            options.markup,
            console.color_system,
        )
        if key != self._key:
            self._segments = list(console.render(self.content(), options.update(height=None)))
            self._key = key
        return self._segments


class DeferredMarkdown(RenderedOnce):
    """Markdown that is parsed the first time it is drawn, not when it is made; plain text
    (cut at the display limit) if it is longer than MARKDOWN_LIMIT_CHARS, made then too.

    Rich parses in `Markdown.__init__`, so building the renderable for a hidden pane cost the
    whole parse although nothing showed it; even plain `Text` scans a long text when it is
    made (~15 ms for a 200 KB synthesis request). Textual draws (and measures) a widget only
    when it is laid out, which a widget in a hidden TabPane is not; so with this wrapper a model
    pane's output is rendered when that pane is shown, and an output replaced before then never
    is. `text` must already be free of control characters.
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
        self._parsed: RenderableType | None = None

    def content(self) -> RenderableType:
        if self._parsed is None:
            self._parsed = _formatted(self.text)
        return self._parsed


def _formatted(clean: str) -> RenderableType:
    """Markdown, or plain text cut at the display limit when too long to format cheaply."""
    return _cut_plain(clean) if len(clean) > MARKDOWN_LIMIT_CHARS else _parse_markdown(clean)


def _parse_markdown(clean: str) -> Markdown:
    """Rich Markdown with links as plain text, tables fitted to the width, numbered lists with
    their "1." and display math set in by layout (ui/chat_log/chat_markdown.py), and math as
    text when that is on. Imported here, on first use: `rich.markdown` pulls in markdown_it and
    pygments (~40 ms), which an empty chat does not need to start; the math converter (~35 ms)
    waits for the first text with a `$`."""
    from ensemble_tui.ui.chat_log.chat_markdown import ChatMarkdown

    if _math_rendering and has_math(clean):
        from ensemble_tui.core.math.mathtext import render_math

        clean = render_math(clean)
    return ChatMarkdown(clean, code_theme=CODE_THEME, hyperlinks=False)


def _cut_plain(clean: str) -> Text:
    """Text too long to format: shown as written, cut at the display limit."""
    shown = Text(clean[:DISPLAY_LIMIT_CHARS], end="")
    if len(clean) > DISPLAY_LIMIT_CHARS:
        hidden = len(clean) - DISPLAY_LIMIT_CHARS
        shown.append(f"\n\n… {hidden:,} more characters not shown here.", style="italic")
    return shown


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
