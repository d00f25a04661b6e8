"""Every model reviews the others' anonymous answers, concurrently, with one repair each."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Generic, TypeVar

from ensemble_tui.core.chat.runlog import Artifact
from ensemble_tui.core.turn.events import Notice, ReviewReceived
from ensemble_tui.core.turn.runner import TurnRunner, user_message
from ensemble_tui.core.turn.styles.labels import Labelling, shuffled_labelling

P = TypeVar("P")


@dataclass(frozen=True)
class Review(Generic[P]):
    reviewer: str
    labelling: Labelling
    text: str
    parsed: P | None
    problem: str | None  # why the ballot was left out, if it was


def labellings_for(runner: TurnRunner, authors: list[str]) -> dict[str, Labelling]:
    """A separate shuffle for every reviewer, never showing it its own answer."""
    return {
        reviewer: shuffled_labelling(authors, runner.rng, exclude=reviewer) for reviewer in authors if len(authors) > 1
    }


async def collect_reviews(
    runner: TurnRunner,
    query: str,
    labellings: dict[str, Labelling],
    *,
    prompt: Callable[[Labelling], str],
    repair: Callable[[Labelling], str],
    parse: Callable[[str, Labelling], P],
    status: str,
    kind: str,
) -> dict[str, Review[P]]:
    """Ask each reviewer for its review; a reply that does not parse gets one repair request,
    then is left out and marked. A reviewer whose calls fail is left out too."""
    prompts = runner.prompts
    context = runner.history()

    async def review(reviewer: str) -> Review[P]:
        labelling = labellings[reviewer]
        reply, parsed, problem = await runner.call_parsed(
            reviewer,
            "reviewer",
            prompts.proposer_system(reviewer),
            user_message(context, query, prompt(labelling)),
            partial(parse, labelling=labelling),
            repair(labelling),
        )
        return Review(reviewer, labelling, reply.text, parsed, problem)

    def received(reviewer: str, outcome: Review[P]) -> None:
        accepted = outcome.parsed is not None
        runner.emit(ReviewReceived(reviewer, outcome.text, accepted, outcome.problem))
        runner.record.artifacts.append(
            Artifact(
                kind,
                reviewer,
                outcome.text,
                round=runner.round,
                data={"labels": outcome.labelling.by_label, "accepted": accepted, "problem": outcome.problem},
            )
        )
        if not accepted:
            runner.emit(Notice(f"{reviewer}'s {kind} could not be read ({outcome.problem}); it is left out."))

    def failed(reviewer: str, message: str) -> None:
        runner.emit(Notice(f"{reviewer} gave no {kind}: {message}"))

    jobs = {reviewer: partial(review, reviewer) for reviewer in labellings}
    return await runner.gather(jobs, status=status, on_done=received, on_failure=failed)
