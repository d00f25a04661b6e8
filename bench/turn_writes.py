"""`python -m bench.turn_writes`: the SQLite transactions and fsynced files of one turn.

One single-model turn (a scripted provider, no network) after a warm-up turn, counting the
archive's COMMITs (its connection's trace) and every os.fsync (the files it synced). Issue 14
asked for one write path per turn: it was 3 transactions and 4 fsynced files (Session.json
twice, the transcript, Logs/*.jsonl); it is 1 and 1 (the transcript).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.provider import CallRequest, Reply, Usage
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.workspace import Workspace


class AnswersAtOnce:
    async def complete(self, request: CallRequest) -> Reply:
        return Reply("An answer.", Usage(input_tokens=10, output_tokens=5))

    def prepare(self, pdf: Path) -> None:
        return None


async def count() -> tuple[int, list[str]]:
    home = Path(tempfile.mkdtemp(prefix="ensemble-bench-")) / "home"
    workspace = Workspace.open(home)
    workspace.attach_providers({"ChatGPT": AnswersAtOnce()}, {})  # type: ignore[dict-item]
    engine = Engine(workspace)
    async for _ in engine.run(Mode.CHATGPT, "a warm-up question"):
        pass
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    statements: list[str] = []
    workspace.archive._open().set_trace_callback(statements.append)  # the archive's one connection
    os.fsync = fsync  # type: ignore[assignment]
    try:
        async for _ in engine.run(Mode.CHATGPT, "the measured question"):
            pass
    finally:
        os.fsync = real_fsync  # type: ignore[assignment]
        workspace.close()
    commits = sum(1 for statement in statements if statement.strip().upper().startswith("COMMIT"))
    return commits, [Path(name).name for name in synced]


def main() -> None:
    commits, files = asyncio.run(count())
    print(f"one turn: {commits} SQLite transaction(s), {len(files)} fsynced file(s): {', '.join(files)}")


if __name__ == "__main__":
    main()
