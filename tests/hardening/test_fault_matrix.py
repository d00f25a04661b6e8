"""The fault matrix: every provider x role x fault, one turn through the engine, the real adapters
and SDKs, and the loopback simulator.

Each case first runs one good turn in the same set-up, then the turn with the fault, and checks
what the specification promises: the exact number of attempts the failing role made (counted at
the simulator and in the turn log), one concise line naming the provider, the remaining
proposals used (proposer), the input left open without a reply (single, aggregator), the run
finishing (proposer, reviewer), no traceback logged, and Session.json and the transcript parsed
back from disk holding the good turn. `conftest.py` prints the outcomes as a table.

Roles: *single* asks the provider alone; *proposer* runs All with another aggregator;
*aggregator* makes the provider the aggregator of a panel of the other two (it plays no other
role); *reviewer* runs All in the critique-and-vote style, where the provider's critique fails
after it proposed. "Refused" points the provider at a closed loopback port where it plays only
the failing role; a reviewer must first propose over the same base URL, so there the simulator
closes the connection without a reply instead (`refused~reset` in the test id).

No PDF is attached: upload faults are covered by tests/providers/test_contract.py.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
import pytest_asyncio

from ensemble_tui.core.chat.modes import Mode, RunMode, Style
from ensemble_tui.core.chat.session import SessionData
from ensemble_tui.core.provider import CallRequest, Message, Provider
from ensemble_tui.core.store.archive import RunArchive
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import (
    EngineEvent,
    Notice,
    ProposalReceived,
    ProposerFailed,
    ReplyCommitted,
    ReviewReceived,
    RunFailed,
)
from ensemble_tui.core.turn.retry import RetryPolicy
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator import Fault, ScriptedReply, Simulator, closed_port_url
from ensemble_tui.simulator.script import RecordedRequest, ScriptItem
from tests.conftest import SleepRecorder
from tests.core.helpers import restored_session

# One event loop for the module, so the simulator and the adapters (whose SDK clients belong to
# the loop they first ran in) are made once, not once per case, like an app asking many turns.
pytestmark = pytest.mark.asyncio(loop_scope="module")

# The engine's per-call timeout. A loopback call takes ~5 ms, but a loaded machine can stall the
# event loop for longer than a short timeout, so only the timeout column, where every hanging
# attempt costs the timeout, uses a short one.
TIMEOUT_S = 5.0
HANG_TIMEOUT_S = 0.25
HANG_S = 2.0  # how long a hanging reply stays silent (well past HANG_TIMEOUT_S)
RETRY_AFTER_S = 2.0
SPARE = 8  # faults queued for the failing role: more than any role may try, so extra attempts show

PROVIDERS = ("ChatGPT", "Claude", "Gemini")
SIM_NAMES = {"ChatGPT": "openai", "Claude": "anthropic", "Gemini": "gemini"}
KEY_VARS = {"ChatGPT": "OPENAI_API_KEY", "Claude": "ANTHROPIC_API_KEY", "Gemini": "GEMINI_API_KEY"}
URL_VARS = {"ChatGPT": "OPENAI_BASE_URL", "Claude": "ANTHROPIC_BASE_URL", "Gemini": "GOOGLE_GEMINI_BASE_URL"}
SINGLE_MODES = {"ChatGPT": Mode.CHATGPT, "Claude": Mode.CLAUDE, "Gemini": Mode.GEMINI}
AGGREGATOR_FOR = {"ChatGPT": "Claude", "Claude": "Gemini", "Gemini": "ChatGPT"}  # proposer role
ROLES = ("single", "proposer", "aggregator", "reviewer")

AGGREGATION = "# Proposed Reply 1:"  # in every aggregator request (the packet)
CRITIQUE = "Critique every answer"  # from the shipped Prompts/Deliberation/CritiquePrompt.txt
FIRST_QUESTION = "What does Lemma 2 say?"
SECOND_QUESTION = "And how is it proved?"


@dataclass(frozen=True)
class MatrixFault:
    """One column: what the simulator plays, and what the specification expects of it."""

    item: ScriptItem | None  # None: a refused connection (a closed port)
    fragment: str  # part of the one-line message
    retried: bool = True
    overloaded: bool = False  # the aggregator gets its longer retries

    def expected_attempts(self, role: str) -> int:
        if not self.retried:
            return 1
        if role == "aggregator":
            return 4 if self.overloaded else 2
        return 6


FAULTS: dict[str, MatrixFault] = {
    "timeout": MatrixFault(Fault("hang", hang_s=HANG_S), "no answer within"),
    "refused": MatrixFault(None, "connection failed"),
    "dropped": MatrixFault(Fault("drop"), "connection failed"),
    "500": MatrixFault(Fault("server_error"), "server error (500)"),
    "503": MatrixFault(Fault("unavailable"), "server error (503)"),
    "429": MatrixFault(Fault("rate_limit", retry_after=RETRY_AFTER_S), "rate limited (429)"),
    # Anthropic's 529 overloaded_error; OpenAI and Gemini say "overloaded" with a 503
    "529": MatrixFault(Fault("overloaded"), "overloaded (", overloaded=True),
    "bad JSON": MatrixFault(Fault("malformed"), "unreadable reply (invalid JSON)"),
    "empty": MatrixFault(ScriptedReply(""), "returned an empty reply"),
    "refusal": MatrixFault(Fault("refusal"), "declined to answer", retried=False),
    "filter": MatrixFault(Fault("blocked"), "declined to answer", retried=False),
    "retired": MatrixFault(
        Fault("unknown_model"), "is not served (retired?) - pick another in Settings", retried=False
    ),
    "bad key": MatrixFault(Fault("bad_key"), "API key rejected", retried=False),
}
RESET_NOTE = "reviewer x refused: a connection closed without a reply (the reviewer first proposes over the same URL)"


def cases() -> Iterator[object]:
    for provider in PROVIDERS:
        for role in ROLES:
            for fault in FAULTS:
                emulated = role == "reviewer" and fault == "refused"
                fault_id = "refused~reset" if emulated else fault.replace(" ", "-")
                yield pytest.param(
                    provider,
                    role,
                    fault,
                    id=f"{provider}-{role}-{fault_id}",
                    marks=pytest.mark.fault_matrix(provider, role, fault, note=RESET_NOTE if emulated else None),
                )


@dataclass(frozen=True)
class Panel:
    """A multi-model mode of any providers: lets the aggregator's provider stay out of the
    proposals, which no built-in mode allows."""

    providers: tuple[str, ...]
    is_multi: bool = True

    @property
    def value(self) -> str:
        return "-".join(provider.lower() for provider in self.providers)

    @property
    def label(self) -> str:
        return " & ".join(self.providers)


def critique_json() -> str:
    """A valid critique of the two answers every reviewer of three is shown."""
    scores = {"correctness": 8, "completeness": 7, "clarity": 7, "helpfulness": 7, "safety": 10}
    critiques = [
        {"label": label, "critique": "fine", **scores, "overall": overall} for label, overall in (("A", 8), ("B", 6))
    ]
    return json.dumps({"critiques": critiques, "ranking": ["A", "B"], "confidence": 0.7})


def answering(label: str) -> Callable[[RecordedRequest], ScriptedReply]:
    """The default replies of one provider, by the role its request is for."""

    def answer(request: RecordedRequest) -> ScriptedReply:
        if CRITIQUE in request.text:
            return ScriptedReply(critique_json())
        if AGGREGATION in request.text:
            return ScriptedReply(f"FINAL REPLY:\nFinal by {label}.")
        return ScriptedReply(f"Proposal from {label}.")

    return answer


def role_filter(role: str) -> tuple[str | None, str | None]:
    """(match, unless) that point a queued fault at the failing role's calls only."""
    return {
        "single": (None, None),
        "proposer": (None, AGGREGATION),
        "aggregator": (AGGREGATION, None),
        "reviewer": (CRITIQUE, None),
    }[role]


def in_role(request: RecordedRequest, role: str) -> bool:
    match, unless = role_filter(role)
    return (match is None or match in request.text) and (unless is None or unless not in request.text)


def set_up(role: str, provider: str, workspace: Workspace) -> tuple[RunMode | Panel, Style]:
    """The mode and style that give `provider` the role, and the aggregator setting."""
    others = tuple(name for name in PROVIDERS if name != provider)
    if role == "single":
        return SINGLE_MODES[provider], Style.AGGREGATE
    if role == "proposer":
        workspace.update_settings(aggregator=AGGREGATOR_FOR[provider])
        return Mode.ALL, Style.AGGREGATE
    if role == "aggregator":
        workspace.update_settings(aggregator=provider)
        return Panel(others), Style.AGGREGATE
    return Mode.ALL, Style.VOTE


async def run(engine: Engine, mode: RunMode | Panel, text: str, style: Style) -> list[EngineEvent]:
    return [event async for event in engine.run(mode, text, style)]  # type: ignore[arg-type] - Panel is RunMode-shaped


def of_type(events: list[EngineEvent], kind: type) -> list:
    return [event for event in events if isinstance(event, kind)]


def last_turn_calls(home: Path, session_id: str) -> list[dict[str, object]]:
    """Every attempt of the last turn, from the run archive as a restart reads it."""
    archive = RunArchive(home / "History.sqlite3")
    try:
        return archive.turns(session_id)[-1].record.to_json()["calls"]
    finally:
        archive.close()


def saved_session(home: Path) -> SessionData:
    """The session as a restart finds it."""
    return restored_session(home)


@pytest.fixture(scope="module")
def matrix_sim() -> Iterator[Simulator]:
    """One simulator for the whole matrix (each case resets it)."""
    with Simulator() as simulator:
        yield simulator


@dataclass(frozen=True)
class Adapters:
    reachable: dict[str, Provider]  # pointed at the simulator
    refused: dict[str, Provider]  # pointed at a closed loopback port


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def adapters(matrix_sim: Simulator, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Adapters]:
    """The real adapters, built by the registry from the simulator's variables."""
    workspace = Workspace.open(tmp_path_factory.mktemp("adapters-home"))
    reachable, unavailable = build_providers(workspace, env=matrix_sim.env)
    assert unavailable == {}
    closed = {URL_VARS[label]: closed_port_url() for label in PROVIDERS}
    refused, _ = build_providers(workspace, env={**matrix_sim.env, **closed})
    for adapter in reachable.values():  # SDK imports and client set-up happen here, not in a timed call
        await adapter.complete(CallRequest("warm-up", "", (Message("user", "Hello?"),), web_search=False))
    yield Adapters(reachable, refused)
    for adapter in (*reachable.values(), *refused.values()):
        await adapter.aclose()


@pytest.fixture
def sim(matrix_sim: Simulator) -> Iterator[Simulator]:
    matrix_sim.reset()
    for label, name in SIM_NAMES.items():
        matrix_sim.scripts[name].default = answering(label)
    yield matrix_sim
    matrix_sim.reset()


@pytest.mark.parametrize(("provider", "role", "fault"), list(cases()))
async def test_fault_matrix(
    provider: str,
    role: str,
    fault: str,
    sim: Simulator,
    adapters: Adapters,
    home: Path,
    workspace: Workspace,
    sleeps: SleepRecorder,
    caplog: pytest.LogCaptureFixture,
) -> None:
    spec = FAULTS[fault]
    workspace.attach_providers(adapters.reachable, {})
    workspace.settings.claim_map = False  # each fault is for a role's next call; the map's own: tests/claims
    timeout_s = HANG_TIMEOUT_S if fault == "timeout" else TIMEOUT_S
    engine = Engine(workspace, retry=RetryPolicy(), rng=random.Random(5), sleep=sleeps, timeout_s=timeout_s)
    mode, style = set_up(role, provider, workspace)
    good = await run(engine, mode, FIRST_QUESTION, style)  # must survive the failing turn, on disk
    (first_final,) = of_type(good, ReplyCommitted)

    sleeps.delays.clear()
    for name in PROVIDERS:
        sim.scripts[SIM_NAMES[name]].clear()
    closed_port = spec.item is None and role != "reviewer"
    if closed_port:
        workspace.attach_providers({**adapters.reachable, provider: adapters.refused[provider]}, {})
    else:
        match, unless = role_filter(role)
        item = spec.item if spec.item is not None else Fault("reset")
        sim.scripts[SIM_NAMES[provider]].push(*[replace(item, match=match, unless=unless) for _ in range(SPARE)])
    caplog.clear()
    with caplog.at_level(logging.INFO):
        events = await run(engine, mode, SECOND_QUESTION, style)

    session = saved_session(home)
    check_attempts(spec, provider, role, sim, home, session.id, sleeps, closed_port=closed_port)
    message = failure_line(events, role, provider)
    check_one_line(message, spec, provider, fault, sim)
    assert not [record for record in caplog.records if record.exc_info], "a traceback was logged"
    check_saved_turns(session, home, role, events, first_final.text)
    check_role_outcome(session, role, provider, events, sim, message)


def check_attempts(
    spec: MatrixFault,
    provider: str,
    role: str,
    sim: Simulator,
    home: Path,
    session_id: str,
    sleeps: SleepRecorder,
    *,
    closed_port: bool,
) -> None:
    """The exact attempts of the failing role, at the simulator and in the turn log (the only
    witness of a closed port), and one no-op sleep before each retry.

    Any other call's failed attempt (a loopback call missing the timeout column's short timeout
    on a loaded machine) is retried too, and counted, so it cannot make the case flaky.
    """
    expected = spec.expected_attempts(role)
    reaching = 0 if closed_port else expected  # a closed port is refused before the simulator
    assert recorded_attempts(sim, provider, role, reaching) == reaching
    calls = last_turn_calls(home, session_id)
    assert len([call for call in calls if (call["provider"], call["role"]) == (provider, role)]) == expected
    others_retried = [
        call for call in calls if (call["provider"], call["role"]) != (provider, role) and call["outcome"] != "ok"
    ]
    assert len(sleeps.delays) == expected - 1 + len(others_retried)
    if getattr(spec.item, "retry_after", None):  # Retry-After honoured
        assert sum(delay >= RETRY_AFTER_S for delay in sleeps.delays) >= expected - 1


def recorded_attempts(sim: Simulator, provider: str, role: str, expected: int) -> int:
    """Calls of `provider` in `role` the simulator recorded. A server thread may record a hanging
    request after the client has given up on it, so wait a moment for the count to arrive."""
    deadline = time.monotonic() + 2.0
    while True:
        count = len([call for call in sim.scripts[SIM_NAMES[provider]].calls if in_role(call, role)])
        if count >= expected or time.monotonic() > deadline:
            return count
        time.sleep(0.01)


def failure_line(events: list[EngineEvent], role: str, provider: str) -> str:
    """The one line the user sees for the failed role (and that there is exactly one)."""
    if role in ("single", "aggregator"):
        (failed,) = of_type(events, RunFailed)
        return failed.message
    if role == "proposer":
        (failed,) = of_type(events, ProposerFailed)
        assert failed.provider == provider
        return failed.message
    prefix = f"{provider} gave no critique: "
    (notice,) = [event.message for event in of_type(events, Notice) if event.message.startswith(prefix)]
    return notice.removeprefix(prefix)


def check_one_line(message: str, spec: MatrixFault, provider: str, fault: str, sim: Simulator) -> None:
    assert message.startswith(f"{provider}: "), message
    assert spec.fragment in message, message
    assert "\n" not in message and len(message) <= 200, message
    assert "Unexpected error" not in message and "Traceback" not in message, message
    if fault == "bad key":
        assert KEY_VARS[provider] in message and sim.env[KEY_VARS[provider]] not in message


def check_saved_turns(session: SessionData, home: Path, role: str, events: list[EngineEvent], first_reply: str) -> None:
    """Session.json and the transcript, read back from disk: the good turn, then the failing
    turn left open (single, aggregator) or finished (proposer, reviewer)."""
    history = [(entry.role, entry.text) for entry in session.history]
    assert history[:2] == [("user", FIRST_QUESTION), ("assistant", first_reply)]
    transcript = (home / "Chats" / f"{session.id}.md").read_text(encoding="utf-8")
    assert FIRST_QUESTION in transcript and first_reply.strip() in transcript
    if role in ("single", "aggregator"):
        assert not of_type(events, ReplyCommitted)
        assert history[2:] == [("user", SECOND_QUESTION)]
        assert transcript.rstrip().endswith(f"## You\n\n{SECOND_QUESTION}")
    else:
        assert not of_type(events, RunFailed)
        (final,) = of_type(events, ReplyCommitted)
        assert history[2:] == [("user", SECOND_QUESTION), ("assistant", final.text)]
        assert final.text.strip() in transcript.split(SECOND_QUESTION, 1)[1]


def check_role_outcome(
    session: SessionData, role: str, provider: str, events: list[EngineEvent], sim: Simulator, message: str
) -> None:
    others = tuple(name for name in PROVIDERS if name != provider)
    if role == "aggregator":  # the proposals stay in the model panes
        kept = {name: (session.last_outputs[name].query, session.last_outputs[name].text) for name in others}
        assert kept == {name: (SECOND_QUESTION, f"Proposal from {name}.") for name in others}
    if role == "proposer":  # the remaining proposals reach the aggregator, the error does not
        aggregator = AGGREGATOR_FOR[provider]
        calls = sim.scripts[SIM_NAMES[aggregator]].calls
        (packet,) = [call.last_user_text for call in calls if AGGREGATION in call.text]
        assert packet.count("# Proposed Reply ") == 2
        # The two proposals, their authors' names redacted (issue 34 §4), and nothing of the error.
        assert packet.count("Proposal from [a model].") == 2 == packet.count("Proposal from ")
        assert message not in packet
        (final,) = of_type(events, ReplyCommitted)
        assert final.text == f"Final by {aggregator}."
    if role == "reviewer":  # its critique is left out; the others' count
        assert {event.provider for event in of_type(events, ProposalReceived)} == set(PROVIDERS)
        assert {event.reviewer for event in of_type(events, ReviewReceived)} == set(others)
