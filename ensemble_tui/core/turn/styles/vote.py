"""Critique and vote: every model critiques the others' anonymous answers as strict JSON; a
Borda count picks the answer that becomes the final reply."""

from __future__ import annotations

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.core.chat.provenance import VoteRow
from ensemble_tui.core.chat.runlog import Artifact
from ensemble_tui.core.provider import Reply
from ensemble_tui.core.turn.runner import TurnRunner
from ensemble_tui.core.turn.styles.borda import Ballot, Standing, borda_count
from ensemble_tui.core.turn.styles.critique import CRITIQUE_SCHEMA_HINT, CritiqueReview, parse_critique
from ensemble_tui.core.turn.styles.labels import Labelling
from ensemble_tui.core.turn.styles.reviews import collect_reviews, labellings_for

CRITIQUE_STATUS = "Critiquing answers…"


def ballot_from(reviewer: str, review: CritiqueReview, labelling: Labelling) -> Ballot:
    """De-anonymise a critique into a ballot over authors."""
    by_label = review.by_label()
    return Ballot(
        reviewer,
        tuple(labelling.by_label[label] for label in review.ranking),
        overall={labelling.by_label[label]: c.overall for label, c in by_label.items()},
        correctness={labelling.by_label[label]: c.correctness for label, c in by_label.items()},
    )


def vote_line(winner: Standing, standings: list[Standing], ballots: int, model: str) -> str:
    """The one line under the winning answer that names the vote."""
    tied = [s.author for s in standings if s.rank == winner.rank and s.author != winner.author]
    tie = f", tied with {', '.join(tied)}" if tied else ""
    points = f"{winner.points:g} Borda point{'s' if winner.points != 1 else ''}"  # for the run report
    firsts = f"{winner.first_places} of {ballots} first-place vote{'s' if ballots != 1 else ''}"
    return f"*Vote: {model}'s answer won with {points} and {firsts}{tie}.*"


def rows(standings: list[Standing]) -> tuple[VoteRow, ...]:
    return tuple(
        VoteRow(s.author, s.rank, s.points, s.first_places, s.mean_overall, s.mean_correctness) for s in standings
    )


async def run_vote(runner: TurnRunner, query: str) -> Reply:
    prompts = runner.prompts
    answers = await runner.first_answers(query)
    authors = list(answers)
    runner.map_claims(answers)  # the last proposals: mapped beside the critiques
    reviews = await collect_reviews(
        runner,
        query,
        labellings_for(runner, authors),
        prompt=lambda labelling: prompts.deliberation(
            "CritiquePrompt",
            schema=CRITIQUE_SCHEMA_HINT,
            labels=", ".join(labelling.labels),
            answers=labelling.render(answers, runner.redaction),
        ),
        repair=lambda labelling: prompts.deliberation("CritiqueRepairPrompt", labels=", ".join(labelling.labels)),
        parse=lambda text, labelling: parse_critique(text, labelling.labels),
        status=CRITIQUE_STATUS,
        kind="critique",
    )
    ballots = [ballot_from(r.reviewer, r.parsed, r.labelling) for r in reviews.values() if r.parsed is not None]
    standings = borda_count(ballots, authors)
    runner.count_votes(Style.VOTE, rows(standings))
    winner = standings[0]
    line = vote_line(winner, standings, len(ballots), winner.author)
    runner.record.artifacts.append(
        Artifact("vote", "", line, data={"standings": [vars(s) for s in standings], "ballots": len(ballots)})
    )
    return Reply(answers[winner.author])  # the vote goes beside the reply (core/chat/provenance.py), not in it
