"""Row 6: the PDF goes up once per provider, whatever the number of calls.

Ten `All` turns (five proposers, and every turn has a resynthesis round, so 12 calls a turn)
through the real adapters against an in-process simulator (timing does not matter here, and the
simulator's records are what is counted). Counted: uploads per provider (for Gemini, the
resumable upload's start request) and the PDF bytes that travelled, as uploads or as inline file
parts. DeepSeek is configured to get the PDF as extracted text, OpenRouter as an inline file
part (OpenRouter has no file store, so it carries the PDF in every call by design). The naive
baseline sends the PDF with every call to every provider that takes it as a file.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from bench.homes import make_home, shared_pdf
from bench.simproc import BenchSimulator
from bench.sizes import FULL, Sizes
from bench.table import Row, error_row, ratio, verdict
from ensemble_tui.bootstrap import attach_providers
from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import ReplyCommitted
from ensemble_tui.core.workspace import Workspace

FILE_APIS = ("openai", "anthropic", "gemini")  # the simulator's names of the built-in providers


async def session_of_turns(home: Path, env: dict[str, str], turns: int) -> None:
    workspace = Workspace.open(home)
    attach_providers(workspace, env)
    engine = Engine(workspace)
    try:
        for number in range(1, turns + 1):
            events = [e async for e in engine.run(Mode.ALL, f"[lat=0] Question {number}: and then?")]
            if not any(isinstance(event, ReplyCommitted) for event in events):
                raise RuntimeError(f"turn {number} gave no final reply")
    finally:
        for adapter in workspace.providers.values():
            await adapter.aclose()  # type: ignore[attr-defined]


def run(root: Path, sizes: Sizes = FULL) -> list[Row]:
    turns = sizes.upload_turns
    home = make_home(root, "uploads")
    pdf_size = shared_pdf(root).stat().st_size
    try:
        with BenchSimulator(latency_s=0.0) as sim:
            asyncio.run(session_of_turns(home, sim.env, turns))
            scripts = {name: sim.script(name) for name in (*FILE_APIS, "deepseek", "openrouter")}
            calls = {name: len(script.calls) for name, script in scripts.items()}
            uploads = {name: len(script.uploads) for name, script in scripts.items()}
            upload_bytes = {
                name: sum(r.raw_size for r in script.requests if r.endpoint in ("upload", "upload_chunk"))
                for name, script in scripts.items()
            }
            inline_bytes = {
                name: sum(f.size for call in script.calls for f in call.inline_files)
                for name, script in scripts.items()
            }
    except Exception as exc:
        return [error_row("6.a", f"uploads over a {turns}-turn All session", exc)]
    file_apis_once = all(uploads[name] == 1 for name in FILE_APIS)
    sent = {name: upload_bytes[name] + inline_bytes[name] for name in scripts}
    naive = {name: pdf_size * calls[name] for name in (*FILE_APIS, "openrouter")}
    built_in_sent = sum(sent[name] for name in FILE_APIS)
    built_in_naive = sum(naive[name] for name in FILE_APIS)
    mb = 1e6
    return [
        Row(
            "6.a",
            f"uploads over {turns} All turns: OpenAI, Claude, Gemini",
            "/".join(str(uploads[name]) for name in FILE_APIS),
            "calls " + "/".join(str(calls[name]) for name in FILE_APIS),
            "-",
            "1 each",
            verdict(file_apis_once),
            f"PDF {pdf_size / mb:.2f} MB; upload bytes (multipart/resumable, headers excluded) "
            + ", ".join(f"{name} {upload_bytes[name] / mb:.2f} MB" for name in FILE_APIS),
        ),
        Row(
            "6.b",
            f"PDF bytes sent over {turns} All turns: the 3 built-ins",
            f"{built_in_sent / mb:.2f} MB",
            f"naive {built_in_naive / mb:.1f} MB",
            ratio(built_in_sent, built_in_naive),
            "one PDF each",
            verdict(all(sent[name] <= pdf_size * 1.05 for name in FILE_APIS)),
            "naive: the PDF with every call",
        ),
        Row(
            "6.c",
            f"PDF bytes sent over {turns} All turns: OpenRouter, DeepSeek",
            f"{sent['openrouter'] / mb:.1f} MB, {sent['deepseek'] / mb:.1f} MB",
            f"naive {naive['openrouter'] / mb:.1f} MB",
            ratio(sent["openrouter"], naive["openrouter"]),
            "-",
            "info",
            f"OpenRouter has no file store: the PDF rides in each of its {calls['openrouter']} calls as a file "
            f"part ({uploads['openrouter']} uploads); DeepSeek gets extracted text ({uploads['deepseek']} uploads)",
        ),
    ]
