"""The Textual app: seven panes around one Workspace, with the engine driven from a worker.

This module holds the layout, start-up, bindings, pane switching and the actions that are not
runs (PDF, settings, new chat, clipboard, links, palette); running turns and rendering their
events is in ui/turn_flow.py. The app is the only place that calls the core; panes only render
and post messages (attributes down, messages up).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path

from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, TabbedContent, TabPane

from ensemble_tui.core.config import PROVIDERS
from ensemble_tui.core.engine import Engine
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.modes import Mode
from ensemble_tui.core.pdf import pdf_info
from ensemble_tui.core.session import ChatMessage, Resubmission
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.ui.chat_view import NoticeKind
from ensemble_tui.ui.commands import palette_commands
from ensemble_tui.ui.desktop import open_folder
from ensemble_tui.ui.keymap import KEYMAP_FILE, load_keymap
from ensemble_tui.ui.notify import RecordingNotifier, ReplyNotifier
from ensemble_tui.ui.panes import PANES, pane_id_for_provider
from ensemble_tui.ui.panes.attachments import AttachmentsPane
from ensemble_tui.ui.panes.chat import ChatPane
from ensemble_tui.ui.panes.model import ModelPane
from ensemble_tui.ui.panes.resubmissions import ResubmissionsPane
from ensemble_tui.ui.panes.settings import SETTINGS_FILE, SettingsPane, key_hint
from ensemble_tui.ui.rendering import display_path, http_links, is_http_url
from ensemble_tui.ui.screens.links import LinkPicker
from ensemble_tui.ui.screens.pdf_picker import pdf_dialog, start_folder
from ensemble_tui.ui.turn_flow import TurnFlow
from ensemble_tui.ui.turns import ActiveTurn

log = logging.getLogger(__name__)

MAIN_SCREEN_ACTIONS = {"send", "new_chat", "select_pdf", "cancel_run", "show_pane", "cycle_pane"}


def mode_binding(key: str, mode: Mode) -> Binding:
    return Binding(key, f"send('{mode.value}')", mode.label, id=f"mode.{mode.value}", tooltip=f"Send with {mode.label}")


class EnsembleApp(TurnFlow, App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "ensemble-tui"
    BINDINGS = [
        mode_binding("f1", Mode.CHATGPT),
        mode_binding("f2", Mode.CLAUDE),
        mode_binding("f3", Mode.GEMINI),
        mode_binding("f4", Mode.CHATGPT_GEMINI),
        mode_binding("f5", Mode.ALL),
        Binding("escape", "cancel_run", "Cancel", id="run.cancel", tooltip="Cancel the run; nothing of it is kept"),
        Binding("ctrl+n", "new_chat", "New chat", id="chat.new", tooltip="Start a fresh chat"),
        Binding("ctrl+o", "select_pdf", "Select PDF", id="pdf.select", tooltip="Choose the paper"),
        # Alt+digit is not delivered reliably (tmux turns Alt+2 into another key), so panes are
        # cycled browser-style; the palette has a "Show ... pane" entry for each.
        Binding("ctrl+pagedown", "cycle_pane(1)", "Next pane", show=False, id="pane.next"),
        Binding("ctrl+pageup", "cycle_pane(-1)", "Previous pane", show=False, id="pane.previous"),
    ]

    def __init__(
        self,
        workspace: Workspace,
        *,
        engine: Engine | None = None,
        pdf: str | Path | None = None,
        notifier: ReplyNotifier | None = None,
        folder_opener: Callable[[Path], bool] = open_folder,
        demo: bool = False,
    ) -> None:
        super().__init__()
        self.workspace = workspace
        self.engine = engine or Engine(workspace)
        self.notifier: ReplyNotifier = notifier or RecordingNotifier()
        self.folder_opener = folder_opener
        self.demo = demo
        self.turn: ActiveTurn | None = None
        self.default_mode = Mode.ALL
        self._initial_pdf = pdf
        self._run_counter = 0
        self._live_resubmissions: list[Resubmission] = []

    # ----- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        workspace = self.workspace
        yield Header()
        with TabbedContent(id="panes", initial="chat"):
            with TabPane("Chat", id="chat"):
                yield ChatPane(id="chat-pane")
            for provider in PROVIDERS:
                with TabPane(provider, id=pane_id_for_provider(provider)):
                    yield ModelPane(provider, id=f"model-pane-{pane_id_for_provider(provider)}")
            with TabPane("Attachments", id="attachments"):
                yield AttachmentsPane(id="attachments-pane")
            with TabPane("Resubmissions", id="resubmissions"):
                yield ResubmissionsPane(id="resubmissions-pane")
            with TabPane("Settings", id="settings"):
                yield SettingsPane(workspace.configs, workspace.settings, workspace.unavailable, id="settings-pane")
        yield Footer()

    @property
    def chat(self) -> ChatPane:
        return self.query_one(ChatPane)

    @property
    def tabs(self) -> TabbedContent:
        return self.query_one("#panes", TabbedContent)

    def model_pane(self, provider: str) -> ModelPane:
        return self.query_one(f"#model-pane-{pane_id_for_provider(provider)}", ModelPane)

    @property
    def attachments(self) -> AttachmentsPane:
        return self.query_one(AttachmentsPane)

    @property
    def resubmissions(self) -> ResubmissionsPane:
        return self.query_one(ResubmissionsPane)

    # ----- start-up --------------------------------------------------------------------------

    def on_mount(self) -> None:
        keymap, keymap_warning = load_keymap(self.workspace.paths.configurations / KEYMAP_FILE)
        if keymap:
            self.set_keymap(keymap)
        self._show_session()
        lines = [*self.workspace.warnings, *filter(None, [keymap_warning])]
        for name, reason in self.workspace.unavailable.items():
            config = self.workspace.configs.get(name)
            lines.append(key_hint(config, reason) if config else reason)
        for line in dict.fromkeys(lines):  # a broken provider file is both a warning and a reason
            self.add_notice(line, "warning")
        if self._initial_pdf:
            self.select_pdf_path(self._initial_pdf, announce=False)
        self.chat.input.focus()

    def _show_session(self) -> None:
        """Paint every pane from the workspace's session (at start and after a new chat)."""
        session = self.workspace.session
        self.sub_title = f"chat {session.id}" + ("  ·  demo" if self.demo else "")
        try:
            self.default_mode = Mode.parse(session.last_mode) if session.last_mode else Mode.ALL
        except ValueError:
            self.default_mode = Mode.ALL
        self.chat.log_view.show(session.history)
        self.resubmissions.log_view.show(session.resubmissions)
        self.chat.status.set_cost(session.cost_usd)
        self._refresh_model_panes()
        self._refresh_pdf()
        self._mark_actions()

    def _refresh_model_panes(self) -> None:
        workspace = self.workspace
        for provider in PROVIDERS:
            reason = workspace.unavailable.get(provider)
            config = workspace.configs.get(provider)  # None when its configuration file is unusable
            self.model_pane(provider).show(
                workspace.session.last_outputs.get(provider),
                workspace.model_for(provider),
                key_hint(config, reason) if reason and config else reason,
            )

    def _refresh_pdf(self) -> None:
        path = self.workspace.session.pdf_path
        if not path:
            self.attachments.show_pdf(None)
            return
        try:
            self.attachments.show_pdf(pdf_info(path))
        except EnsembleError as exc:
            self.attachments.show_pdf(None)
            self.attachments.show_error(str(exc))
            self.add_notice(str(exc), "warning")

    # ----- helpers ---------------------------------------------------------------------------

    def add_notice(self, text: str, kind: NoticeKind = "info") -> None:
        self.chat.log_view.add_notice(text, kind)

    def _mark_actions(self) -> None:
        self.chat.actions.mark(self.default_mode, self.turn.mode if self.turn else None)
        self.refresh_bindings()

    def last_reply(self) -> ChatMessage | None:
        return next((m for m in reversed(self.workspace.session.history) if m.role == "assistant"), None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Main-screen actions are off while a dialog is open; Cancel shows only during a run."""
        if action in MAIN_SCREEN_ACTIONS and len(self.screen_stack) > 1:
            return False
        if action == "cancel_run":
            return self.turn is not None
        return True

    # ----- other actions ---------------------------------------------------------------------

    async def action_new_chat(self) -> None:
        text = await self._stop_turn()
        try:
            self.workspace.new_chat()
        except (EnsembleError, OSError) as exc:
            self.add_notice(f"Cannot start a new chat: {exc}", "error")
            return
        self._show_session()
        self.chat.input.restore(text)
        self.chat.status.stop("New chat. The previous transcript is in Chats/.")
        self.show_pane("chat")
        self.chat.input.focus()

    def action_select_pdf(self) -> None:
        self.show_pane("attachments")
        start = start_folder(self.workspace.session.pdf_path, Path.cwd())
        self.push_screen(pdf_dialog(start), self._pdf_chosen)

    def _pdf_chosen(self, path: Path | None) -> None:
        if path is not None:
            self.select_pdf_path(path)

    def select_pdf_path(self, path: str | Path, *, announce: bool = True) -> bool:
        """Check and keep `path` as the session PDF; a bad file is refused with one clear line."""
        try:
            info = self.workspace.select_pdf(path)
        except (EnsembleError, OSError) as exc:
            self.attachments.show_error(str(exc))
            self.notify(str(exc), title="PDF refused", severity="error", markup=False)
            return False
        self.attachments.show_pdf(info)
        if announce:
            self.notify(f"PDF selected: {display_path(info.path)}", markup=False)
        return True

    def action_clear_pdf(self) -> None:
        try:
            self.workspace.clear_pdf()
        except OSError as exc:
            self.attachments.show_error(f"Cannot save the session: {exc}")
            return
        self.attachments.show_pdf(None)

    @on(AttachmentsPane.PickRequested)
    def _pick_requested(self, event: AttachmentsPane.PickRequested) -> None:
        self.action_select_pdf()

    @on(AttachmentsPane.ClearRequested)
    def _clear_requested(self, event: AttachmentsPane.ClearRequested) -> None:
        self.action_clear_pdf()

    @on(SettingsPane.SettingChanged)
    def _setting_changed(self, event: SettingsPane.SettingChanged) -> None:
        pane = self.query_one(SettingsPane)
        try:
            settings = self.workspace.update_settings(**{event.name: event.value})
        except (ValueError, OSError) as exc:
            errors = getattr(exc, "errors", None)
            reason = errors()[0]["msg"] if callable(errors) else str(exc)
            pane.rejected(f"Not saved: {reason}")
            return
        pane.saved(settings, SETTINGS_FILE)
        if event.name == "models":
            self._refresh_model_panes()

    def action_show_pane(self, pane_id: str) -> None:
        self.show_pane(pane_id)

    def action_cycle_pane(self, step: int) -> None:
        ids = [pane_id for pane_id, _label in PANES]
        current = ids.index(self.tabs.active) if self.tabs.active in ids else 0
        self.show_pane(ids[(current + step) % len(ids)])

    def show_pane(self, pane_id: str) -> None:
        """Switch panes and move the focus into the new one.

        Focus must move too: when the focused widget is hidden, Textual hands focus to a
        neighbour, and TabbedContent re-activates whichever pane that neighbour is in.
        """
        if self.tabs.active == pane_id:
            return
        self.tabs.active = pane_id
        pane = self.tabs.get_pane(pane_id)
        target = (
            self.chat.input
            if pane_id == "chat"
            else next((widget for widget in pane.query("*") if widget.focusable), None)
        )
        if target is not None:
            target.focus(scroll_visible=False)
        else:
            self.set_focus(None)

    def action_show_earlier(self) -> None:
        self.show_pane("chat")
        if not self.chat.log_view.load_earlier():
            self.notify("The whole chat is shown.", markup=False)

    def action_copy_last_reply(self) -> None:
        reply = self.last_reply()
        if reply is None:
            self.notify("No reply to copy yet.", markup=False, severity="warning")
            return
        self.copy_to_clipboard(reply.text)
        self.notify("Last reply copied to the clipboard.", markup=False)

    def action_open_link(self) -> None:
        reply = self.last_reply()
        urls = http_links(reply.text, *reply.sources) if reply else []
        if not urls:
            self.notify("The last reply has no http(s) links.", markup=False)
            return
        self.push_screen(LinkPicker(urls), self._link_chosen)

    def _link_chosen(self, url: str | None) -> None:
        if url and is_http_url(url):
            self.open_url(url)

    def action_open_transcripts(self) -> None:
        folder = self.workspace.paths.chats
        opened = self.folder_opener(folder)
        self.notify(f"{'Opened' if opened else 'Transcripts are in'} {folder}", markup=False, timeout=10)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from palette_commands(self)
