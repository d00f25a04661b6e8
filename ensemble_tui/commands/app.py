"""`ensemble-tui` without a subcommand: the app, in the terminal, until the user quits.

Its set-up is the shared context's (commands/context.py): the log file, the demo's simulator
on standby (its server started by the app after its first frame), the providers with their
uploads deferred to that frame too, and no automatic garbage collection while it starts.
"""

from __future__ import annotations

import argparse

from ensemble_tui import bootstrap
from ensemble_tui.commands.context import CommandContext, Needs, add_common, bad_pdf

# The app shows the home's warnings itself; its PDF's uploads (their imports slowed the first
# frame) and its simulator's server wait for its first frame.
NEEDS = Needs(simulator="standby", warnings=False, upload_now=False, owns_process=True, check=bad_pdf)


def add_parser(parser: argparse.ArgumentParser) -> None:
    """The default command's options go on the program's own parser: `ensemble-tui --demo`."""
    add_common(parser)


def run(args: argparse.Namespace, context: CommandContext) -> int:
    from ensemble_tui.ui.hangup import end_on_hangup
    from ensemble_tui.ui.notify import SystemNotifier

    end_on_hangup()  # a closed terminal ends the app, even one stuck writing to it (ui/hangup.py)
    standby = context.standby
    app = bootstrap.build_app(
        context.workspace,
        pdf=context.pdf,
        demo=context.demo,
        notifier=SystemNotifier(),
        after_start_up=standby.start if standby else None,
    )
    app.run()
    return app.return_code or 0
