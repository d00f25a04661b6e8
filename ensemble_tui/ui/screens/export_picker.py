"""A dialog choosing what to export (the run shown, or the whole chat) and in which format."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from ensemble_tui.core.records.export import FORMATS, ExportFormat

ExportScope = Literal["run", "chat"]
FORMAT_NAMES: dict[ExportFormat, str] = {
    "json": "JSON",
    "md": "Markdown",
    "html": "HTML (one self-contained file)",
}


@dataclass(frozen=True)
class ExportChoice:
    scope: ExportScope
    fmt: ExportFormat


def choices(with_run: bool) -> list[ExportChoice]:
    scopes: tuple[ExportScope, ...] = ("run", "chat") if with_run else ("chat",)
    return [ExportChoice(scope, fmt) for scope in scopes for fmt in FORMATS]


def choice_title(choice: ExportChoice) -> str:
    what = "This run" if choice.scope == "run" else "The whole chat"
    return f"{what} as {FORMAT_NAMES[choice.fmt]}"


class ExportPicker(ModalScreen[ExportChoice | None]):
    """Returns the chosen export, or None when dismissed."""

    BINDINGS = [Binding("escape", "dismiss_picker", "Close", id="export.close")]

    def __init__(self, *, with_run: bool = True) -> None:
        super().__init__(classes="dialog-screen")
        self.choices = choices(with_run)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Export (Enter writes the file into Exports/, Esc closes)", classes="dialog-title")
            yield OptionList(
                *(Option(choice_title(choice), id=str(index)) for index, choice in enumerate(self.choices)),
                id="export-choices",
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[int(event.option_id or 0)])

    def action_dismiss_picker(self) -> None:
        self.dismiss(None)
