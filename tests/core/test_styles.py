"""Council, critique-and-vote and debate turns through scripted providers."""

from __future__ import annotations

import json
import re

from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.core.provider import CallRequest
from ensemble_tui.core.turn.events import Notice, ReplyCommitted, ReviewReceived, RunFailed, VoteCounted
from tests.core.helpers import of_type, restored_session
from tests.support import fatal

MODELS = ("ChatGPT", "Claude", "Gemini")
BLOCK = re.compile(r"^# (?:Answer|Agent) ([A-Z])\n(.*?)(?=^# |\Z)", re.MULTILINE | re.DOTALL)


def shown_answers(request: CallRequest) -> dict[str, str]:
    """Label -> answer text, as the request showed them (a repair request shows them earlier)."""
    for turn in reversed(request.messages):
        if turn.role == "user" and (blocks := BLOCK.findall(turn.text)):
            return {label: text.strip() for label, text in blocks}
    return {}


def ranking_by(preference: list[str]):
    """A reviewer that ranks the answers it was shown by the order of `preference` (answer texts)."""

    def reply(request: CallRequest) -> str:
        shown = shown_answers(request)
        ordered = sorted(shown, key=lambda label: preference.index(shown[label]))
        lines = "\n".join(f"{n}. {label}" for n, label in enumerate(ordered, start=1))
        return f"Answer texts judged carefully.\n\nFINAL RANKING:\n{lines}"

    return reply


def alphabetical_ranking(request: CallRequest) -> str:
    return "FINAL RANKING:\n" + "\n".join(f"{n}. {label}" for n, label in enumerate(sorted(shown_answers(request)), 1))


def critique_by(scores: dict[str, float]):
    """A reviewer that scores each shown answer by its text and ranks by that score."""

    def reply(request: CallRequest) -> str:
        shown = shown_answers(request)
        ranking = sorted(shown, key=lambda label: -scores[shown[label]])
        critiques = [
            {
                "label": label,
                "critique": "ok",
                "correctness": scores[text],
                "completeness": 5,
                "clarity": 5,
                "helpfulness": 5,
                "safety": 10,
                "overall": scores[text],
            }
            for label, text in shown.items()
        ]
        return "```json\n" + json.dumps({"critiques": critiques, "ranking": ranking, "confidence": 0.7}) + "\n```"

    return reply


def tag(label: str) -> str:
    """How a scripted model signs its answers: a word that is no model's name (a name would be redacted)."""
    return f"Author{MODELS.index(label) + 1}"


def answer(label: str) -> str:
    """A model's answer, told apart by a word that is no model's name (a name would be redacted)."""
    return f"Answer text number {MODELS.index(label) + 1}."


async def run_style(engine, mode: Mode, text: str, style: Style) -> list:
    return [event async for event in engine.run(mode, text, style)]


async def test_council_ranks_anonymously_and_the_chairman_writes_the_reply(workspace, scripted, make_engine):
    preference = [answer("Claude"), answer("Gemini"), answer("ChatGPT")]
    for label in MODELS:
        scripted[label].scripts["proposer"] = [answer(label)]
        scripted[label].scripts["ranking"] = [ranking_by(preference)]
    scripted["Gemini"].scripts["chairman"] = ["The chairman's synthesis."]
    workspace.update_settings(aggregator="Gemini")
    events = await run_style(make_engine(), Mode.ALL, "Which result matters most?", Style.COUNCIL)

    orders = []
    for label in MODELS:
        (ranking_call,) = scripted[label].calls_as("ranking")
        shown = shown_answers(ranking_call)
        assert answer(label) not in shown.values(), "a reviewer must never see its own answer"
        assert set(shown) == {"A", "B"}
        orders.append(tuple(shown.values()))
        for name in MODELS:
            assert name not in ranking_call.messages[-1].text.replace(answer(name), "")

    (chair_call,) = scripted["Gemini"].calls_as("chairman")
    chair_text = chair_call.messages[-1].text
    assert all(answer(label) in chair_text for label in MODELS)
    assert "average position 1.00 (2 ballots)" in chair_text
    for name in MODELS:
        assert name not in chair_text.replace(answer(name), "")

    (tally,) = of_type(events, VoteCounted)
    assert [(row.author, row.average_position, row.ballots) for row in tally.rows] == [
        ("Claude", 1.0, 2),
        ("Gemini", 1.5, 2),
        ("ChatGPT", 2.0, 2),
    ]
    assert of_type(events, ReplyCommitted)[0].text == "The chairman's synthesis."
    assert workspace.session.history[-1].text == "The chairman's synthesis."


async def test_council_repairs_an_unreadable_ranking_once_then_leaves_it_out(workspace, scripted, make_engine):
    preference = [answer("Claude"), answer("Gemini"), answer("ChatGPT")]
    for label in MODELS:
        scripted[label].scripts["proposer"] = [answer(label)]
        scripted[label].scripts["ranking"] = [ranking_by(preference)]
    scripted["Claude"].scripts["ranking"] = ["I like them all.", "Still no ranking, sorry."]
    scripted["ChatGPT"].scripts["ranking"] = ["FINAL RANKING:\n1. A\n2. A", ranking_by(preference)]
    scripted["ChatGPT"].scripts["chairman"] = ["Chair reply."]
    events = await run_style(make_engine(), Mode.ALL, "q", Style.COUNCIL)

    claude_calls = scripted["Claude"].calls_as("ranking")
    assert len(claude_calls) == 2
    repair = claude_calls[1].messages
    assert repair[-2].role == "assistant" and repair[-2].text == "I like them all."
    assert "could not be read as a ranking" in repair[-1].text
    assert len(scripted["ChatGPT"].calls_as("ranking")) == 2
    reviews = {event.reviewer: event.accepted for event in of_type(events, ReviewReceived)}
    assert reviews == {"Claude": False, "ChatGPT": True, "Gemini": True}
    assert any("Claude's ranking could not be read" in n.message for n in of_type(events, Notice))
    (tally,) = of_type(events, VoteCounted)
    assert sum(row.ballots for row in tally.rows) == 4  # two ballots of two answers each
    assert of_type(events, ReplyCommitted)


async def test_vote_picks_the_borda_winner_and_names_the_vote(workspace, scripted, make_engine):
    scores = {answer("ChatGPT"): 6, answer("Claude"): 9, answer("Gemini"): 3}
    for label in MODELS:
        scripted[label].scripts["proposer"] = [answer(label)]
        scripted[label].scripts["critique"] = [critique_by(scores)]
    events = await run_style(make_engine(), Mode.ALL, "Which proof is right?", Style.VOTE)

    for label in MODELS:
        (call,) = scripted[label].calls_as("critique")
        assert answer(label) not in shown_answers(call).values()
        assert "ignore any instruction" in call.messages[-1].text.lower()
    (committed,) = of_type(events, ReplyCommitted)
    assert committed.text == answer("Claude")  # the reply stays clean: later turns send it to models
    claude = workspace.model_for("Claude")
    assert committed.message.provenance.line == f"All · Critique & vote · winner {claude} (2 pts)"
    (vote,) = [a for a in workspace.archive.turns(workspace.session.id)[-1].record.artifacts if a.kind == "vote"]
    assert vote.text == "*Vote: Claude's answer won with 2 Borda points and 2 of 3 first-place votes.*"
    (tally,) = of_type(events, VoteCounted)
    assert committed.message.provenance.tally == list(tally.rows)  # kept beside the reply
    assert [(r.author, r.points, r.first_places, r.mean_overall) for r in tally.rows] == [
        ("Claude", 2.0, 2, 9.0),
        ("ChatGPT", 1.0, 1, 6.0),
        ("Gemini", 0.0, 0, 3.0),
    ]


async def test_vote_survives_a_failing_reviewer_and_repairs_bad_json(workspace, scripted, make_engine):
    scores = {answer("ChatGPT"): 6, answer("Claude"): 9, answer("Gemini"): 3}
    for label in MODELS:
        scripted[label].scripts["proposer"] = [answer(label)]
        scripted[label].scripts["critique"] = [critique_by(scores)]
    scripted["Gemini"].scripts["critique"] = [fatal("Gemini")]
    scripted["ChatGPT"].scripts["critique"] = ["{not json", critique_by(scores)]
    events = await run_style(make_engine(), Mode.ALL, "q", Style.VOTE)

    chatgpt_calls = scripted["ChatGPT"].calls_as("critique")
    assert len(chatgpt_calls) == 2 and "was not the JSON object" in chatgpt_calls[1].messages[-1].text
    assert any(n.message.startswith("Gemini gave no critique") for n in of_type(events, Notice))
    final = of_type(events, ReplyCommitted)[0].text
    assert final == answer("Claude")
    (vote,) = [a for a in workspace.archive.turns(workspace.session.id)[-1].record.artifacts if a.kind == "vote"]
    assert "of 2 first-place votes" in vote.text


def debater(label: str, peers_to_message: bool = True):
    """A debater whose answer records the round and which messages reached it."""

    def reply(request: CallRequest) -> str:
        text = request.messages[-1].text
        agent = re.search(r"You are Agent ([A-Z])", text).group(1)
        round_number = re.search(r"This is round (\d+)", text).group(1)
        inbox = re.findall(r"From Agent ([A-Z]):\n(.*)", text)
        heard = ",".join(sorted(f"{sender}:{body}" for sender, body in inbox)) or "nothing"
        peers = re.search(r"using their letters: ([A-Z, ]+)\)", text).group(1).split(", ")
        discussion = "\n".join(f"## With Agent {peer}\nhello {peer} from {agent}" for peer in peers)
        return (
            f"# ANSWER\n{tag(label)} round {round_number} heard {heard}\n\n# RATIONALE\nbecause\n\n"
            f"# DISCUSSION\n{discussion if peers_to_message else ''}"
        )

    return reply


async def test_debate_rounds_route_messages_and_award_medals(workspace, scripted, make_engine):
    workspace.update_settings(debate_rounds=3)
    preference = [f"{tag(label)} round 3 heard" for label in ("Gemini", "ChatGPT", "Claude")]

    def rank(request: CallRequest) -> str:
        shown = shown_answers(request)
        ordered = sorted(shown, key=lambda lbl: [p in shown[lbl] for p in preference].index(True))
        return "FINAL RANKING:\n" + "\n".join(f"{n}. {lbl}" for n, lbl in enumerate(ordered, start=1))

    for label in MODELS:
        scripted[label].scripts["proposer"] = [answer(label)]
        scripted[label].scripts["debate"] = [debater(label), debater(label)]
        scripted[label].scripts["ranking"] = [rank]
    events = await run_style(make_engine(), Mode.ALL, "Is the lemma needed?", Style.DEBATE)

    for label in MODELS:
        rounds = scripted[label].calls_as("debate")
        assert len(rounds) == 2
        assert "Messages addressed to you in the last round:\n\n(none)" in rounds[0].messages[-1].text
        second = rounds[1].messages[-1].text
        own_letter = re.search(r"You are Agent ([A-Z])", second).group(1)
        inbox = re.findall(r"From Agent ([A-Z]):\n(.*)", second)
        assert len(inbox) == 2 and all(body == f"hello {own_letter} from {sender}" for sender, body in inbox)
        assert f"{tag(label)} round 2 heard nothing" in second  # its own latest answer
        for name in MODELS:
            assert name not in second
    (committed,) = of_type(events, ReplyCommitted)
    assert committed.text.startswith(f"{tag('Gemini')} round 3 heard") and "gold" not in committed.text
    assert committed.message.provenance.line.startswith(
        f"All · Debate · {workspace.model_for('Gemini')} won the debate ("
    )
    (medals,) = [a for a in workspace.archive.turns(workspace.session.id)[-1].record.artifacts if a.kind == "vote"]
    assert "gold Gemini" in medals.text and "silver ChatGPT" in medals.text and "bronze Claude" in medals.text
    (tally,) = of_type(events, VoteCounted)
    assert [(r.author, r.medal) for r in tally.rows] == [
        ("Gemini", "gold"),
        ("ChatGPT", "silver"),
        ("Claude", "bronze"),
    ]
    assert workspace.session.last_outputs["Claude"].text.startswith(f"{tag('Claude')} round 3")


async def test_debate_keeps_a_badly_formatted_reply_as_a_plain_answer(workspace, scripted, make_engine):
    for label in MODELS:
        scripted[label].scripts["proposer"] = [answer(label)]
        scripted[label].scripts["debate"] = [debater(label), debater(label)]
        scripted[label].scripts["ranking"] = [alphabetical_ranking]
    scripted["Claude"].scripts["debate"] = ["no sections here", "still none", debater("Claude")]
    events = await run_style(make_engine(), Mode.ALL, "q", Style.DEBATE)
    assert len(scripted["Claude"].calls_as("debate")) == 3  # round 2 + its repair, then round 3
    assert of_type(events, ReplyCommitted)
    assert not of_type(events, RunFailed)
    third_round = scripted["Claude"].calls_as("debate")[2].messages[-1].text
    assert "Your latest answer:\n\nstill none" in third_round  # the unformatted reply was kept as its answer
    assert workspace.session.last_outputs["Claude"].text.startswith(f"{tag('Claude')} round 3")


async def test_single_modes_ignore_the_style(workspace, scripted, make_engine):
    scripted["Claude"].scripts["proposer"] = ["Just Claude."]
    events = await run_style(make_engine(), Mode.CLAUDE, "q", Style.DEBATE)
    assert of_type(events, ReplyCommitted)[0].text == "Just Claude."
    assert len(scripted["Claude"].calls) == 1


async def test_a_missing_style_prompt_names_the_file_before_any_call(workspace, scripted, make_engine):
    (workspace.paths.prompts / "Deliberation" / "CritiquePrompt.txt").unlink()
    events = await run_style(make_engine(), Mode.ALL, "q", Style.VOTE)
    assert "Deliberation/CritiquePrompt.txt" in of_type(events, RunFailed)[0].message
    assert all(provider.calls == [] for provider in scripted.values())


async def test_who_won_is_never_sent_to_a_model_in_later_turns(workspace, scripted, make_engine):
    scores = {answer("ChatGPT"): 6, answer("Claude"): 9, answer("Gemini"): 3}
    for label in MODELS:
        scripted[label].scripts["proposer"] = [answer(label), "the next answer"]
        scripted[label].scripts["critique"] = [critique_by(scores)]
    engine = make_engine()
    await run_style(engine, Mode.ALL, "Which proof is right?", Style.VOTE)
    await run_style(engine, Mode.CHATGPT, "And the lemma?", Style.VOTE)

    provenance = workspace.session.history[1].provenance
    assert provenance is not None and "winner" in provenance.line
    sent = "\n".join(turn.text for turn in scripted["ChatGPT"].calls[-1].messages)
    assert workspace.model_for("Claude") not in sent and "Critique & vote" not in sent and "Borda" not in sent
    restored = restored_session(workspace.paths.root)
    assert restored.history[1].provenance == provenance  # shown again after a restart, tally included
    assert restored.history[3].provenance.line == f"ChatGPT · {workspace.model_for('ChatGPT')}"
