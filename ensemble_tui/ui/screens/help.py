"""The help screen (F1, or "Help" in the palette): every key of the main screen, grouped.

Built from the action table (ui/bindings.py), each action once, at its key in the keymap the app
loaded at start; the question box's and Compare's own keys come from their own bindings. So the
list cannot drift from what the keys do. Provider names come from files: they are
shown as plain text, never as markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ensemble_tui.ui.bindings import GROUPS, HELP_KEY, current_key, key_name, keyed_actions
from ensemble_tui.ui.widgets.chat_input import ChatInput

COMPARE_GROUP = "In Compare"
PAPER_GROUP = "In the paper view (a click on a quote's ✓/✗ opens it)"
# The question box's own keys (ui/widgets/chat_input.py): Enter sends, the others edit or scroll.
INPUT_GROUP_BY_ID = {"chat.send": "Turns"}


@dataclass(frozen=True)
class KeyRow:
    keys: str  # as printed on a keyboard: "Ctrl+J / Shift+Enter"
    what: str


def keys_text(keys: str) -> str:
    """Keys as people write them: "ctrl+j,shift+enter" -> "Ctrl+J / Shift+Enter". xterm's names
    F13-F17 for Shift+F1..F5 are left out."""
    names = [
        key_name(key) for key in keys.split(",") if not (key[:1] == "f" and key[1:].isdigit() and int(key[1:]) > 12)
    ]
    return " / ".join(dict.fromkeys(names))


def binding_row(binding: Binding, keymap: Mapping[str, str]) -> KeyRow:
    """A widget's or a screen's own binding as a row, with Keymap.json's key where it remaps it."""
    remapped = keymap.get(binding.id or "")
    keys = keys_text(remapped) if remapped else binding.key_display or keys_text(binding.key)
    return KeyRow(keys, binding.tooltip or binding.description)


def key_groups(
    keymap: Mapping[str, str], added: Sequence[str], compare: Iterable[Binding] = (), paper: Iterable[Binding] = ()
) -> dict[str, list[KeyRow]]:
    """The rows of each group: the question box's keys first, then every action of the table with
    a key, each once, at its key as `keymap` maps it. `added` names the added providers, each on
    its Shift+F key (slots without one are left out). `compare`: Compare's own keys, shown in a
    group of their own (those it does not show, such as → beside ←, are left out); `paper`, the
    paper view's, likewise."""
    groups: dict[str, list[KeyRow]] = {group: [] for group in (*GROUPS, COMPARE_GROUP)}
    for binding in ChatInput.BINDINGS:
        if isinstance(binding, Binding):
            groups[INPUT_GROUP_BY_ID.get(binding.id or "", "Chat")].append(binding_row(binding, keymap))
    for action in keyed_actions():
        keys = current_key(action, keymap) or ""
        what = action.help
        if action.needs_added_slot:
            slot = int(action.args[0])
            if slot >= len(added):
                continue
            what = f"Send with {added[slot]} alone"
        groups[action.group].append(KeyRow(keys_text(keys), what))
    groups["App"].append(
        KeyRow(key_name(App.COMMAND_PALETTE_BINDING), "Command palette: every action by name, exports and styles too")
    )
    groups[COMPARE_GROUP] = [binding_row(b, keymap) for b in compare if b.show]
    if paper_rows := [binding_row(b, keymap) for b in paper if b.show]:
        groups[PAPER_GROUP] = paper_rows
    return groups


def app_key_groups(keymap: Mapping[str, str], added: Sequence[str]) -> dict[str, list[KeyRow]]:
    """The groups for the app, Compare's and the paper view's keys included (their screens
    imported only now)."""
    from ensemble_tui.ui.screens.compare import CompareScreen
    from ensemble_tui.ui.screens.paper import PaperScreen

    compare = (b for b in CompareScreen.BINDINGS if isinstance(b, Binding))
    paper = (b for b in PaperScreen.BINDINGS if isinstance(b, Binding))
    return key_groups(keymap, added, compare, paper)


def group_table(rows: Sequence[KeyRow], key_width: int) -> Table:
    """One group's rows; every group's key column is `key_width` wide, so the groups line up."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True, min_width=key_width)
    table.add_column()
    for row in rows:
        table.add_row(Text(row.keys), Text(row.what))
    return table


class HelpScreen(ModalScreen[None]):
    """The keys, one group under another; Esc, F1 or Enter closes it."""

    DEFAULT_CSS = """
    HelpScreen .help-dialog {
        height: 90%;
    }
    HelpScreen #help-keys {
        height: 1fr;
    }
    HelpScreen .help-group.-first {
        margin-top: 0;
    }
    HelpScreen .help-group {
        margin-top: 1;
        text-style: bold;
        color: $accent;
    }
    """
    BINDINGS = [
        Binding("escape,enter", "close", "Close", id="help.close"),
    ]

    def __init__(self, groups: Mapping[str, Sequence[KeyRow]], help_key: str = key_name(HELP_KEY)) -> None:
        super().__init__(classes="dialog-screen")
        self.groups = groups
        self.help_key = help_key  # as Keymap.json maps it

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help-dialog"):
            yield Label(
                f"Keys ({self.help_key} or Esc closes; ↑↓ scroll). Keymap.json can remap any of them.",
                classes="dialog-title",
            )
            key_width = max((len(row.keys) for rows in self.groups.values() for row in rows), default=0)
            with VerticalScroll(id="help-keys"):
                shown = [(group, rows) for group, rows in self.groups.items() if rows]
                for index, (group, rows) in enumerate(shown):
                    yield Label(group, classes="help-group" + (" -first" if index == 0 else ""))
                    yield Static(group_table(rows, key_width))

    def on_mount(self) -> None:
        self.query_one("#help-keys").focus()

    def action_close(self) -> None:
        self.dismiss(None)


def toggle_help(app: App[object], groups: Mapping[str, Sequence[KeyRow]], help_key: str) -> None:
    """Open the help screen with `groups`, or close it when it is on top (F1 again)."""
    if isinstance(app.screen, HelpScreen):
        app.screen.dismiss(None)
    else:
        app.push_screen(HelpScreen(groups, help_key))
