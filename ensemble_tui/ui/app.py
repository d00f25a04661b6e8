"""The Textual app: the panes around one Workspace, with the engine driven from a worker.

This module holds the layout, start-up and opening a chat. What the keys and the palette do is
the action table's (ui/bindings.py): each binding runs `do('<id>')`, and action_do calls the
collaborator the table names. The collaborators are the turn (ui/turns/: TurnController, whose
`turn` is the one record of the run in flight, and TurnKeys), the PDF, the panes, the settings,
the archive (reports, history, exports) and the replies (ui/actions/, each given the one
AppContext). The widgets' messages are handed to them here. The app is the only place that
calls the core; panes only render and post messages (attributes down, messages up).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import operator
import signal
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header, TabbedContent, TabPane

from ensemble_tui.core.chat.modes import Mode, RunMode, Style
from ensemble_tui.core.config import PROVIDERS
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.store.drafts import DraftStore
from ensemble_tui.core.text.sanitize import strip_control
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.ui import layout, warm_up
from ensemble_tui.ui.actions.archive_flow import ArchiveFlow
from ensemble_tui.ui.actions.budget_actions import BudgetActions
from ensemble_tui.ui.actions.context import AppContext, MainPanes, model_line
from ensemble_tui.ui.actions.message_cursor import MessageCursor
from ensemble_tui.ui.actions.pane_switching import PaneSwitching
from ensemble_tui.ui.actions.pdf_actions import PdfActions
from ensemble_tui.ui.actions.preferences import Preferences
from ensemble_tui.ui.actions.reply_actions import ReplyActions
from ensemble_tui.ui.bindings import ACTION_BY_ID, ADDED_PROVIDER_KEYS, HELP_ID, main_bindings, shown_key
from ensemble_tui.ui.chat_log.chat_view import ChatEntry, MessageLog, NoticeKind
from ensemble_tui.ui.chat_log.claim_lines import start_loading
from ensemble_tui.ui.commands import Palette, palette_commands
from ensemble_tui.ui.desktop import open_folder
from ensemble_tui.ui.drafts import DraftKeeper
from ensemble_tui.ui.gc_schedule import CollectorPolicy
from ensemble_tui.ui.keymap import KEYMAP_FILE, load_keymap
from ensemble_tui.ui.notify import RecordingNotifier, ReplyNotifier
from ensemble_tui.ui.panes import pane_id_for_provider, widget_key
from ensemble_tui.ui.panes.attachments import AttachmentsPane
from ensemble_tui.ui.panes.chat import ChatPane
from ensemble_tui.ui.panes.lazy import LazyPane
from ensemble_tui.ui.panes.model import ModelPane
from ensemble_tui.ui.panes.resubmissions import ResubmissionsPane
from ensemble_tui.ui.panes.settings import SettingsPane, key_hint, missing_keys, no_keys_line
from ensemble_tui.ui.screens.help import app_key_groups, toggle_help
from ensemble_tui.ui.turns.active_turn import ActiveTurn
from ensemble_tui.ui.turns.turn_controller import TurnController
from ensemble_tui.ui.turns.turn_keys import TurnKeys
from ensemble_tui.ui.widgets.action_bar import ActionBar
from ensemble_tui.ui.widgets.chat_input import ChatInput
from ensemble_tui.ui.widgets.steady_footer import SteadyFooter

if TYPE_CHECKING:
    from ensemble_tui.core.turn.engine import Engine
    from ensemble_tui.ui.screens.report import ReportScreen

log = logging.getLogger(__name__)

# The work after start-up waits for the footer's keys for at most this many refreshes.
FOOTER_WAIT_REFRESHES = 20


class MainScreen(Screen[None]):
    """The app's own screen: the question box has the focus from the first frame. (Textual's
    default screen focuses the first focusable widget, the tabs, and on_mount then moved it:
    a focus and a blur that restyled the tabs and their children twice before the first frame.)"""

    AUTO_FOCUS = "#chat-input"


class EnsembleApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "ensemble-tui"
    HORIZONTAL_BREAKPOINTS = layout.HORIZONTAL_BREAKPOINTS
    VERTICAL_BREAKPOINTS = layout.VERTICAL_BREAKPOINTS
    BINDINGS = main_bindings()

    def __init__(
        self,
        workspace: Workspace,
        *,
        engine: Engine | None = None,
        pdf: str | Path | None = None,
        notifier: ReplyNotifier | None = None,
        folder_opener: Callable[[Path], bool] = open_folder,
        demo: bool = False,
        collector: CollectorPolicy | None = None,
        after_start_up: Callable[[], None] | None = None,
    ) -> None:
        """`after_start_up` is called once the first frame is drawn and the hidden panes are
        mounted: work the app needs soon but not on screen (the demo simulator's server)."""
        super().__init__()
        self.workspace = workspace
        self._engine = engine
        self.notifier: ReplyNotifier = notifier or RecordingNotifier()
        self.folder_opener = folder_opener
        self.demo = demo
        self.turns = TurnController(self)
        self.turn_keys = TurnKeys(self)
        # What the collaborators are given (ui/actions/context.py); the panes join it in compose().
        self.ctx = AppContext(self, workspace, say=self.say, add_notice=self.add_notice, show_pane=self.show_pane)
        self.pdf_actions = PdfActions(self.ctx)
        self.pane_switching = PaneSwitching(self.ctx)
        self.preferences = Preferences(self.ctx)
        self.archive_flow = ArchiveFlow(
            self.ctx, self.turns, chat_id=lambda: self.chat_id, show_session=self.show_session
        )
        self.reply_actions = ReplyActions(self.ctx, folder_opener)
        self.message_cursor = MessageCursor(self.ctx, self.show_session, busy=lambda: self.turns.running)
        self.budget_actions = BudgetActions(self.ctx)
        self.drafts = DraftKeeper(DraftStore(workspace.paths.drafts), self, self.turn_keys.draft_now)
        self.default_mode: RunMode = Mode.ALL
        self.style = Style.AGGREGATE
        self.turn_keys.restore_choices(workspace.session.last_mode, workspace.session.last_style)
        self._initial_pdf = pdf
        self.chat_id = workspace.session.id  # the chat on screen (set where a chat is opened)
        self._footer: SteadyFooter | None = None  # made in compose()
        # Configurations/Keymap.json, read once: Textual's keymap remaps the bindings with it, and
        # the palette, the help screen and the buttons name the keys through it (ui/bindings.py).
        self.keymap, self._keymap_warning = load_keymap(workspace.paths.configurations / KEYMAP_FILE)
        # The garbage collector's schedule (ui/gc_schedule.py); left alone unless one is given.
        self.collector = collector or CollectorPolicy(enabled=False)
        self._after_start_up = after_start_up
        self.started_up = False  # the first complete frame is drawn and the work after it started

    @property
    def engine(self) -> Engine:
        """The engine, made on first use: the engine and the deliberation styles are imported
        then (~30 ms), not before the app's first frame."""
        if self._engine is None:
            from ensemble_tui.core.turn.engine import Engine

            self._engine = Engine(self.workspace)
        return self._engine

    # ----- layout ----------------------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        return MainScreen(id="_default")  # the id Textual gives its default screen

    @property
    def model_providers(self) -> tuple[str, ...]:
        """Every provider with a model pane: the built-in three, then the added ones."""
        return (*PROVIDERS, *self.workspace.extra_providers)

    def compose(self) -> ComposeResult:
        """The Chat pane is mounted with the app; every other pane is wrapped in a `LazyPane`
        and mounted when it is first shown (ui/panes/lazy.py).

        Start-up was three times a bare seven-tab app, mostly composing and styling panes
        nobody sees yet; mounting them after the first frame, one per refresh, still cost
        ~90 ms of CPU under the first keys typed, for panes most sessions never open. The app
        keeps references to those panes and they keep what they are told until they are
        mounted, so nothing has to wait for them.
        """
        workspace = self.workspace
        models = {
            provider: ModelPane(provider, run_key=self._run_key(provider), id=f"model-pane-{widget_key(provider)}")
            for provider in self.model_providers
        }
        panes = MainPanes(
            chat=ChatPane(self.style, id="chat-pane"),
            tabs=TabbedContent(id="panes", initial="chat"),
            attachments=AttachmentsPane(id="attachments-pane"),
            resubmissions=ResubmissionsPane(id="resubmissions-pane"),
            settings=SettingsPane(workspace.configs, workspace.settings, workspace.unavailable, id="settings-pane"),
            models=models,
        )
        # Content(), not a str, for a model pane's title: TabPane parses a str title as
        # markup, and provider labels come from files.
        hidden: list[tuple[str, Content | str, Widget]] = [
            *((pane_id_for_provider(p), Content(strip_control(p)), pane) for p, pane in models.items()),
            ("attachments", "Attachments", panes.attachments),
            ("resubmissions", "Resubmissions", panes.resubmissions),
            ("settings", "Settings", panes.settings),
        ]
        panes.lazy = {pane_id: LazyPane(widget) for pane_id, _title, widget in hidden}
        self.ctx.panes = panes
        if self.keymap:
            self.set_keymap(self.keymap)  # before the footer shows any key
        yield Header()
        with panes.tabs:
            with TabPane("Chat", id="chat"):
                yield panes.chat
            for pane_id, title, _widget in hidden:
                with TabPane(title, id=pane_id):
                    yield panes.lazy[pane_id]
        self._footer = SteadyFooter(compact=True)
        yield self._footer
        yield self.turns

    def _run_key(self, provider: str) -> str | None:
        """The Shift+F key that runs an added provider alone (None: a built-in, or beyond the keys)."""
        extra = self.workspace.extra_providers
        slot = extra.index(provider) if provider in extra else len(ADDED_PROVIDER_KEYS)
        return shown_key(f"added.{slot + 1}", self.keymap) if slot < len(ADDED_PROVIDER_KEYS) else None

    # The panes, as the turn controller and the tests reach them (ui/actions/context.MainPanes).
    @property
    def chat(self) -> ChatPane:
        return self.ctx.view.chat

    @property
    def tabs(self) -> TabbedContent:
        return self.ctx.view.tabs

    def model_pane(self, provider: str) -> ModelPane:
        return self.ctx.view.model_pane(provider)

    @property
    def attachments(self) -> AttachmentsPane:
        return self.ctx.view.attachments

    @property
    def resubmissions(self) -> ResubmissionsPane:
        return self.ctx.view.resubmissions

    @property
    def settings_pane(self) -> SettingsPane:
        return self.ctx.view.settings

    @property
    def lazy_panes(self) -> Mapping[str, LazyPane]:
        return self.ctx.view.lazy

    def on_mount(self) -> None:
        chosen = self.workspace.settings.theme
        if chosen and chosen != self.theme and chosen in self.available_themes:
            self.theme = chosen
        self.theme_changed_signal.subscribe(self, self.preferences.theme_changed)
        self.watch(self.turns, "turn", self._turn_changed, init=False)
        loop = asyncio.get_running_loop()
        with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):  # not the main thread
            for signum in (signal.SIGTERM, signal.SIGHUP):  # a confirmed quit: the run's cost saved, its question kept
                loop.add_signal_handler(signum, lambda: self.run_worker(self.turn_keys.quit_confirmed(True)))
        self.chat.actions.show_keys(self.keymap)
        self.show_session()
        history = self.workspace.session.history  # the last question the chat shows answered:
        answered = next(
            (history[i].text for i in range(len(history) - 2, -1, -1) if history[i + 1].role == "assistant"), None
        )
        self.chat.input.restore(self.drafts.store.load(self.chat_id).for_the_box(answered))
        lines = [*self.workspace.warnings, *filter(None, [self._keymap_warning])]
        keyless = missing_keys(self.workspace)
        if keyless:
            lines.append(no_keys_line(keyless, demo=self.demo))
        for name, reason in self.workspace.unavailable.items():
            config = self.workspace.configs.get(name)
            if name not in keyless:
                lines.append(key_hint(config, reason) if config else reason)
        for line in dict.fromkeys(lines):  # a broken provider file is both a warning and a reason
            self.add_notice(line, "warning")
        if self._initial_pdf:
            self.pdf_actions.select(self._initial_pdf, announce=False)
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self, refreshes_left: int = FOOTER_WAIT_REFRESHES) -> None:
        """Start the work left for after start-up once the first complete frame is drawn: the
        footer has its keys (Textual's Footer composes them after the first bindings signal)
        and one refresh more has drawn them. At most `refreshes_left` refreshes, in case the
        footer never gets keys."""
        if refreshes_left > 0 and self._footer is not None:
            self.call_after_refresh(self._after_first_frame, refreshes_left - 1 if not self._footer.children else 0)
            return
        self._start_up_over()

    def _start_up_over(self) -> None:
        self.started_up = True
        after, self._after_start_up = self._after_start_up, None
        if after is not None:
            try:
                after()
            except Exception as exc:  # the app stays usable; the turns that need it will say so
                log.exception("after start-up")
                self.add_notice(f"Start-up did not finish: {exc}. Restart ensemble-tui if turns fail.", "error")
        self.workspace.prepare_uploads()  # after the first frame, which their imports slowed
        self.run_worker(self._clean_up_uploads(), group="uploads", exit_on_error=False)
        self.run_worker(warm_up.warm_up_providers(self), group="warm-up", exit_on_error=False)
        self.collector.freeze_now()  # freeze what lives as long as the app (ui/gc_schedule.py)

    async def _clean_up_uploads(self) -> None:
        """Delete PDFs no chat used for a while, in the background (core/upload_cleanup.py)."""
        from ensemble_tui.core.upload_cleanup import clean_up_uploads

        for line in await clean_up_uploads(self.workspace):
            self.add_notice(line, "warning")

    def on_unmount(self) -> None:
        self.collector.release()  # full collections back on (even if quitting mid-turn), nothing frozen

    def show_session(self) -> None:
        """Paint every pane from the workspace's session: the one place the UI reads a chat, when
        it opens one (at start, a new chat, a chat reopened from History)."""
        session = self.workspace.session
        if session.id != self.chat_id:
            self.drafts.flush()  # the box's text is kept with the chat it was typed in
        self.chat_id = session.id
        self.sub_title = f"chat {session.id}" + ("  ·  demo" if self.demo else "")
        self.turn_keys.restore_choices(session.last_mode, session.last_style)
        start_loading(self.chat.log_view, self.workspace.archive, session)  # claim lines, in a thread
        self.chat.log_view.show(session.history)
        self.resubmissions.log_view.show(session.resubmissions)
        self.chat.status.set_cost(session.cost_usd, simulated=self.workspace.demo)
        self.run_worker(self.budget_actions.refresh(), group="budget", exit_on_error=False)
        for provider in self.model_providers:
            self.model_pane(provider).show(session.last_outputs.get(provider), *self.model_line(provider))
        self.pdf_actions.show(session.pdf_path)
        self.mark_actions()

    def model_line(self, provider: str) -> tuple[str, str | None]:
        return model_line(self.workspace, provider)

    # ----- helpers ---------------------------------------------------------------------------

    def add_notice(self, text: str, kind: NoticeKind = "info") -> None:
        self.chat.log_view.add_notice(text, kind)

    def say(self, text: str) -> None:
        """The answer to something the user did: in the status line, or during a run (whose
        progress the status line shows) as a line in the chat. Toasts are for errors."""
        if not self.turns.running:
            self.chat.status.show(text)
        else:
            self.add_notice(text, "info")

    @property
    def turn(self) -> ActiveTurn | None:
        """The run in flight, if any (the TurnController's record of it)."""
        return self.turns.turn

    def _turn_changed(self, turn: ActiveTurn | None) -> None:
        """A run started or ended: the status line, the buttons and Cancel follow it."""
        self.chat.status.follow(turn, hint=f"{self.cancel_key} cancels")
        if turn is None:
            self.turn_keys.turn_ended()
        self.mark_actions()

    @property
    def notifications_on(self) -> bool:
        return self.workspace.settings.notifications

    def mark_actions(self) -> None:
        refused = frozenset(mode for mode in Mode if self.workspace.refusal(mode) is not None)
        running = self.turn.mode if self.turn is not None and self.turn.running else None
        self.chat.actions.mark(self.default_mode, running, self.style, refused)
        self.chat.status.set_style(self.style.label, self.default_mode.is_multi)
        self.refresh_bindings()

    @property
    def cancel_key(self) -> str:
        """The key that cancels a run, as the status line names it (Keymap.json may remap it)."""
        return shown_key("run.cancel", self.keymap)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The action table's keys (ui/bindings.py): most are off while a dialog is open (they act
        on the main screen); Cancel only during a run; a Shift+F key only with a provider in its slot."""
        if action != "do" or not parameters:
            return True
        table_action = ACTION_BY_ID.get(str(parameters[0]))
        if table_action is None:
            return True
        if not table_action.over_dialogs and len(self.screen_stack) > 1:
            return False
        if table_action.needs_turn:
            return self.turns.running
        if table_action.needs_added_slot:
            slot = table_action.args[0]
            return isinstance(slot, int) and slot < len(self.workspace.extra_providers)
        return True

    def action_do(self, action_id: str) -> None:
        """Run an action of the table (a key or the palette): the collaborator it names does the work."""
        action = ACTION_BY_ID[action_id]
        target = operator.attrgetter(action.does)(self)
        if action.after_typed:  # the question typed before the key goes with it
            self.chat.input.after_typed(target, *action.args)
        elif inspect.iscoroutinefunction(target):
            self.call_next(target, *action.args)
        else:
            target(*action.args)

    def branch_before_send(self, text: str) -> None:
        """Before `text` is sent: an edited question makes its branch first (the message cursor)."""
        self.message_cursor.branch_before_send(text)

    def toggle_help(self) -> None:
        """F1: the help screen, made from the action table at the keys as mapped."""
        groups = app_key_groups(self.keymap, self.workspace.extra_providers)
        toggle_help(self, groups, shown_key(HELP_ID, self.keymap))

    def action_quit(self) -> None:
        """Textual's own quit (its palette's "Quit"): during a run, it asks first, as Ctrl+Q does."""
        self.turn_keys.quit()

    # ----- other actions ---------------------------------------------------------------------

    async def new_chat(self) -> None:
        text = await self.turns.stop()
        try:
            self.workspace.new_chat()
        except (EnsembleError, OSError) as exc:
            self.add_notice(f"Cannot start a new chat: {exc}", "error")
            return
        self.show_session()
        self.chat.input.restore(text)
        self.chat.status.show("New chat. The previous transcript is in Chats/.")
        self.show_pane("chat")
        self.chat.input.focus()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        palette = Palette(
            run=self.action_do,
            keymap=self.keymap,
            workspace=self.workspace,
            main_screen=self.screen_stack[0],
            turn_keys=self.turn_keys,
            pane_switching=self.pane_switching,
            archive_flow=self.archive_flow,
            reply_actions=self.reply_actions,
        )
        yield from palette_commands(palette, screen)

    # ----- the widgets' messages, each handed to the collaborator that acts on it ---------------

    @on(ChatInput.Submitted)
    def _question_submitted(self, event: ChatInput.Submitted) -> None:
        event.stop()
        self.turn_keys.send_default()

    @on(ActionBar.ModeChosen)
    def _mode_chosen(self, event: ActionBar.ModeChosen) -> None:
        event.stop()
        self.turn_keys.choose_mode(event.mode)
        self.chat.input.focus()

    @on(ActionBar.StyleChosen)
    def _style_chosen(self, event: ActionBar.StyleChosen) -> None:
        event.stop()
        self.turn_keys.choose_style(event.style)
        self.chat.input.focus()  # so Enter sends rather than reopening the list of styles

    @on(ChatInput.Changed, "#chat-input")
    def _question_edited(self) -> None:
        self.drafts.changed()

    @on(AttachmentsPane.PickRequested)
    def _pick_pdf(self) -> None:
        self.pdf_actions.choose()

    @on(AttachmentsPane.ClearRequested)
    def _clear_pdf(self) -> None:
        self.pdf_actions.clear()

    def show_pane(self, pane_id: str) -> None:
        self.pane_switching.show(pane_id)

    def action_scroll_chat(self, where: str) -> None:
        self.pane_switching.scroll_chat(where)

    @on(TabbedContent.TabActivated, "#panes")
    def _pane_shown(self, event: TabbedContent.TabActivated) -> None:
        """A click on a tab shows its pane: mounted and focused as a key would (pane_switching)."""
        if event.pane.id is not None:
            self.pane_switching.shown(event.pane.id)

    @on(SettingsPane.SettingChanged)
    def _setting_changed(self, event: SettingsPane.SettingChanged) -> None:
        self.preferences.setting_changed(event)

    @on(SettingsPane.ReleaseRequested)
    def _release_requested(self) -> None:
        self.run_worker(self.budget_actions.release(), group="budget", exit_on_error=False)

    def on_report_screen_export_requested(self, message: ReportScreen.ExportRequested) -> None:
        message.stop()
        self.archive_flow.export_requested(message)

    @on(ChatInput.CursorRequested)
    def _cursor_requested(self, event: ChatInput.CursorRequested) -> None:
        event.stop()
        self.message_cursor.start()

    @on(MessageLog.CursorAction)
    def _cursor_action(self, event: MessageLog.CursorAction) -> None:
        event.stop()
        self.message_cursor.act(event.action, event.index, event.message)

    @on(MessageLog.CursorLeft)
    def _cursor_left(self, event: MessageLog.CursorLeft) -> None:
        event.stop()
        self.message_cursor.leave()

    @on(ChatEntry.CodeBlockClicked)
    def _code_block_clicked(self, event: ChatEntry.CodeBlockClicked) -> None:
        self.reply_actions.copy_code_block(event.message, event.index)
