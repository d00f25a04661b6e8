"""The main screen: the chat and the panes around it, its keys, and the collaborators that act on them.

The screen owns what the user works with between dialogs: the panes (made once in compose(),
those behind tabs mounted lazily), the chat's choices for its next turn (`choices`, the mode
Enter sends with and the style), the turn on screen (its TurnController, whose `turn` reactive
is the one record of the run in flight; the buttons and the status line follow it here), and
the action table's keys (ui/bindings.py): each binding runs `do('<id>')`, and action_do calls
the collaborator the table names. The collaborators (ui/turns/, ui/actions/) are each given the
one AppContext. The widgets' messages bubble up to this screen, which hands each to the
collaborator that acts on it (attributes down, messages up). What is app-wide (start-up, the
engine, the palette, quitting, the screens pushed on top) stays with the app (ui/app.py).
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import App, ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header, TabbedContent

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.config import PROVIDERS
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.store.drafts import DraftStore
from ensemble_tui.core.text.sanitize import strip_control
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
from ensemble_tui.ui.drafts import DraftKeeper
from ensemble_tui.ui.panes import pane_id_for_provider, widget_key
from ensemble_tui.ui.panes.attachments import AttachmentsPane
from ensemble_tui.ui.panes.chat import ChatPane
from ensemble_tui.ui.panes.lazy import LazyPane
from ensemble_tui.ui.panes.model import ModelPane
from ensemble_tui.ui.panes.resubmissions import ResubmissionsPane
from ensemble_tui.ui.panes.settings import SettingsPane, missing_keys, no_keys_line
from ensemble_tui.ui.panes.steady_tab_pane import SteadyTabPane
from ensemble_tui.ui.screens.help import app_key_groups, toggle_help
from ensemble_tui.ui.screens.steady_resize import SteadyResize
from ensemble_tui.ui.turns.active_turn import ActiveTurn
from ensemble_tui.ui.turns.choices import TurnChoices
from ensemble_tui.ui.turns.turn_controller import TurnController
from ensemble_tui.ui.turns.turn_keys import TurnKeys
from ensemble_tui.ui.widgets.action_bar import ActionBar
from ensemble_tui.ui.widgets.chat_input import ChatInput
from ensemble_tui.ui.widgets.steady_footer import SteadyFooter

if TYPE_CHECKING:
    from ensemble_tui.core.turn.engine import Engine
    from ensemble_tui.core.workspace import Workspace
    from ensemble_tui.ui.gc_schedule import CollectorPolicy
    from ensemble_tui.ui.notify import ReplyNotifier


class MainScreen(SteadyResize, Screen[None]):
    """The app's own screen, under every dialog. The question box has the focus from the first
    frame (Textual's default screen focuses the first focusable widget, the tabs, and moving it
    after was a focus and a blur that restyled the tabs and their children twice before it)."""

    AUTO_FOCUS = "#chat-input"
    BINDINGS = main_bindings()

    def __init__(
        self,
        app: App[Any],
        workspace: Workspace,
        *,
        keymap: Mapping[str, str],
        engine: Callable[[], Engine],
        notifier: ReplyNotifier,
        collector: CollectorPolicy,
        folder_opener: Callable[[Path], bool],
        demo: bool = False,
        pdf: str | Path | None = None,
        keymap_warning: str | None = None,
    ) -> None:
        """What the app holds for every screen, given explicitly: its keymap, its engine (made on
        first use), how a finished reply is announced, the collector's schedule, how a folder is
        opened. `pdf`: the paper chosen on the command line, selected once the screen is mounted;
        `keymap_warning`: why Configurations/Keymap.json was not used, said once in the chat."""
        super().__init__(id="_default")  # the id Textual gives its default screen
        self.workspace = workspace
        self.keymap = keymap
        self.demo = demo
        self.initial_pdf = pdf
        self._keymap_warning = keymap_warning
        self.chat_id = workspace.session.id  # the chat on screen (set where a chat is opened)
        self.choices = TurnChoices()
        # What the collaborators are given (ui/actions/context.py); the panes join it in compose().
        self.ctx = AppContext(
            app, workspace, keymap, say=self.say, add_notice=self.add_notice, show_pane=self.show_pane
        )
        self.drafts = DraftKeeper(DraftStore(workspace.paths.drafts), app.set_timer, lambda: self.turn_keys.draft_now())
        self.turns = TurnController(
            self.ctx,
            self.choices,
            self.drafts,
            engine=engine,
            notifier=notifier,
            collector=collector,
        )
        self.message_cursor = MessageCursor(self.ctx, self.show_session, busy=lambda: self.turns.running)
        self.turn_keys = TurnKeys(
            self.ctx,
            self.turns,
            self.choices,
            self.drafts,
            chat_id=lambda: self.chat_id,
            chosen=self.mark_actions,
            branch_before_send=self.message_cursor.branch_before_send,
        )
        self.pdf_actions = PdfActions(self.ctx)
        self.pane_switching = PaneSwitching(self.ctx)
        self.preferences = Preferences(self.ctx)
        self.archive_flow = ArchiveFlow(
            self.ctx, self.turns, chat_id=lambda: self.chat_id, show_session=self.show_session
        )
        self.reply_actions = ReplyActions(self.ctx, folder_opener)
        self.budget_actions = BudgetActions(self.ctx)
        self.turn_keys.restore_choices(workspace.session.last_mode, workspace.session.last_style)
        self.footer: SteadyFooter | None = None  # made in compose()

    # ----- layout ----------------------------------------------------------------------------

    @property
    def model_providers(self) -> tuple[str, ...]:
        """Every provider with a model pane: the built-in three, then the added ones."""
        return (*PROVIDERS, *self.workspace.extra_providers)

    def compose(self) -> ComposeResult:
        """The Chat pane is mounted with the screen; every other pane is wrapped in a `LazyPane`
        and mounted when it is first shown (ui/panes/lazy.py).

        Start-up was three times a bare seven-tab app, mostly composing and styling panes
        nobody sees yet; mounting them after the first frame, one per refresh, still cost
        ~90 ms of CPU under the first keys typed, for panes most sessions never open. The screen
        keeps references to those panes and they keep what they are told until they are
        mounted, so nothing has to wait for them.
        """
        workspace = self.workspace
        models = {
            provider: ModelPane(provider, run_key=self._run_key(provider), id=f"model-pane-{widget_key(provider)}")
            for provider in self.model_providers
        }
        panes = MainPanes(
            chat=ChatPane(self.choices.style, id="chat-pane"),
            tabs=TabbedContent(id="panes", initial="chat"),
            attachments=AttachmentsPane(select_key=shown_key("pdf.select", self.keymap), id="attachments-pane"),
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
            self.app.set_keymap(self.keymap)  # before the footer shows any key
        yield Header()
        with panes.tabs:
            with SteadyTabPane("Chat", id="chat"):
                yield panes.chat
            for pane_id, title, _widget in hidden:
                with SteadyTabPane(title, id=pane_id):
                    yield panes.lazy[pane_id]
        self.footer = SteadyFooter(compact=True)
        yield self.footer
        yield self.turns

    def _run_key(self, provider: str) -> str | None:
        """The Shift+F key that runs an added provider alone (None: a built-in, or beyond the keys)."""
        extra = self.workspace.extra_providers
        slot = extra.index(provider) if provider in extra else len(ADDED_PROVIDER_KEYS)
        return shown_key(f"added.{slot + 1}", self.keymap) if slot < len(ADDED_PROVIDER_KEYS) else None

    # The panes, as the tests reach them (ui/actions/context.MainPanes).
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
        """The chat as it was left: its messages, its draft, and what the user should know."""
        self.watch(self.turns, "turn", self._turn_changed, init=False)
        self.chat.show_keys(self.keymap)  # the buttons' tooltips and the claims line's map key
        self.show_session()
        history = self.workspace.session.history  # the last question the chat shows answered:
        answered = next(
            (history[i].text for i in range(len(history) - 2, -1, -1) if history[i + 1].role == "assistant"), None
        )
        self.chat.input.restore(self.drafts.store.load(self.chat_id).for_the_box(answered))
        self._start_up_notices()
        if self.initial_pdf:
            self.pdf_actions.select(self.initial_pdf, announce=False)

    def _start_up_notices(self) -> None:
        """The workspace's warnings and why a provider is unavailable, once, as lines in the chat."""
        lines = [*self.workspace.home_notices, *self.workspace.warnings, *filter(None, [self._keymap_warning])]
        keyless = missing_keys(self.workspace)
        if keyless:
            lines.append(no_keys_line(keyless, demo=self.demo))
        lines += [reason for name, reason in self.workspace.unavailable.items() if name not in keyless]
        for line in dict.fromkeys(lines):  # a broken provider file is both a warning and a reason
            self.add_notice(line, "warning")

    def show_session(self) -> None:
        """Paint every pane from the workspace's session: the one place the UI reads a chat, when
        it opens one (at start, a new chat, a chat reopened from History)."""
        session = self.workspace.session
        if session.id != self.chat_id:
            self.drafts.flush()  # the box's text is kept with the chat it was typed in
        self.chat_id = session.id
        self.app.sub_title = f"chat {session.id}" + ("  ·  demo" if self.demo else "")
        self.turn_keys.restore_choices(session.last_mode, session.last_style)
        start_loading(self.chat.log_view, self.workspace.archive, session)  # claim lines, in a thread
        self.chat.log_view.show(session.history)
        self.resubmissions.log_view.show(session.resubmissions)
        self.chat.status.set_cost(session.cost_usd, simulated=self.workspace.demo)
        self.run_worker(self.budget_actions.refresh(), group="budget", exit_on_error=False)
        for provider in self.model_providers:
            self.model_pane(provider).show(session.last_outputs.get(provider), *model_line(self.workspace, provider))
        self.pdf_actions.show(session.pdf_path)
        self.mark_actions()

    # ----- answering the user ----------------------------------------------------------------

    def add_notice(self, text: str, kind: NoticeKind = "info") -> None:
        self.chat.log_view.add_notice(text, kind)

    def say(self, text: str) -> None:
        """The answer to something the user did: in the status line, or during a run (whose
        progress the status line shows) as a line in the chat. Toasts are for errors."""
        if not self.turns.running:
            self.chat.status.show(text)
        else:
            self.add_notice(text, "info")

    def _turn_changed(self, turn: ActiveTurn | None) -> None:
        """A run started or ended: the status line, the buttons and Cancel follow it."""
        self.chat.status.follow(turn, hint=f"{shown_key('run.cancel', self.keymap)} cancels")
        if turn is None:
            self.turn_keys.turn_ended()
        self.mark_actions()

    def mark_actions(self) -> None:
        """The buttons and the status line show the chat's choices and the run in flight; the
        keys that depend on them are checked again."""
        refused = frozenset(mode for mode in Mode if self.workspace.refusal(mode) is not None)
        turn = self.turns.turn
        running = turn.mode if turn is not None and turn.running else None
        self.chat.actions.mark(self.choices.mode, running, self.choices.style, refused)
        self.chat.status.set_style(self.choices.style.label, self.choices.mode.is_multi)
        self.refresh_bindings()

    # ----- the action table's keys -------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The action table's keys (ui/bindings.py): Cancel only during a run; a Shift+F key only
        with a provider in its slot. Under a dialog the screen's keys are out of play (Textual
        reads the keys from the screen on top), and the footer behind it shows only those that
        act over dialogs."""
        if action != "do" or not parameters:
            return True
        table_action = ACTION_BY_ID.get(str(parameters[0]))
        if table_action is None:
            return True
        if not table_action.over_dialogs and not self.is_active:
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

    def toggle_help(self) -> None:
        """F1: the help screen, made from the action table at the keys as mapped."""
        groups = app_key_groups(self.keymap, self.workspace.extra_providers)
        toggle_help(self.app, groups, shown_key(HELP_ID, self.keymap))

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

    def show_pane(self, pane_id: str) -> None:
        self.pane_switching.show(pane_id)

    def action_scroll_chat(self, where: str) -> None:
        """PgUp/PgDn, Ctrl+Home/End in the question box (ui/widgets/chat_input.py)."""
        self.pane_switching.scroll_chat(where)

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
