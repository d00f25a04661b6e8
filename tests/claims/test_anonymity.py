"""Issue 34 §4: what one model wrote reaches another without a model's or a maker's name, however
the name is spelled: one redaction (core/claims/anonymous.py) for every reader, history included."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.core.claims.anonymous import REDACTED, Redaction, normalised
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import ReplyCommitted
from ensemble_tui.core.turn.retry import RetryPolicy
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator import RecordedRequest, ScriptedReply, Simulator
from tests.providers.provider_support import received
from tests.support import SleepRecorder

CONFIGURED = ("ChatGPT", "Claude", "Gemini", "gpt-5", "gpt-4o", "claude-sonnet-4-5", "gemini-2.5-pro")
REDACTION = Redaction.of(CONFIGURED)
FAMILIES = ("claude", "gpt", "gemini", "chatgpt", "anthropic", "openai", "google", "deepseek", "grok", "mistral")
# Characters a reader does not see: zero-width space, joiners, word joiner, BOM, soft hyphen, bidi controls.
INVISIBLE = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "\u202d", "\u2066", "\u200f")
WORDS = (
    "the",
    "answer",
    "is",
    "as",
    "made",
    "by",
    "proof",
    "lemma",
    "holds",
    "I",
    "think",
    "page",
)  # a number right after a name reads as its version


def leaked(text: str) -> list[str]:
    """The model families still readable in `text`, read as a model would (normalised)."""
    folded = normalised(text)[0]
    return [family for family in FAMILIES if family in folded.replace(" ", "").replace("-", "")]


@st.composite
def spelled(draw: st.DrawFn) -> str:
    """A model's or maker's name as a hostile answer might write it."""
    name = draw(st.sampled_from(("Claude", "GPT", "Gemini", "ChatGPT", "Anthropic", "OpenAI", "Google", *CONFIGURED)))
    chars = [draw(st.sampled_from((c.lower(), c.upper()))) for c in name]
    if draw(st.booleans()):  # full-width letters
        chars = [chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in chars]
    for _ in range(draw(st.integers(0, 3))):  # invisible characters inside the name
        chars.insert(draw(st.integers(1, max(1, len(chars) - 1))), draw(st.sampled_from(INVISIBLE)))
    version = draw(
        st.sampled_from(("", "5", "-4o", "3.5", " 3.5 Sonnet", "-2.5", "-2.5-pro", " 4", "-o3", "4o", "-mini"))
    )
    return "".join(chars) + version


@settings(max_examples=300, deadline=None)
@given(before=st.lists(st.sampled_from(WORDS), max_size=4), name=spelled(), after=st.lists(st.sampled_from(WORDS)))
def test_no_spelling_of_a_name_survives_the_redaction(before: list[str], name: str, after: list[str]) -> None:
    text = " ".join([*before, name, *after])
    redacted = REDACTION(text)
    assert not leaked(redacted), (text, redacted)
    assert REDACTED in redacted
    # The words around the name are kept as written.
    assert redacted.startswith(" ".join(before)) and redacted.endswith(" ".join(after))


def test_the_issue_s_examples_are_redacted() -> None:
    for text in ("GPT5", "Claude3.5 Sonnet", "GPT-4o", "Gemini-2.5", "Cl\u200baude", "As Claude, made by Anthropic"):
        assert not leaked(REDACTION(text)), text
    assert REDACTION("As Claude, made by Anthropic, I say 42.") == "As [a model], made by [a model], I say 42."


def test_a_turns_names_are_folded_once_and_a_new_name_is_redacted_too(monkeypatch) -> None:
    """Every multi-model turn builds its redaction from the ~60 configured names: the same names
    are not folded again (0.5-0.7 ms on the app's loop a turn, before its first request); a
    configuration that adds a model gets a pattern with it."""
    from ensemble_tui.core.claims import anonymous

    anonymous._name_pattern.cache_clear()  # as in a fresh process
    folded: list[str] = []
    parts = anonymous._parts
    monkeypatch.setattr(anonymous, "_parts", lambda name: folded.append(name) or parts(name))
    names = ["ChatGPT", "gpt-5.1", "Claude", "claude-sonnet-4-5", "Zephyrine"]
    first = Redaction.of(names)
    assert Redaction.of(list(names)).pattern is first.pattern
    assert folded.count("Zephyrine") == 1
    assert "Quorvax" not in Redaction.of([*names, "Quorvax"])("Quorvax-2 wrote this.")


def test_words_that_only_contain_a_name_are_kept() -> None:
    text = "The metaphor of a claudication gap: geminate consonants, a googled proof, 3.5 pages."
    assert REDACTION(text) == text


# ----- through the real adapters and the simulator ----------------------------------------------

SELF_NAMING = "As Claude, made by Anthropic (Claude3.5 Sonnet, not GPT5 nor Gem\u200bini-2.5), I find 42."
FINAL = "As Gemini, by Google, the panel finds 42."


def respond(request: RecordedRequest) -> ScriptedReply:
    """Every proposer names itself; the aggregator (it reads the packet) replies naming itself too."""
    if "Proposed Reply 1" in request.last_user_text:
        return ScriptedReply("FINAL REPLY:\n" + FINAL)
    return ScriptedReply(SELF_NAMING)


async def test_a_self_naming_proposal_reaches_the_aggregator_and_later_turns_redacted(workspace) -> None:
    workspace.update_settings(aggregator="Claude", claim_map=False)
    with Simulator() as sim:
        for name in ("openai", "anthropic", "gemini"):
            sim.script(name).default = respond
        providers, unavailable = build_providers(workspace, env=sim.env)
        assert unavailable == {}
        workspace.attach_providers(providers, {})
        engine = Engine(workspace, retry=RetryPolicy(), rng=random.Random(1), sleep=SleepRecorder(), timeout_s=10)
        try:
            first = [event async for event in engine.run(Mode.ALL, "What is the answer?", Style.AGGREGATE)]
            (reply,) = [event for event in first if isinstance(event, ReplyCommitted)]
            assert reply.text == FINAL  # the user reads the reply as written
            packets = [
                received(call)[-1][1]
                for call in sim.script("anthropic").calls
                if "Proposed Reply 1" in call.last_user_text
            ]
            assert len(packets) == 1
            assert packets[0].count(REDACTED) >= 3 * 5  # every proposal's five names
            assert not leaked(packets[0].split("Proposed Reply 1", 1)[1]), packets[0]

            before = {name: len(sim.script(name).calls) for name in ("openai", "anthropic", "gemini")}
            second = [event async for event in engine.run(Mode.ALL, "And why?", Style.AGGREGATE)]
            assert any(isinstance(event, ReplyCommitted) for event in second)
            for name in ("openai", "anthropic", "gemini"):
                for call in sim.script(name).calls[before[name] :]:
                    history = [text for role, text in received(call) if role == "assistant"]
                    assert history == ["As [a model], by [a model], the panel finds 42."], (name, history)
        finally:
            for adapter in providers.values():
                await adapter.aclose()
