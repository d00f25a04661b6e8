"""Council: every model answers, ranks the others' anonymous answers, and a chairman who
never learns who wrote what writes the final reply."""

from __future__ import annotations

import time

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.core.chat.provenance import VoteRow
from ensemble_tui.core.chat.runlog import Artifact
from ensemble_tui.core.provider import Reply
from ensemble_tui.core.turn.events import StatusChanged
from ensemble_tui.core.turn.runner import TurnRunner, user_message
from ensemble_tui.core.turn.styles.labels import Labelling, shuffled_labelling
from ensemble_tui.core.turn.styles.ranking import (
    AveragePosition,
    average_positions,
    parse_final_ranking,
    shared_places,
)
from ensemble_tui.core.turn.styles.reviews import collect_reviews, labellings_for

RANKING_STATUS = "Ranking answers…"
CHAIR_STATUS = "Chairman writing the final reply…"


def ranking_prompt(runner: TurnRunner, answers: dict[str, str], labelling: Labelling) -> str:
    return runner.prompts.deliberation(
        "RankingPrompt", labels=", ".join(labelling.labels), answers=labelling.render(answers, runner.redaction)
    )


def ranking_repair(runner: TurnRunner, labelling: Labelling) -> str:
    return runner.prompts.deliberation("RankingRepairPrompt", labels=", ".join(labelling.labels))


def parse_ranking(text: str, labelling: Labelling) -> list[str]:
    """The reviewer's ranking as authors, best first."""
    return [labelling.by_label[label] for label in parse_final_ranking(text, labelling.labels)]


def ranking_table(positions: list[AveragePosition], labelling: Labelling) -> str:
    lines = []
    for place, item in enumerate(positions, start=1):
        label = labelling.label_of(item.author)
        if item.ballots:
            lines.append(f"{place}. Answer {label}: average position {item.average:.2f} ({item.ballots} ballots)")
        else:
            lines.append(f"{place}. Answer {label}: not ranked by anyone")
    return "\n".join(lines)


async def run_council(runner: TurnRunner, query: str) -> Reply:
    answers = await runner.first_answers(query)
    authors = list(answers)
    runner.map_claims(answers)  # the last proposals: mapped beside the rankings and the chair
    reviews = await collect_reviews(
        runner,
        query,
        labellings_for(runner, authors),
        prompt=lambda labelling: ranking_prompt(runner, answers, labelling),
        repair=lambda labelling: ranking_repair(runner, labelling),
        parse=parse_ranking,
        status=RANKING_STATUS,
        kind="ranking",
    )
    ballots = [review.parsed for review in reviews.values() if review.parsed is not None]
    positions = average_positions(ballots, authors)
    runner.count_votes(
        Style.COUNCIL,
        tuple(
            VoteRow(item.author, place, 0.0, 0, average_position=item.average, ballots=item.ballots)
            for place, item in zip(shared_places([item.average for item in positions]), positions, strict=True)
        ),
    )
    runner.record.artifacts.append(
        Artifact(
            "vote",
            "",
            "",
            data={
                "positions": [
                    {"author": p.author, "average": p.average if p.ballots else None, "ballots": p.ballots}
                    for p in positions
                ],
                "ballots_counted": len(ballots),
                "ballots_asked": len(reviews),
            },
        )
    )

    chair_view = shuffled_labelling(authors, runner.rng)
    prompt = runner.prompts.deliberation(
        "ChairmanPrompt",
        answers=chair_view.render(answers, runner.redaction),
        ranking=ranking_table(positions, chair_view),
    )
    runner.emit(StatusChanged(CHAIR_STATUS, answered=tuple(authors)))
    started = time.monotonic()
    chairman = runner.context.aggregator
    reply = await runner.call(
        chairman,
        "aggregator",
        runner.prompts.proposer_system(chairman),
        user_message(runner.history(), query, prompt),
    )
    runner.record.aggregator_s.append(runner.timed(started))
    return reply
