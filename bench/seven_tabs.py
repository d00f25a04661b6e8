"""Row 5's baseline: a bare Textual app with a header, seven tabs and a footer.

Kept in its own module so that starting it imports Textual and nothing else, as a minimal app
of the same shape as ensemble-tui would: `python -m bench.seven_tabs`.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Static, TabbedContent, TabPane

TAB_NAMES = ("Chat", "ChatGPT", "Claude", "Gemini", "Attachments", "Resubmissions", "Settings")


class SevenTabsApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent():
            for name in TAB_NAMES:
                with TabPane(name):
                    yield Static(f"{name} pane")
        yield Footer()


if __name__ == "__main__":
    SevenTabsApp().run()
