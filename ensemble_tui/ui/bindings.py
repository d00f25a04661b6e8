"""The action table: every action of the main screen defined once, and its key bindings made from it.

Each `AppAction` holds an id (the binding id Configurations/Keymap.json remaps), a label, a help
text, its default key, what it does (the collaborator that does the work) and where it shows:
the footer, the palette (ui/commands.py) and the help screen (ui/screens/help.py). All three
read the key through `current_key`, against the keymap the app loaded once, so a remapped key
shows everywhere. Every binding runs the action `do('<id>')`; MainScreen.action_do looks the
entry up here. The main screen binds every key; the app binds those that act over dialogs too
(`over_dialogs`), since a dialog on top hides the main screen's bindings.

Keys were chosen for what terminals actually deliver, tmux included (checked with tmux 3.3):
- F1 is help, everywhere (a priority binding, so dialogs and text boxes do not take it): it is
  the key people press by reflex for help, and a reflex must never start a paid turn, as F1 did
  when it sent with ChatGPT (on an empty box, a redo). ChatGPT moved to F12 rather than every
  mode key moving one place: F2-F9 and Shift+F1..F5 stay where users learnt them, and F10 and
  F11 are taken by many terminals (the menu, full screen) while F12 arrives everywhere.
- F12 and F2-F5 send in a mode, F6-F9 choose the deliberation style. Function keys arrive everywhere;
  Ctrl+digit does not exist in most terminals and Alt+digit arrives as another character in tmux
  (Alt+1 reaches the app as "¡"). The style keys are priority bindings: the question box (a
  TextArea) binds F6 and F7 to "select line" and "select all" itself, and would otherwise win;
  selecting with Shift+arrows still works there.
- Shift+F1..Shift+F5 run an added provider alone, in the order of `Workspace.extra_providers`.
  tmux reports them as shift+f1; xterm sends ESC [1;2P, which Textual reads as F13 (xterm
  numbers shifted function keys from F13), so both names are bound.
- Ctrl+R (run report) and Ctrl+G (history: "go to another chat") are free in the question box:
  TextArea binds neither, and neither is a terminal or tmux control key (Ctrl+B is tmux's prefix,
  Ctrl+H is Backspace in many terminals, Ctrl+S/Ctrl+Q are flow control outside raw mode).
  Ctrl+F (compare the proposals) is free there too: TextArea binds Ctrl+A/C/D/E/K/U/V/W/X/Y/Z,
  and no terminal or tmux default takes it.
- F11 (Auto, beside All on F5): the one plain function key left. Some terminals take it for full
  screen; there the Auto button, the palette or Configurations/Keymap.json (`mode.auto`) serve.
- F10 (the claim map, Compare's Claims tab): every free Ctrl+letter is taken (by the question box,
  the terminal or the bindings above); function keys arrive everywhere, tmux included.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from textual.binding import Binding

from ensemble_tui.core.chat.modes import Mode, Style

MODE_KEYS: dict[Mode, str] = {
    Mode.CHATGPT: "f12",
    Mode.CLAUDE: "f2",
    Mode.GEMINI: "f3",
    Mode.CHATGPT_GEMINI: "f4",
    Mode.ALL: "f5",
    Mode.AUTO: "f11",
}
STYLE_KEYS: dict[Style, str] = {
    Style.AGGREGATE: "f6",
    Style.COUNCIL: "f7",
    Style.VOTE: "f8",
    Style.DEBATE: "f9",
}
HELP_KEY = "f1"
HELP_ID = "app.help"
QUIT_ID = "app.quit"
# One slot per added provider; providers beyond the fifth are run from the palette.
ADDED_PROVIDER_KEYS: tuple[str, ...] = tuple(f"shift+f{n},f{n + 12}" for n in range(1, 6))

# The help screen's groups, in the order it shows them.
GROUPS = ("Turns", "Styles", "Panes", "Chat", "App")

# Key names as keyboards print them, for those whose Textual name is not that.
KEY_NAMES = {"escape": "Esc", "pageup": "PgUp", "pagedown": "PgDn", "delete": "Del", "insert": "Ins"}


def key_name(keys: str) -> str:
    """How a key is written for people: "shift+f1,f13" -> "Shift+F1", "ctrl+pagedown" -> "Ctrl+PgDn".
    A letter alone keeps its case, as the footer shows it: "n" and "N" (Shift+N) are two keys,
    and both read "N" in the help screen; after a modifier it is a capital ("Ctrl+N")."""
    parts = keys.split(",")[0].split("+")

    def name(part: str) -> str:
        if part in KEY_NAMES:
            return KEY_NAMES[part]
        if len(part) == 1:
            return part if len(parts) == 1 else part.upper()
        return part.upper() if part[:1] == "f" and part[1:].isdigit() else part.title()

    return "+".join(name(part) for part in parts)


AUTO_WHAT = "the cheapest strong model answers twice; All runs on top only if the two disagree"


@dataclass(frozen=True)
class AppAction:
    """One action of the main screen, defined once.

    `does` names the collaborator's method that does the work, as a path from the main screen
    ("archive_flow.show_report"), called with `args`. `after_typed`: the keys typed before this
    one reach the question box first (a send). `footer`/`palette` say where it shows besides
    the help screen, which lists every action with a key. `over_dialogs`: it also acts while a
    dialog is open, bound on the app as well (else the main screen's keys wait). `needs_added_slot`: a Shift+F key acts
    only when an added provider sits in its slot; `needs_turn`: only during a run.
    """

    id: str
    label: str
    help: str
    key: str | None
    does: str
    args: tuple[object, ...] = ()
    group: str = "App"
    footer: bool = False
    palette: str | None = None  # the palette's title; None: not in the palette
    priority: bool = False
    over_dialogs: bool = False
    after_typed: bool = False
    needs_turn: bool = False
    needs_added_slot: bool = False


def _mode_action(mode: Mode) -> AppAction:
    return AppAction(
        id=f"mode.{mode.value}",
        label=mode.label,
        help=f"Send with {mode.label}" + (f": {AUTO_WHAT}" if mode is Mode.AUTO else ""),
        key=MODE_KEYS[mode],
        does="turn_keys.send",
        args=(mode.value,),
        group="Turns",
        palette=f"Send with {mode.label}",
        after_typed=True,
    )


def _style_action(style: Style) -> AppAction:
    return AppAction(
        id=f"style.{style.value}",
        label=style.label,
        help=f"{style.label}: how the next multi-model turn deliberates",
        key=STYLE_KEYS[style],
        does="turn_keys.choose_style",
        args=(style,),
        group="Styles",
        palette=f"Style: {style.label}",
        priority=True,  # over TextArea's own F6/F7
    )


def _added_action(slot: int) -> AppAction:
    """The palette names the provider (ui/commands.py): its name is known only to the workspace."""
    return AppAction(
        id=f"added.{slot + 1}",
        label=f"Added provider {slot + 1}",
        help="Send with this added provider alone",
        key=ADDED_PROVIDER_KEYS[slot],
        does="turn_keys.send_added",
        args=(slot,),
        group="Turns",
        after_typed=True,
        needs_added_slot=True,
    )


def action_table() -> tuple[AppAction, ...]:
    """Every action, in the footer's order (the bindings keep it)."""
    return (
        AppAction(
            HELP_ID,
            "Help",
            "Every key of the app, grouped",
            HELP_KEY,
            "toggle_help",
            footer=True,
            palette="Help: keys",
            priority=True,  # over any focused widget and in every dialog: F1 always answers
            over_dialogs=True,
        ),
        *(_mode_action(mode) for mode in Mode),
        *(_style_action(style) for style in Style),
        *(_added_action(slot) for slot in range(len(ADDED_PROVIDER_KEYS))),
        # Not in the footer: the status line says how to cancel while a run is under way, and a
        # key that came and went made the footer rebuild twice per turn.
        AppAction(
            "run.cancel",
            "Cancel",
            "Cancel the run; nothing of it is kept",
            "escape",
            "turns.cancel",
            group="Turns",
            palette="Cancel the run",
            needs_turn=True,
        ),
        AppAction(
            "chat.new",
            "New chat",
            "Start a fresh chat; the current transcript stays in Chats/",
            "ctrl+n",
            "new_chat",
            group="Chat",
            footer=True,
            palette="New chat",
        ),
        AppAction(
            "pdf.select",
            "PDF",
            "Choose the paper the models read",
            "ctrl+o",
            "pdf_actions.choose",
            group="Chat",
            footer=True,
            palette="Select PDF",
        ),
        AppAction(
            "pdf.clear",
            "Remove PDF",
            "Continue this chat without a paper",
            None,
            "pdf_actions.clear",
            palette="Remove PDF",
        ),
        AppAction(
            "pdf.read",
            "Read paper",
            "The chat's paper, page by page: ←/→ turn pages, g goes to a page, / finds",
            None,
            "pdf_actions.read",
            group="Chat",
            palette="Read the paper",
        ),
        AppAction(
            "report.open",
            "Report",
            "Every call, answer, review and vote of this chat's runs",
            "ctrl+r",
            "archive_flow.show_report",
            footer=True,
            palette="Show run report",
        ),
        AppAction(
            "compare.open",
            "Compare",
            "The last run's proposals side by side, with cost, tally and quote check",
            "ctrl+f",
            "archive_flow.show_compare",
            footer=True,
            palette="Compare the proposals",
        ),
        AppAction(
            "claims.open",
            "Claims",
            "Compare on its Claims tab: where the last run's models agree and disagree, disputed first",
            "f10",  # not in the footer: it has no room left at 80 columns
            "archive_flow.show_compare",
            args=("claims",),
            palette="Claims",
        ),
        AppAction(
            "history.open",
            "History",
            "Reopen an earlier chat",
            "ctrl+g",
            "archive_flow.show_history",
            footer=True,
            palette="Show history",
        ),
        # App's own Ctrl+Q, shown: the footer names the keys visible nowhere else (issue 25 §4).
        # Textual's palette has its own "Quit", which reaches the same TurnKeys.quit.
        AppAction(
            QUIT_ID,
            "Quit",
            "Quit; during a run it asks first and keeps the question",
            "ctrl+q",
            "turn_keys.quit",
            footer=True,
            priority=True,
            over_dialogs=True,
        ),
        # Alt+Up: every Ctrl+letter and function key is taken (see above); tmux and xterm deliver
        # Alt with the arrows (ESC [1;3A). Up in an empty question box does the same. Not in the
        # footer, which has no room left at 80 columns; once on, the cursor's keys are there.
        AppAction(
            "chat.cursor",
            "Messages",
            "Put a cursor on the chat's messages (or Up in an empty box): edit and resend, fork, copy, "
            "open a reply's first checked quote in the paper",
            "alt+up",
            "message_cursor.start",
            group="Chat",
            palette="Select a message: edit and resend, fork, copy, see its quote in the paper",
        ),
        AppAction(
            "math.toggle",
            "Math/LaTeX",
            "Show mathematics as text, or as the LaTeX the models wrote",
            "ctrl+l",
            "reply_actions.toggle_math",
            group="Chat",
            palette="Show math as text or as LaTeX",
            over_dialogs=True,
        ),
        AppAction(
            "reply.copy",
            "Copy reply",
            "Copy the reply scrolled to (or under the mouse) as Markdown",
            "ctrl+t",
            "reply_actions.copy_reply_in_view",
            group="Chat",
            palette="Copy the reply in view",
        ),
        # Alt+digit is not delivered reliably (tmux turns Alt+2 into another key), so panes are
        # cycled browser-style; the palette has a "Show ... pane" entry for each. Priority
        # bindings, over the scrolling panes (Settings, a model's reply, the chat log): Textual's
        # scroll containers bind the same keys to a sideways scroll none of them has (the key
        # then fell through to these), and the Keys panel named them "Page Left" and "Page Right".
        AppAction(
            "pane.next",
            "Next pane",
            "Next pane",
            "ctrl+pagedown",
            "pane_switching.cycle",
            args=(1,),
            group="Panes",
            priority=True,
        ),
        AppAction(
            "pane.previous",
            "Previous pane",
            "Previous pane",
            "ctrl+pageup",
            "pane_switching.cycle",
            args=(-1,),
            group="Panes",
            priority=True,
        ),
        # In the palette only.
        AppAction(
            "reply.copy_last",
            "Copy last reply",
            "Copy the last final reply to the clipboard",
            None,
            "reply_actions.copy_last_reply",
            palette="Copy last reply",
        ),
        AppAction(
            "reply.bring_back",
            "Bring back the replaced reply",
            "Put back the reply the last redo replaced (until a new question is asked)",
            None,
            "turns.bring_back",
            group="Chat",
            palette="Bring back the replaced reply",
        ),
        AppAction(
            "link.open",
            "Open a link",
            "Pick an http(s) link of the last reply to open",
            None,
            "reply_actions.open_link",
            palette="Open a link from the last reply",
        ),
        AppAction(
            "transcripts.open",
            "Transcripts",
            "Show Chats/, where every chat is kept as Markdown",
            None,
            "reply_actions.open_transcripts",
            palette="Open transcript folder",
        ),
        AppAction(
            "chat.earlier",
            "Earlier messages",
            "Load older messages of a long chat",
            None,
            "reply_actions.show_earlier",
            palette="Show earlier messages",
        ),
        AppAction(
            "budget.release",
            "Release unconfirmed",
            "Stop counting the reservations of a turn cut off by a crash (they may have been billed)",
            None,
            "budget_actions.release",
            palette="Release unconfirmed reservations",
        ),
    )


ACTIONS: tuple[AppAction, ...] = action_table()
ACTION_BY_ID: dict[str, AppAction] = {action.id: action for action in ACTIONS}


def current_key(action: AppAction, keymap: Mapping[str, str]) -> str | None:
    """The action's keys (Textual's names, comma-separated) after Keymap.json's remapping."""
    return keymap.get(action.id) or action.key


def key_span(keys: Sequence[str], last: str = "and") -> str:
    """Keys named together: "F6-F9" for a run of F keys in order, else "F6, F7, Ctrl+Y and F9"
    (keys Keymap.json took away, "", left out)."""
    named = [key for key in keys if key]
    numbers = [int(key[1:]) for key in named if key[:1] == "F" and key[1:].isdigit()]
    if len(named) > 2 and len(numbers) == len(named) and numbers == list(range(numbers[0], numbers[0] + len(named))):
        return f"{named[0]}-{named[-1]}"
    return f"{', '.join(named[:-1])} {last} {named[-1]}" if len(named) > 1 else "".join(named)


def shown_key(action_id: str, keymap: Mapping[str, str]) -> str:
    """The action's key as people write it ("F5", "Ctrl+R"); "" for one without a key."""
    keys = current_key(ACTION_BY_ID[action_id], keymap)
    return key_name(keys) if keys else ""


def binding(action: AppAction) -> Binding:
    """The action's binding, at its default key (Textual's keymap applies Keymap.json's)."""
    assert action.key is not None, action.id
    return Binding(
        action.key,
        f"do('{action.id}')",
        action.label,
        show=action.footer,
        priority=action.priority,
        # xterm's F13-F17 for Shift+F1..F5 would otherwise be named beside them in the Keys panel
        key_display=key_name(action.key) if action.needs_added_slot else None,
        id=action.id,
        tooltip=action.help,
    )


def main_bindings() -> list[Binding]:
    """The main screen's bindings: every action with a key, in the table's order but Quit first.

    Textual's footer lists the focused widget's keys, then the screen's, then the app's. The
    footer has always shown Ctrl+Q first: Textual's App binds ctrl+q itself, and the app's own
    Quit took that binding's place. The screen keeps that order, so the footer reads as before."""
    keyed = [action for action in ACTIONS if action.key is not None]
    return [binding(action) for action in sorted(keyed, key=lambda action: action.id != QUIT_ID)]


def app_wide_bindings() -> list[Binding]:
    """The app's own bindings: the actions that also act over a dialog (Help, Quit, Math/LaTeX),
    which the main screen binds too (a dialog on top hides the screen's bindings)."""
    return [binding(action) for action in ACTIONS if action.key is not None and action.over_dialogs]


def keyed_actions() -> Iterator[AppAction]:
    return (action for action in ACTIONS if action.key is not None)


def auto_hint(keymap: Mapping[str, str]) -> str:
    """What Auto does, with its key: the palette's and the Auto button's help."""
    return f"{AUTO_WHAT[0].upper()}{AUTO_WHAT[1:]} ({shown_key(f'mode.{Mode.AUTO.value}', keymap)})"
