"""The help screen (F1, or "Help" in the palette): every key of the main screen, grouped.

Built from the bindings themselves, with the keys of Configurations/Keymap.json where it remaps
them, so the list cannot drift from what the keys do. Provider names come from files: they are
shown as plain text, never as markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ensemble_tui.ui.bindings import HELP_KEY, key_name, main_bindings
from ensemble_tui.ui.keymap import KEYMAP_FILE, load_keymap
from ensemble_tui.ui.widgets.chat_input import ChatInput

if TYPE_CHECKING:
    from ensemble_tui.core.workspace import Workspace

GROUPS = ("Turns", "Styles", "Panes", "Chat", "App")
# The group of each binding, by the first part of its id; a few ids sit elsewhere.
GROUP_BY_PREFIX = {"mode": "Turns", "added": "Turns", "run": "Turns", "style": "Styles", "pane": "Panes"}
GROUP_BY_ID = {
    "chat.send": "Turns",
    "chat.new": "Chat",
    "chat.newline": "Chat",
    "pdf.select": "Chat",
    "reply.copy": "Chat",
    "math.toggle": "Chat",
    "chat.page_up": "Chat",
    "chat.page_down": "Chat",
    "chat.start": "Chat",
    "chat.end": "Chat",
}


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


def group_of(binding: Binding) -> str:
    binding_id = binding.id or ""
    return GROUP_BY_ID.get(binding_id) or GROUP_BY_PREFIX.get(binding_id.split(".")[0], "App")


def key_groups(bindings: Iterable[Binding], keymap: Mapping[str, str], added: Sequence[str]) -> dict[str, list[KeyRow]]:
    """The rows of each group, in binding order. `keymap` maps binding ids to the keys that
    replace theirs; `added` names the added providers, each on its Shift+F key (slots without
    one are left out)."""
    groups: dict[str, list[KeyRow]] = {group: [] for group in GROUPS}
    for binding in bindings:
        if binding.system:
            continue
        remapped = keymap.get(binding.id or "")
        keys = keys_text(remapped) if remapped else binding.key_display or keys_text(binding.key)
        what = binding.tooltip or binding.description
        if (binding.id or "").startswith("added."):
            slot = int(binding.id.split(".")[1]) - 1  # type: ignore[union-attr]
            if slot >= len(added):
                continue
            what = f"Send with {added[slot]} alone"
        groups[group_of(binding)].append(KeyRow(keys, what))
    groups["App"] += [
        KeyRow(key_name(App.COMMAND_PALETTE_BINDING), "Command palette: every action by name, exports and styles too"),
        KeyRow(key_name("ctrl+q"), "Quit; during a run it asks first and keeps the question"),
    ]
    return groups


def app_key_groups(workspace: Workspace) -> dict[str, list[KeyRow]]:
    """The groups for the app over `workspace`, with the keymap file it read at start."""
    keymap, _warning = load_keymap(workspace.paths.configurations / KEYMAP_FILE)
    bindings = [*ChatInput.BINDINGS, *main_bindings()]  # Enter first
    return key_groups((b for b in bindings if isinstance(b, Binding)), keymap, workspace.extra_providers)


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

    def __init__(self, groups: Mapping[str, Sequence[KeyRow]]) -> None:
        super().__init__(classes="dialog-screen")
        self.groups = groups

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help-dialog"):
            yield Label(
                f"Keys ({key_name(HELP_KEY)} or Esc closes; ↑↓ scroll). Keymap.json can remap any of them.",
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


def toggle_help(app: App[object], workspace: Workspace) -> None:
    """Open the help screen, or close it when it is on top (F1 again)."""
    if isinstance(app.screen, HelpScreen):
        app.screen.dismiss(None)
    else:
        app.push_screen(HelpScreen(app_key_groups(workspace)))
