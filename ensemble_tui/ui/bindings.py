"""The main screen's key bindings, each with an id so Configurations/Keymap.json can remap it.

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
# One slot per added provider; providers beyond the fifth are run from the palette.
ADDED_PROVIDER_KEYS: tuple[str, ...] = tuple(f"shift+f{n},f{n + 12}" for n in range(1, 6))


# Off while a dialog is open (App.check_action): they act on the main screen.
MAIN_SCREEN_ACTIONS = {
    "send",
    "send_added",
    "choose_style",
    "new_chat",
    "select_pdf",
    "cancel_run",
    "show_pane",
    "cycle_pane",
    "show_report",
    "show_compare",
    "show_claims",
    "show_history",
    "copy_reply_in_view",
}


# Key names as keyboards print them, for those whose Textual name is not that.
KEY_NAMES = {"escape": "Esc", "pageup": "PgUp", "pagedown": "PgDn", "delete": "Del", "insert": "Ins"}


def key_name(keys: str) -> str:
    """How a key is written for people: "shift+f1,f13" -> "Shift+F1", "ctrl+pagedown" -> "Ctrl+PgDn"."""
    parts = keys.split(",")[0].split("+")
    return "+".join(
        KEY_NAMES.get(part) or (part.upper() if part[:1] == "f" and part[1:].isdigit() else part.title())
        for part in parts
    )


AUTO_WHAT = "the cheapest strong model answers twice; All runs on top only if the two disagree"
AUTO_HINT = f"{AUTO_WHAT[0].upper()}{AUTO_WHAT[1:]} ({key_name(MODE_KEYS[Mode.AUTO])})"


def help_binding() -> Binding:
    return Binding(
        HELP_KEY,
        "show_help",
        "Help",
        priority=True,  # over any focused widget and in every dialog: F1 always answers
        id="app.help",
        tooltip="Every key, grouped",
    )


def mode_binding(mode: Mode) -> Binding:
    return Binding(
        MODE_KEYS[mode],
        f"send('{mode.value}')",
        mode.label,
        show=False,  # the mode buttons just above the footer show these (issue 25 §4)
        id=f"mode.{mode.value}",
        tooltip=f"Send with {mode.label}" + (f": {AUTO_WHAT}" if mode is Mode.AUTO else ""),
    )


def style_binding(style: Style) -> Binding:
    return Binding(
        STYLE_KEYS[style],
        f"choose_style('{style.value}')",
        style.label,
        show=False,  # the style button beside the action buttons shows the choice
        priority=True,  # over TextArea's own F6/F7
        id=f"style.{style.value}",
        tooltip=f"{style.label}: how the next multi-model turn deliberates",
    )


def added_provider_binding(slot: int) -> Binding:
    keys = ADDED_PROVIDER_KEYS[slot]
    return Binding(
        keys,
        f"send_added({slot})",
        f"Added provider {slot + 1}",
        show=False,  # the provider's name is not known here; the palette and its pane name the key
        key_display=key_name(keys),
        id=f"added.{slot + 1}",
        tooltip="Send with this added provider alone",
    )


def main_bindings() -> list[Binding]:
    return [
        help_binding(),
        *(mode_binding(mode) for mode in Mode),
        *(style_binding(style) for style in Style),
        *(added_provider_binding(slot) for slot in range(len(ADDED_PROVIDER_KEYS))),
        # Not in the footer: the status line says how to cancel while a run is under way, and a
        # key that came and went made the footer rebuild twice per turn.
        Binding(
            "escape",
            "cancel_run",
            "Cancel",
            show=False,
            id="run.cancel",
            tooltip="Cancel the run; nothing of it is kept",
        ),
        Binding("ctrl+n", "new_chat", "New chat", id="chat.new", tooltip="Start a fresh chat"),
        Binding("ctrl+o", "select_pdf", "PDF", id="pdf.select", tooltip="Choose the paper"),
        Binding("ctrl+r", "show_report", "Report", id="report.open", tooltip="The run report of this chat's runs"),
        Binding(
            "ctrl+f",
            "show_compare",
            "Compare",
            id="compare.open",
            tooltip="The last run's proposals side by side",
        ),
        Binding(
            "f10",
            "show_claims",
            "Claims",
            show=False,  # the palette names it; the footer has no room left at 80 columns
            id="claims.open",
            tooltip="Compare on its Claims tab: where the last run's models agree and disagree, disputed first",
        ),
        Binding("ctrl+g", "show_history", "History", id="history.open", tooltip="Reopen an earlier chat"),
        # App's own Ctrl+Q, shown: the footer names the keys visible nowhere else (issue 25 §4).
        Binding("ctrl+q", "quit", "Quit", priority=True, id="app.quit", tooltip="Quit; during a run, ask first"),
        Binding(
            "ctrl+l",
            "toggle_math",
            "Math/LaTeX",
            show=False,
            id="math.toggle",
            tooltip="Show mathematics as text, or as the LaTeX the models wrote",
        ),
        Binding(
            "ctrl+t",
            "copy_reply_in_view",
            "Copy reply",
            show=False,
            id="reply.copy",
            tooltip="Copy the reply scrolled to (or under the mouse) as Markdown",
        ),
        # Alt+digit is not delivered reliably (tmux turns Alt+2 into another key), so panes are
        # cycled browser-style; the palette has a "Show ... pane" entry for each. Priority
        # bindings, over the scrolling panes (Settings, a model's reply, the chat log): Textual's
        # scroll containers bind the same keys to a sideways scroll none of them has (the key
        # then fell through to these), and the Keys panel named them "Page Left" and "Page Right".
        Binding("ctrl+pagedown", "cycle_pane(1)", "Next pane", show=False, priority=True, id="pane.next"),
        Binding("ctrl+pageup", "cycle_pane(-1)", "Previous pane", show=False, priority=True, id="pane.previous"),
    ]
