"""The chat's contract: exactly which messages every model receives, in every situation.

Whole turns run through the engine, the real adapters (openai, anthropic, google-genai and
Chat Completions, as DeepSeek) and the loopback simulator; each test decodes what every model
call carried from the request bodies the simulator recorded (`received`) and compares it, role
by role and text by text, with the contract:

- every call is the caller's system prompt, then the chat so far (user inputs and final replies
  only, alternating), then this turn's one user message: the question, and for a deliberation
  call the task and the anonymous answers after it;
- a redo sends the chat without the reply it replaces; a cancelled turn leaves nothing behind,
  a failed one only its question, which is sent again only when it is retried;
- the chat is the same after a restart and after another process added turns to it.

The prompts are the test's own, one short line each, so every message reads whole. They leave
out what depends on which proposer answered first (the council's ranking table, the debaters'
view of each other), which the styles' own tests cover. Every proposer answers a question with
the same words, so the shuffled packets read the same whatever the order.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.core.provider import Provider
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import ProposalReceived, ReplyCommitted, RunFailed, TurnRolledBack
from ensemble_tui.core.turn.retry import RetryPolicy
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.pdf_text import pdf_as_text
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator import Fault, RecordedRequest, ScriptedReply, Simulator
from tests.providers.provider_support import FILE_PART, Message, received
from tests.support import SleepRecorder

SEP = "\n\n---\n\n"  # between the parts of one user message (core/turn/runner.py's user_message)
ANSWER = "Answer the question."  # every proposer's system prompt (also a reviewer's and the chairman's)
AGGREGATE = "Aggregate the proposals."
PROMPTS = {
    **{f"ProposerSystemPrompts/{name}.txt": ANSWER for name in ("ChatGPT", "Claude", "Gemini", "Default")},
    **{f"SynthesizeFromProposalsPrompts/{name}.txt": "Revise." for name in ("ChatGPT", "Claude", "Gemini", "Default")},
    "AggregatorSystemPrompt.txt": AGGREGATE,
    "AggregatorUserPrompt.txt": "Decide.",
    "AggregatorForceReplyUserPrompt.txt": "Decide now.",
    "Deliberation/RankingPrompt.txt": "Rank the answers ({labels}).\n\n{answers}",
    "Deliberation/RankingRepairPrompt.txt": "Rank again ({labels}).",
    "Deliberation/CritiquePrompt.txt": "Critique the answers ({labels}).\n\n{answers}",
    "Deliberation/CritiqueRepairPrompt.txt": "Critique again ({labels}).",
    "Deliberation/ChairmanPrompt.txt": "Chair the panel.\n\n{answers}",
    "Deliberation/DebateRoundPrompt.txt": "Debate round {round} of {rounds} as Agent {agent}.\n\n"
    "Your answer:\n{own_answer}\n\nTo you:\n{messages}",
    "Deliberation/DebateRepairPrompt.txt": "Debate again ({peers}).",
}
LABELS = {"openai": "ChatGPT", "anthropic": "Claude", "gemini": "Gemini", "deepseek": "DeepSeek"}
EVERYONE = tuple(LABELS.values())
CHAIR = "Claude"  # the aggregator, also the council's chairman
STYLES = tuple(Style)
NAMES = ("ChatGPT", "Claude", "Gemini", "DeepSeek", "OpenAI", "Anthropic", "Google")


# Auto asks its cheapest strong model twice before anyone else: its own contract, first turn,
# escalation and reuse included, is in tests/claims/test_auto_turns.py.
PLAIN_MODES = [mode for mode in Mode if mode is not Mode.AUTO]


# ----- what the models answer (the same words from every model, so packets read alike) -----------


def answer(question: str) -> str:
    return f"An answer to {question}"


def panel_reply(question: str) -> str:
    return f"The panel's reply to {question}"


def chaired(question: str) -> str:
    return f"The chair's reply to {question}"


def debated(question: str) -> str:
    return f"A debated answer to {question}"


def final_reply(mode: Mode, style: Style, question: str) -> str:
    """The reply a turn leaves in the chat."""
    if not mode.is_multi or style is Style.VOTE:
        return answer(question)  # a vote's winner is an answer as written
    return {Style.AGGREGATE: panel_reply, Style.COUNCIL: chaired, Style.DEBATE: debated}[style](question)


def _labels(task: str) -> list[str]:
    found = re.search(r"\(([A-Z](?:, [A-Z])*)\)", task)
    return found.group(1).split(", ") if found else []


TASKS = ("Decide", "Chair", "Debate round", "Rank", "Critique")  # the test's prompts' first words


def respond(request: RecordedRequest) -> ScriptedReply:
    """Every model plays every role, in the format its parser expects, told by the task's first
    words. The question is the part before the task (after the paper, sent as text to DeepSeek)."""
    parts = request.last_user_text.split(SEP)
    task = parts[-1] if len(parts) > 1 and parts[-1].startswith(TASKS) else ""
    question = parts[-2] if task else parts[-1]
    if task.startswith("Decide"):
        text = "FINAL REPLY:\n" + panel_reply(question)
    elif task.startswith("Chair"):
        text = chaired(question)
    elif task.startswith("Debate round"):
        text = f"# ANSWER\n{debated(question)}\n\n# RATIONALE\nNothing to change.\n\n# DISCUSSION\n"
    elif task.startswith("Rank"):
        text = "FINAL RANKING:\n" + "\n".join(f"{n}. {label}" for n, label in enumerate(_labels(task), start=1))
    elif task.startswith("Critique"):
        scores = dict.fromkeys(("correctness", "completeness", "clarity", "helpfulness", "safety", "overall"), 7)
        critiques = [{"label": label, "critique": "Sound.", **scores} for label in _labels(task)]
        text = json.dumps({"critiques": critiques, "ranking": _labels(task), "confidence": 0.5})
    else:
        text = answer(question)
    return ScriptedReply(text)


# ----- the contract: what each model receives in a turn -----------------------------------------

Call = list[Message]
Chat = list[Message]


def said(*texts: str) -> Chat:
    """A chat as alternating user inputs and replies."""
    return [("user" if index % 2 == 0 else "assistant", text) for index, text in enumerate(texts)]


def call(system: str, history: Chat, question: str, task: str = "") -> Call:
    return [("system", system), *history, ("user", question + (SEP + task if task else ""))]


def lettered(heading: str, labels: list[str], text: str) -> str:
    return "\n\n".join(f"# {heading} {label}\n{text}" for label in labels)


def letters(count: int) -> list[str]:
    return [chr(ord("A") + index) for index in range(count)]


def participants(mode: Mode) -> tuple[str, ...]:
    return EVERYONE if mode is Mode.ALL else mode.providers


def expected_turn(
    mode: Mode, style: Style, history: Chat, question: str, agents: dict[str, str] | None = None
) -> dict[str, list[Call]]:
    """Every model's calls in one turn, in the order each model receives them.

    `agents`: a debate's letter for each debater (fixed by the order the first answers came in).
    """
    calls: dict[str, list[Call]] = {name: [] for name in EVERYONE}
    answering = participants(mode)
    for name in answering:
        calls[name].append(call(ANSWER, history, question))
    if not mode.is_multi:
        return calls
    count = len(answering)
    if style is Style.AGGREGATE:
        packet = "\n\n".join(f"# Proposed Reply {n}:\n{answer(question)}" for n in range(1, count + 1))
        calls[CHAIR].append(call(AGGREGATE, history, question, "Decide.\n\n" + packet))
    elif style in (Style.COUNCIL, Style.VOTE):
        kind = "Rank" if style is Style.COUNCIL else "Critique"
        others = letters(count - 1)
        task = f"{kind} the answers ({', '.join(others)}).\n\n" + lettered("Answer", others, answer(question))
        for name in answering:
            calls[name].append(call(ANSWER, history, question, task))
        if style is Style.COUNCIL:
            panel = "Chair the panel.\n\n" + lettered("Answer", letters(count), answer(question))
            calls[CHAIR].append(call(ANSWER, history, question, panel))
    else:
        assert agents is not None and sorted(agents.values()) == letters(count)
        for name in answering:
            for number, own in ((2, answer(question)), (3, debated(question))):
                task = f"Debate round {number} of 3 as Agent {agents[name]}.\n\nYour answer:\n{own}\n\nTo you:\n(none)"
                calls[name].append(call(ANSWER, history, question, task))
            peers = [letter for letter in letters(count) if letter != agents[name]]
            ranking = f"Rank the answers ({', '.join(peers)}).\n\n" + lettered("Answer", peers, debated(question))
            calls[name].append(call(ANSWER, history, question, ranking))
    return calls


def agents_of(calls: dict[str, list[Call]]) -> dict[str, str]:
    """Each debater's letter, as its first debate round told it."""
    found = {}
    for name, made in calls.items():
        for messages in made:
            if match := re.search(r"Debate round 2 of \d+ as Agent ([A-Z])\.", messages[-1][1]):
                found[name] = match.group(1)
    return found


# ----- a chat in a home, through the real adapters -----------------------------------------------


@dataclass
class Turn:
    events: list[object]
    calls: dict[str, list[Call]]  # model label -> each call's messages, in the order sent

    @property
    def replies(self) -> list[str]:
        return [event.message.text for event in self.events if isinstance(event, ReplyCommitted)]


@dataclass
class ChatApp:
    """One ensemble-tui process's view of a chat: a Workspace on the home, with its engine."""

    workspace: Workspace
    engine: Engine
    sim: Simulator
    own_adapters: bool = False  # built for it (closed with it), not the module's

    def scripts(self) -> dict[str, list[RecordedRequest]]:
        return {label: self.sim.script(name).calls for name, label in LABELS.items()}

    async def turn(
        self, mode: Mode, text: str, style: Style = Style.AGGREGATE, stop: Callable[[object], bool] | None = None
    ) -> Turn:
        """Run a turn (stopped at the first event `stop` accepts); what it sent, by model."""
        before = {label: len(calls) for label, calls in self.scripts().items()}
        events: list[object] = []
        async for event in self.engine.run(mode, text, style):
            events.append(event)
            if stop is not None and stop(event):
                self.engine.stop()
        sent = {label: [received(c) for c in calls[before[label] :]] for label, calls in self.scripts().items()}
        return Turn(events, sent)

    def chat(self) -> list[str]:
        return [message.text for message in self.workspace.session.history]


def prepare_home(home: Path) -> None:
    """A home with the test's prompts, DeepSeek enabled (it joins All) and Claude aggregating."""
    workspace = Workspace.open(home)
    for relative, text in PROMPTS.items():
        (workspace.paths.prompts / relative).write_text(text + "\n", encoding="utf-8")
    config_file = workspace.paths.configurations / "DeepSeek.json"
    config = json.loads(config_file.read_text(encoding="utf-8"))
    config_file.write_text(json.dumps({**config, "enabled": True}), encoding="utf-8")
    # The claim map's own request (anonymous, history included) is asserted in tests/claims.
    workspace.update_settings(aggregator=CHAIR, debate_rounds=3, claim_map=False)


@dataclass
class Apps:
    """ensemble-tui processes on one home. They share the module's adapters (as one process's
    chats do) unless `open(own_adapters=True)`, as a restart or a second process has."""

    home: Path
    sim: Simulator
    shared: dict[str, Provider]
    opened: list[ChatApp] = field(default_factory=list)

    def open(self, *, own_adapters: bool = False) -> ChatApp:
        """Start ensemble-tui on the home (again): a new Workspace reading what is saved."""
        workspace = Workspace.open(self.home)
        providers = self.shared
        if own_adapters:
            providers, unavailable = build_providers(workspace, env=self.sim.env)
            assert unavailable == {}
        assert set(providers) == set(EVERYONE)
        workspace.attach_providers(providers, {})
        engine = Engine(workspace, retry=RetryPolicy(), rng=random.Random(5), sleep=SleepRecorder(), timeout_s=5)
        app = ChatApp(workspace, engine, self.sim, own_adapters)
        self.opened.append(app)
        return app

    async def close(self, app: ChatApp) -> None:
        await app.engine.cancel()
        if app.own_adapters:
            await close_adapters(app.workspace.providers)
        self.opened.remove(app)


async def close_adapters(providers: dict[str, Provider]) -> None:
    for adapter in providers.values():
        await adapter.aclose()  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Simulator, dict[str, Provider]]]:
    """One simulator and one set of adapters for the module: an adapter's first call builds its
    client (a few tenths of a second), which every test would otherwise pay again."""
    root = tmp_path_factory.mktemp("contract")
    with pytest.MonkeyPatch.context() as patch, Simulator() as simulator:
        patch.setenv("XDG_DATA_HOME", str(root / "xdg-data"))
        prepare_home(root / "home")
        providers, unavailable = build_providers(Workspace.open(root / "home"), env=simulator.env)
        assert unavailable == {}
        yield simulator, providers
        asyncio.run(close_adapters(providers))


@pytest.fixture
def sim(served: tuple[Simulator, dict[str, Provider]]) -> Simulator:
    """The module's simulator, fresh for the test, every model answering through `respond`."""
    simulator = served[0]
    simulator.reset()
    for name in LABELS:
        simulator.script(name).default = respond
    return simulator


@pytest.fixture
async def apps(home: Path, sim: Simulator, served: tuple[Simulator, dict[str, Provider]]) -> AsyncIterator[Apps]:
    prepare_home(home)
    made = Apps(home, sim, served[1])
    yield made
    for app in list(made.opened):
        await made.close(app)


@pytest.fixture
def app(apps: Apps) -> ChatApp:
    return apps.open()


def assert_anonymous(calls: dict[str, list[Call]]) -> None:
    """No model or maker is named in anything a model reads."""
    texts = [text for made in calls.values() for messages in made for _, text in messages]
    assert [name for name in NAMES if any(name in text for text in texts)] == []


# ----- the first and the second turn ---------------------------------------------------------------


@pytest.mark.parametrize("mode", PLAIN_MODES, ids=lambda mode: mode.value)
async def test_the_first_and_the_second_turn(app: ChatApp, mode: Mode) -> None:
    first = await app.turn(mode, "Q1?")
    assert first.calls == expected_turn(mode, Style.AGGREGATE, [], "Q1?")
    reply = final_reply(mode, Style.AGGREGATE, "Q1?")
    assert first.replies == [reply]

    second = await app.turn(mode, "Q2?")

    assert second.calls == expected_turn(mode, Style.AGGREGATE, said("Q1?", reply), "Q2?")
    assert app.chat() == ["Q1?", reply, "Q2?", final_reply(mode, Style.AGGREGATE, "Q2?")]


def with_paper(calls: dict[str, list[Call]], pdf: Path) -> dict[str, list[Call]]:
    """The calls with the paper in each one's first user message, where each API takes it: a
    file part ahead of the text, or (DeepSeek) the extracted text ahead of it."""

    def first_user(name: str, messages: Call) -> Call:
        index = next(i for i, (role, _) in enumerate(messages) if role == "user")
        text = messages[index][1]
        paper = f"{pdf_as_text(pdf)}{SEP}{text}" if name == "DeepSeek" else f"{FILE_PART}\n{text}"
        return [*messages[:index], ("user", paper), *messages[index + 1 :]]

    return {name: [first_user(name, messages) for messages in made] for name, made in calls.items()}


async def test_the_paper_goes_with_the_first_question_of_every_call(apps: Apps, sample_pdf: Path) -> None:
    app = apps.open(own_adapters=True)  # its uploads are kept in this home
    app.workspace.select_pdf(sample_pdf)
    first = await app.turn(Mode.ALL, "Q1?")
    assert first.calls == with_paper(expected_turn(Mode.ALL, Style.AGGREGATE, [], "Q1?"), sample_pdf)

    second = await app.turn(Mode.ALL, "Q2?")

    chat = said("Q1?", panel_reply("Q1?"))
    assert second.calls == with_paper(expected_turn(Mode.ALL, Style.AGGREGATE, chat, "Q2?"), sample_pdf)


# ----- redo: the chat without the reply it replaces ----------------------------------------------


@pytest.mark.parametrize("style", STYLES, ids=lambda style: style.value)  # a single model ignores it
@pytest.mark.parametrize("mode", PLAIN_MODES, ids=lambda mode: mode.value)
async def test_a_redo_sends_the_chat_without_the_reply_it_replaces(app: ChatApp, mode: Mode, style: Style) -> None:
    await app.turn(Mode.ALL, "Q1?")
    await app.turn(Mode.ALL, "Q2?")
    withdrawn = panel_reply("Q2?")

    redo = await app.turn(mode, "", style)

    before = said("Q1?", panel_reply("Q1?"))
    assert redo.calls == expected_turn(mode, style, before, "Q2?", agents_of(redo.calls))
    assert_anonymous(redo.calls)
    assert app.chat() == ["Q1?", panel_reply("Q1?"), "Q2?", final_reply(mode, style, "Q2?")]
    assert withdrawn not in [text for made in redo.calls.values() for messages in made for _, text in messages]


async def test_a_redo_of_the_first_turn_sends_its_question_alone(app: ChatApp) -> None:
    await app.turn(Mode.ALL, "Q1?")
    redo = await app.turn(Mode.CLAUDE, "")
    assert redo.calls == expected_turn(Mode.CLAUDE, Style.AGGREGATE, [], "Q1?")
    assert app.chat() == ["Q1?", answer("Q1?")]


async def test_the_turn_after_a_redo_follows_the_new_reply(app: ChatApp) -> None:
    await app.turn(Mode.ALL, "Q1?")
    await app.turn(Mode.CLAUDE, "")
    after = await app.turn(Mode.ALL, "Q2?")
    assert after.calls == expected_turn(Mode.ALL, Style.AGGREGATE, said("Q1?", answer("Q1?")), "Q2?")


# ----- after a council, a vote and a debate: final replies only, anonymous ---------------------


@pytest.mark.parametrize("style", [Style.COUNCIL, Style.VOTE, Style.DEBATE], ids=lambda style: style.value)
async def test_a_turn_after_a_deliberation_reads_only_its_final_reply(app: ChatApp, style: Style) -> None:
    first = await app.turn(Mode.ALL, "Q1?", style)
    assert first.calls == expected_turn(Mode.ALL, style, [], "Q1?", agents_of(first.calls))
    reply = final_reply(Mode.ALL, style, "Q1?")
    assert first.replies == [reply]

    after = await app.turn(Mode.ALL, "Q2?", style)

    assert after.calls == expected_turn(Mode.ALL, style, said("Q1?", reply), "Q2?", agents_of(after.calls))
    assert_anonymous(after.calls)  # neither the vote line nor the medals reached the chat


# ----- after a cancelled turn and after a failed turn ----------------------------------------------


def three_proposals(seen: list[str]) -> Callable[[object], bool]:
    """Stop once three proposers have answered (the fourth, ChatGPT, hangs)."""

    def stop(event: object) -> bool:
        if isinstance(event, ProposalReceived):
            seen.append(event.provider)
        return len(seen) == 3

    return stop


@pytest.mark.parametrize("cancelled", ["Q2?", ""], ids=["a new question", "a redo"])
async def test_a_turn_after_a_cancelled_turn(app: ChatApp, sim: Simulator, cancelled: str) -> None:
    await app.turn(Mode.ALL, "Q1?")
    sim.openai.push(Fault("hang", hang_s=5))
    stopped = await app.turn(Mode.ALL, cancelled, stop=three_proposals([]))
    assert any(isinstance(event, TurnRolledBack) for event in stopped.events)
    assert app.chat() == ["Q1?", panel_reply("Q1?")]  # nothing of it kept; a withdrawn reply back

    after = await app.turn(Mode.ALL, "Q3?")

    assert after.calls == expected_turn(Mode.ALL, Style.AGGREGATE, said("Q1?", panel_reply("Q1?")), "Q3?")


@pytest.mark.parametrize(
    ("failed", "next_text", "asked"),
    [("Q2?", "Q3?", "Q3?"), ("Q2?", "", "Q2?"), ("", "", "Q1?")],
    ids=["then a new question", "then its retry", "a failed redo, then its retry"],
)
async def test_a_turn_after_a_failed_turn(app: ChatApp, sim: Simulator, failed: str, next_text: str, asked: str):
    await app.turn(Mode.ALL, "Q1?")
    sim.anthropic.push(Fault("unknown_model", match="# Proposed Reply 1:"))  # the aggregator fails, not retried
    failing = await app.turn(Mode.ALL, failed)
    assert [event.input_kept for event in failing.events if isinstance(event, RunFailed)] == [True]

    after = await app.turn(Mode.ALL, next_text)

    history = [] if asked == "Q1?" else said("Q1?", panel_reply("Q1?"))
    assert after.calls == expected_turn(Mode.ALL, Style.AGGREGATE, history, asked)
    assert after.replies == [panel_reply(asked)]


# ----- after a restart, and after another process added turns -----------------------------------


@pytest.mark.parametrize(("text", "history", "asked"), [("Q2?", 2, "Q2?"), ("", 0, "Q1?")], ids=["a turn", "a redo"])
async def test_after_a_restart(apps: Apps, text: str, history: int, asked: str) -> None:
    first = apps.open(own_adapters=True)
    await first.turn(Mode.ALL, "Q1?")
    await apps.close(first)

    restarted = apps.open(own_adapters=True)
    after = await restarted.turn(Mode.ALL, text)

    chat = said("Q1?", panel_reply("Q1?"))[:history]
    assert after.calls == expected_turn(Mode.ALL, Style.AGGREGATE, chat, asked)


async def test_after_another_process_added_turns(apps: Apps) -> None:
    mine, other = apps.open(), apps.open(own_adapters=True)
    await mine.turn(Mode.ALL, "Q1?")

    theirs = await other.turn(Mode.CLAUDE, "Q2?")
    assert theirs.calls == expected_turn(Mode.CLAUDE, Style.AGGREGATE, said("Q1?", panel_reply("Q1?")), "Q2?")

    after = await mine.turn(Mode.ALL, "Q3?")
    chat = said("Q1?", panel_reply("Q1?"), "Q2?", answer("Q2?"))
    assert after.calls == expected_turn(Mode.ALL, Style.AGGREGATE, chat, "Q3?")

    redo = await other.turn(Mode.GEMINI, "")  # the other redoes the turn it did not see
    assert redo.calls == expected_turn(Mode.GEMINI, Style.AGGREGATE, chat, "Q3?")
    assert other.chat() == ["Q1?", panel_reply("Q1?"), "Q2?", answer("Q2?"), "Q3?", answer("Q3?")]


# ----- a branch (core/store/fork.py): the turns up to the fork point, nothing after it ------------


@pytest.mark.parametrize("mode", PLAIN_MODES, ids=lambda mode: mode.value)
async def test_a_branchs_first_turn_sends_the_chat_up_to_the_fork_point(apps: Apps, mode: Mode) -> None:
    from ensemble_tui.core.store.fork import fork_chat

    app = apps.open()
    await app.turn(Mode.ALL, "Q1?")
    await app.turn(Mode.CLAUDE, "")  # a redo: the panel's first reply is withdrawn
    await app.turn(Mode.ALL, "Q2?")
    await app.turn(Mode.ALL, "Q3?")
    parent = app.workspace.session
    original = app.chat()

    app.workspace.session = fork_chat(app.workspace.store, parent, 1)
    branched = await app.turn(mode, "Q2 asked another way?")

    kept = said("Q1?", answer("Q1?"))
    assert branched.calls == expected_turn(mode, Style.AGGREGATE, kept, "Q2 asked another way?")
    sent = [text for made in branched.calls.values() for messages in made for _, text in messages]
    for later in ("Q2?", panel_reply("Q2?"), "Q3?", panel_reply("Q3?"), panel_reply("Q1?")):
        assert not any(later in text for text in sent)
    assert app.chat() == [
        *original[:2],
        "Q2 asked another way?",
        final_reply(mode, Style.AGGREGATE, "Q2 asked another way?"),
    ]
    assert [m.text for m in app.workspace.store.archived(parent.id).history] == original  # the parent untouched


async def test_a_branch_made_in_another_process_sends_the_same(apps: Apps) -> None:
    from ensemble_tui.core.store.fork import ForkPoint, fork_stored

    first = apps.open(own_adapters=True)
    await first.turn(Mode.ALL, "Q1?")
    await first.turn(Mode.ALL, "Q2?")
    parent = first.workspace.session.id
    await apps.close(first)

    later = apps.open(own_adapters=True)  # as `ask --fork` does: the parent read from the history
    later.workspace.session = fork_stored(later.workspace.store, ForkPoint(parent, 0))
    branched = await later.turn(Mode.ALL, "Q1 again?")

    assert branched.calls == expected_turn(Mode.ALL, Style.AGGREGATE, [], "Q1 again?")
