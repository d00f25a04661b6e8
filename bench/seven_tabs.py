"""Row 5's baseline: a bare Textual app with a header, seven tabs and a footer.

Kept in its own module so that starting it imports Textual and nothing else, as a minimal app
of the same shape as ensemble-tui would: `python -m bench.seven_tabs`.

`python -m bench.seven_tabs --with-libraries` is the same app with what ensemble-tui cannot
start without and the bare app does not load: pydantic (the session and settings are read
through pydantic models) and a TextArea (the multi-line question box). Row 5.c compares with it.
"""

from __future__ import annotations

import sys

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Static, TabbedContent, TabPane

TAB_NAMES = ("Chat", "ChatGPT", "Claude", "Gemini", "Attachments", "Resubmissions", "Settings")


class SevenTabsApp(App[None]):
    def __init__(self, *, with_libraries: bool = False) -> None:
        super().__init__()
        self.with_libraries = with_libraries

    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent():
            for name in TAB_NAMES:
                with TabPane(name):
                    yield Static(f"{name} pane")
                    if name == "Chat" and self.with_libraries:
                        from textual.widgets import TextArea

                        yield TextArea()
        yield Footer()


def load_libraries() -> None:
    """Import pydantic and build a model, as ensemble-tui does before its first frame."""
    from pydantic import BaseModel

    class Message(BaseModel):
        role: str
        text: str

    Message.model_validate({"role": "user", "text": "hello"})


if __name__ == "__main__":
    with_libraries = "--with-libraries" in sys.argv
    if with_libraries:
        load_libraries()
    SevenTabsApp(with_libraries=with_libraries).run()
