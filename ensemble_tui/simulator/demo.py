"""`ensemble-tui --demo`: the simulator with replies that say they are simulated.

Every provider answers every role, so any mode, style and aggregator choice works. The
aggregator asks for one resynthesis round and then gives a final reply, on every turn, so the
whole flow (proposals, resubmission, final reply, sources, costs) shows without keys or
network. Each decision is read from the request itself, not from a counter, so a cancelled turn
cannot throw the next one off: a packet that holds revised proposals gets the final reply. The
roles are recognised by phrases of the shipped prompts (as the core's own scripted tests do);
the council, vote and debate styles get replies in the formats their parsers expect.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from ensemble_tui.simulator.demo_account import CHANGING, DemoAccount, account_file
from ensemble_tui.simulator.demo_claims import MAP_MARK, disagrees, planted_claims, scripted_map
from ensemble_tui.simulator.script import Citation, Fault, ProviderScript, RecordedRequest, ScriptedReply
from ensemble_tui.simulator.server import Simulator
from ensemble_tui.simulator.wire import HttpReply

# The same proposal request again within this long is a second sample (auto mode sends two
# together): on a HERON question it misquotes the figure (demo_claims.disagrees).
SAMPLE_WINDOW_S = 2.0
PACKET_MARK = "# Proposed Reply 1:"  # the core's packet heading: the request is an aggregation
# Phrases of the core's requests and shipped prompts, checked in order, that tell a request's role.
ROLE_MARKERS: tuple[tuple[str, str], ...] = (
    (MAP_MARK, "claims"),
    ("Your own proposal was Proposed Reply", "revision"),
    ("# Remarks from the aggregator", "revision"),
    (PACKET_MARK, "aggregator"),
    ("You are the chair of a panel", "chairman"),
    ("You are Agent ", "debate"),
    ("did not follow the required format", "debate"),
    ('"critiques"', "critique"),
    ("was not the JSON object", "critique"),
    ("FINAL RANKING:", "ranking"),
)
_LABEL = re.compile(r"^# (?:Answer|Agent) ([A-Z])\s*$", re.MULTILINE)
REVISED_MARK = "(Simulated revision after the aggregator's remarks.)"
NAMES = {"openai": "ChatGPT", "anthropic": "Claude", "gemini": "Gemini"}
DEMO_SOURCES = (
    Citation("https://example.org/ensemble-tui/demo-source-1", "Simulated source 1"),
    Citation("https://example.org/ensemble-tui/demo-source-2", "Simulated source 2"),
)


class DemoSimulator(Simulator):
    """A running simulator whose `.env` points all three SDKs, and every OpenAI-compatible
    provider, at it with dummy keys."""

    def __init__(
        self, seed: int | None = None, latency: tuple[float, float] = (0.3, 0.8), *, account: Path | None = None
    ) -> None:
        """`account`: a file keeping the uploaded files between runs (demo_account); None: none kept."""
        super().__init__()
        self._random = random.Random(seed)
        self._random_lock = threading.Lock()
        self._asked: dict[tuple[str, str], float] = {}  # (provider, request text) -> when last asked
        self.latency = latency
        for name, script in self.scripts.items():
            script.default = self._responder(name)
            script.upload_latency_s = 0.2
        self._account = DemoAccount(account) if account is not None else None
        if self._account is not None:
            self._account.load_into(self)

    def dispatch(self, api: ModuleType, request: RecordedRequest, data: bytes) -> HttpReply | Fault:
        outcome = super().dispatch(api, request, data)
        if self._account is not None and request.endpoint in CHANGING:
            self._account.save_from(self)
        return outcome

    def _new_chat_script(self, name: str) -> ProviderScript:
        """OpenAI-compatible providers answer every role too, under their own name."""
        script = super()._new_chat_script(name)
        script.default = self._responder(name)
        return script

    def _pause(self) -> float:
        with self._random_lock:
            return self._random.uniform(*self.latency)

    def _misquotes(self, name: str, asked: str) -> bool:
        """Whether this proposal gives the wrong figure: on a HERON question, Gemini's, and a
        second sample's (the same request seen moments before, as auto's two samples are sent)."""
        if not disagrees(_question(asked)):
            return False
        now = time.monotonic()
        with self._random_lock:
            before = self._asked.get((name, asked))
            self._asked[(name, asked)] = now
        return name == "Gemini" or (before is not None and now - before < SAMPLE_WINDOW_S)

    def _responder(self, provider: str) -> Callable[[RecordedRequest], ScriptedReply]:
        name = NAMES.get(provider, provider)

        def respond(request: RecordedRequest) -> ScriptedReply:
            asked = request.last_user_text
            role = role_of(asked)
            if role == "claims":  # the claim map, JSON through the API's structured output
                return ScriptedReply(scripted_map(asked), latency_s=self._pause())
            if role == "revision":
                text = revision(name)
            elif role == "aggregator":
                text = final_reply(name, asked) if REVISED_MARK in asked else resynthesis_request(name)
            elif role in STYLE_REPLIES:
                text = STYLE_REPLIES[role](name, asked)
            else:
                text = proposal(name, asked, misquote=self._misquotes(name, asked))
            return ScriptedReply(text, citations=DEMO_SOURCES, latency_s=self._pause())

        return respond


def role_of(user_text: str) -> str:
    for marker, role in ROLE_MARKERS:
        if marker in user_text:
            return role
    return "proposal"


def _labels(user_text: str) -> list[str]:
    return sorted(set(_LABEL.findall(user_text)))


def _question(user_text: str) -> str:
    """The user's question: the first part of the last user turn (the core joins parts with ---)."""
    first = user_text.split("\n\n---\n\n", 1)[0].strip()
    flat = " ".join(first.split())
    return flat if len(flat) <= 120 else flat[:119] + "…"


def proposal(name: str, user_text: str, *, misquote: bool = False) -> str:
    return (
        f"**Simulated {name} reply** - demo mode, no real model was called.\n\n"
        # The question is echoed without quotation marks: the quote checker would look for it in the paper.
        f"You asked: {_question(user_text)}\n\nWith a real API key, {name} would answer here, "
        "reading the attached PDF and searching the web. The sources below are placeholders.\n\n"
        + planted_claims(name, misquote=misquote)
    )


def revision(name: str) -> str:
    return (
        f"**Simulated {name} revision** - demo mode, no real model was called.\n\n"
        f"{REVISED_MARK} {name} would now merge the best points of every proposal into a better reply.\n\n"
        + planted_claims(name)
    )


def resynthesis_request(name: str) -> str:
    return (
        "REQUEST SYNTHESIS FROM PROPOSERS\n"
        f"(Simulated {name} aggregator, demo mode.) The proposals agree in substance; please each "
        "combine their strongest points and cite the paper where you can."
    )


def final_reply(name: str, user_text: str) -> str:
    count = user_text.count("# Proposed Reply ")
    return (
        "FINAL REPLY:\n"
        f"**Simulated final reply** from the {name} aggregator - demo mode, no real model was called.\n\n"
        f"After one resynthesis round, {count} revised proposal{'s' if count != 1 else ''} were "
        "combined into this answer. Run without `--demo` and with API keys to ask the real models.\n\n"
        "Real answers often carry the paper's mathematics, shown as text (Ctrl+L shows the LaTeX): "
        "attention weighs the values by $\\mathrm{softmax}\\left(\\frac{QK^T}{\\sqrt{d_k}}\\right)V$, "
        "and a loss such as\n\n$$\\mathcal{L} = \\sum_{i=1}^{n} (y_i - \\hat{y}_i)^2$$\n\n"
        "is read as written. The demo spends nothing: the costs it shows are simulated, what this "
        "run would cost with real providers at their configured prices."
    )


def ranking(name: str, user_text: str) -> str:
    labels = _labels(user_text)
    lines = "\n".join(f"{number}. {label}" for number, label in enumerate(labels, start=1))
    note = f"(Simulated {name} review, demo mode.) Every answer is plausible; this order is arbitrary."
    return f"{note}\n\nFINAL RANKING:\n{lines}"


def critique(name: str, user_text: str) -> str:
    labels = _labels(user_text)
    scores = {"correctness": 7, "completeness": 7, "clarity": 8, "helpfulness": 7, "safety": 10, "overall": 7}
    critiques = [
        {"label": label, "critique": f"Simulated critique by {name} (demo mode).", **scores} for label in labels
    ]
    return json.dumps({"critiques": critiques, "ranking": labels, "confidence": 0.5}, indent=2)


def debate(name: str, user_text: str) -> str:
    own = re.search(r"You are Agent ([A-Z])", user_text)
    peers = [label for label in _labels(user_text) if not own or label != own.group(1)]
    talk = "\n\n".join(f"## With Agent {peer}\n(Simulated message from {name}, demo mode.)" for peer in peers)
    return (
        f"# ANSWER\n**Simulated {name} debate answer** - demo mode, no real model was called.\n\n"
        f"# RATIONALE\nNothing real to weigh in demo mode.\n\n# DISCUSSION\n{talk}"
    )


def chairman(name: str, user_text: str) -> str:
    return (
        f"**Simulated final reply** from the {name} chair - demo mode, no real model was called.\n\n"
        "Run without `--demo` and with API keys to ask the real models."
    )


STYLE_REPLIES: dict[str, Callable[[str, str], str]] = {
    "ranking": ranking,
    "critique": critique,
    "debate": debate,
    "chairman": chairman,
}


def start_demo(seed: int | None = None, home: Path | None = None) -> DemoSimulator:
    """Start the demo simulator, with the files of the demo account kept in `home` (none kept
    without one); the caller uses `.env` for the providers and calls `.stop()`."""
    demo = DemoSimulator(seed, account=account_file(home) if home is not None else None)
    demo.start()
    return demo


@contextmanager
def demo_environment(seed: int | None = None, home: Path | None = None) -> Iterator[dict[str, str]]:
    """A running demo simulator for the life of the block; yields the variables for `build_providers`."""
    demo = start_demo(seed, home)
    try:
        yield demo.env
    finally:
        demo.stop()
