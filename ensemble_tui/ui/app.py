"""The Textual app: start-up, the workspace and the engine, around its main screen.

The main screen (ui/main_screen.py) holds the chat, the panes, their keys and the turn on
screen. The app holds what is app-wide: start-up (the first frame, then the work left for
after it), the engine (made on first use), the keymap loaded once, the theme, the palette's
commands, quitting (Ctrl+Q, a signal, Textual's own Quit) and the screens pushed on top of
the main screen (a report's exports). The keys that also act over a dialog (Help, Quit,
Math/LaTeX) are bound here too; what they do is the main screen's action table's. The app
and its screen are the only places that call the core; panes only render and post messages
(attributes down, messages up).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.screen import Screen

from ensemble_tui.core.workspace import Workspace
from ensemble_tui.ui import layout, warm_up
from ensemble_tui.ui.actions.context import AppContext
from ensemble_tui.ui.bindings import app_wide_bindings
from ensemble_tui.ui.commands import Palette, palette_commands
from ensemble_tui.ui.desktop import open_folder
from ensemble_tui.ui.gc_schedule import CollectorPolicy
from ensemble_tui.ui.key_order import KeysInOrder
from ensemble_tui.ui.keymap import KEYMAP_FILE, load_keymap
from ensemble_tui.ui.main_screen import MainScreen
from ensemble_tui.ui.notify import RecordingNotifier, ReplyNotifier

if TYPE_CHECKING:
    from ensemble_tui.core.turn.engine import Engine
    from ensemble_tui.ui.screens.report import ReportScreen

log = logging.getLogger(__name__)

# The work after start-up waits for the footer's keys for at most this many refreshes.
FOOTER_WAIT_REFRESHES = 20


class EnsembleApp(KeysInOrder):
    CSS_PATH = "app.tcss"
    TITLE = "ensemble-tui"
    HORIZONTAL_BREAKPOINTS = layout.HORIZONTAL_BREAKPOINTS
    VERTICAL_BREAKPOINTS = layout.VERTICAL_BREAKPOINTS
    BINDINGS = app_wide_bindings()

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
        # Configurations/Keymap.json, read once: Textual's keymap remaps the bindings with it, and
        # the palette, the help screen and the buttons name the keys through it (ui/bindings.py).
        self.keymap, keymap_warning = load_keymap(workspace.paths.configurations / KEYMAP_FILE)
        # The garbage collector's schedule (ui/gc_schedule.py); left alone unless one is given.
        self.collector = collector or CollectorPolicy(enabled=False)
        self._after_start_up = after_start_up
        self.started_up = False  # the first complete frame is drawn and the work after it started
        self.main = MainScreen(
            self,
            workspace,
            keymap=self.keymap,
            engine=lambda: self.engine,
            notifier=self.notifier,
            collector=self.collector,
            folder_opener=folder_opener,
            demo=demo,
            pdf=pdf,
            keymap_warning=keymap_warning,
        )

    @property
    def ctx(self) -> AppContext:
        """What the main screen's collaborators are given (ui/actions/context.py)."""
        return self.main.ctx

    @property
    def engine(self) -> Engine:
        """The engine, made on first use: the engine and the deliberation styles are imported
        then (~30 ms), not before the app's first frame."""
        if self._engine is None:
            from ensemble_tui.core.turn.engine import Engine

            self._engine = Engine(self.workspace)
        return self._engine

    def get_default_screen(self) -> Screen:
        # With its size classes from the start (layout.py), as Textual would set them after the first layout.
        self.main.add_class(*layout.size_classes(*self.size).split(), update=False)
        return self.main

    def on_mount(self) -> None:
        chosen = self.workspace.settings.theme
        if chosen and chosen != self.theme and chosen in self.available_themes:
            self.theme = chosen
        self.theme_changed_signal.subscribe(self, self.main.preferences.theme_changed)
        loop = asyncio.get_running_loop()
        with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):  # not the main thread
            for signum in (signal.SIGTERM, signal.SIGHUP):  # a confirmed quit: the run's cost saved, its question kept
                loop.add_signal_handler(signum, lambda: self.run_worker(self.main.turn_keys.quit_confirmed(True)))
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self, refreshes_left: int = FOOTER_WAIT_REFRESHES) -> None:
        """Start the work left for after start-up once the first complete frame is drawn: the
        footer has its keys (Textual's Footer composes them after the first bindings signal)
        and one refresh more has drawn them. At most `refreshes_left` refreshes, in case the
        footer never gets keys."""
        footer = self.main.footer
        if refreshes_left > 0 and footer is not None:
            self.call_after_refresh(self._after_first_frame, refreshes_left - 1 if not footer.children else 0)
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
                self.main.add_notice(f"Start-up did not finish: {exc}. Restart ensemble-tui if turns fail.", "error")
        self.workspace.prepare_uploads()  # after the first frame, which their imports slowed
        self.run_worker(self._clean_up_uploads(), group="uploads", exit_on_error=False)
        self.run_worker(
            warm_up.warm_up_providers(
                self.workspace.providers, self.collector, lambda: self.main.turns.turn is not None
            ),
            group="warm-up",
            exit_on_error=False,
        )
        self.collector.freeze_now()  # freeze what lives as long as the app (ui/gc_schedule.py)

    async def _clean_up_uploads(self) -> None:
        """Delete PDFs no chat used for a while, in the background (core/upload_cleanup.py)."""
        from ensemble_tui.core.upload_cleanup import clean_up_uploads

        for line in await clean_up_uploads(self.workspace):
            self.main.add_notice(line, "warning")

    def on_unmount(self) -> None:
        self.collector.release()  # full collections back on (even if quitting mid-turn), nothing frozen

    def action_do(self, action_id: str) -> None:
        """A key bound here as well, so that it acts over a dialog (Help, Quit, Math/LaTeX): the
        main screen's action table does it."""
        self.main.action_do(action_id)

    def action_quit(self) -> None:
        """Textual's own quit (its palette's "Quit"): during a run, it asks first, as Ctrl+Q does."""
        self.main.turn_keys.quit()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        main = self.main
        palette = Palette(
            run=main.action_do,
            keymap=self.keymap,
            workspace=self.workspace,
            main_screen=main,
            turn_keys=main.turn_keys,
            pane_switching=main.pane_switching,
            archive_flow=main.archive_flow,
            reply_actions=main.reply_actions,
        )
        yield from palette_commands(palette, screen)

    def on_report_screen_export_requested(self, message: ReportScreen.ExportRequested) -> None:
        """The run report, pushed over the main screen, asks for an export (its `e`, the palette)."""
        message.stop()
        self.main.archive_flow.export_requested(message)
