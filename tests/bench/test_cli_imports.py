"""`ensemble-tui --version` and `--help` answer at once (bench row 5.b, goal <= 0.3 s): building
the parser imports no command's work. Importing `ask`'s engine and events, `eval`'s arms (the
engine again, and pydantic) and asyncio put it at 0.36-0.43 s; the time is the bench's to judge,
what is imported is checked here, in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys

from ensemble_tui import __version__

# What only running a command needs (the engine, the models read from disk, the event loop, the UI).
HEAVY = (
    "asyncio",
    "pydantic",
    "textual",
    "ensemble_tui.core.turn.engine",
    "ensemble_tui.core.chat.session",
    "ensemble_tui.eval.arms",
)


ARGVS = (["--version"], ["--help"], ["ask", "--help"], ["eval", "--help"])


def test_the_parser_answers_without_importing_a_command() -> None:
    code = (
        "import contextlib, io, json, sys\nfrom ensemble_tui.cli import main\nshown = []\n"
        f"for argv in {list(ARGVS)!r}:\n"
        "    with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "        try:\n            main(argv)\n        except SystemExit:\n            pass\n"
        "    shown.append(out.getvalue())\n"
        f"print(json.dumps([shown, [name for name in {list(HEAVY)!r} if name in sys.modules]]))"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    shown, imported = json.loads(completed.stdout.strip().splitlines()[-1])
    assert shown[0] == f"ensemble-tui {__version__}\n"
    assert all("usage: ensemble-tui" in text for text in shown[1:])  # each --help printed its usage
    assert imported == []
