"""The default style: proposers, then an aggregator that replies or asks for another round."""

from __future__ import annotations

import time

from ensemble_tui.core.chat.runlog import Artifact
from ensemble_tui.core.provider import Message, Reply
from ensemble_tui.core.turn.events import StatusChanged
from ensemble_tui.core.turn.runner import AllProposersFailed, TurnRunner, user_message
from ensemble_tui.core.turn.styles.packet import ProposalPacket, build_packet
from ensemble_tui.core.turn.styles.verdict import parse_verdict

MAX_AGGREGATOR_PASSES = 5


def aggregating(iteration: int) -> str:
    return f"Aggregating replies, iteration {iteration}…"


async def run_aggregator_loop(runner: TurnRunner, query: str) -> Reply:
    """Aggregate shuffled, anonymous proposals; the 5th pass is forced to be final."""
    prompts = runner.prompts
    context = runner.history()
    proposals = await runner.first_answers(query)
    aggregator = runner.context.aggregator
    for iteration in range(1, MAX_AGGREGATOR_PASSES + 1):
        forced = iteration == MAX_AGGREGATOR_PASSES
        packet = build_packet(proposals, runner.rng, runner.redaction)
        runner.map_claims(proposals)  # beside this pass: a final one takes no extra wave
        runner.emit(StatusChanged(aggregating(iteration), answered=tuple(proposals)))
        started = time.monotonic()
        output = await runner.call(
            aggregator,
            "aggregator",
            prompts.aggregator_system(),
            user_message(context, query, prompts.aggregator_user(forced=forced) + "\n\n" + packet.render()),
        )
        runner.record.aggregator_s.append(runner.timed(started))
        runner.record.artifacts.append(Artifact("aggregation", aggregator, output.text, round=iteration))
        verdict = parse_verdict(output.text)
        if verdict.kind == "final" or forced:
            return Reply(verdict.text or output.text, output.usage, output.sources)
        proposals.update(await _resynthesize(runner, query, context, packet, verdict.text, iteration))
    raise AssertionError("unreachable: the last pass is always final")


async def _resynthesize(
    runner: TurnRunner, query: str, context: tuple[Message, ...], packet: ProposalPacket, remarks: str, iteration: int
) -> dict[str, str]:
    """Send every proposer the packet and the aggregator's remarks; collect revisions.

    A proposer whose revision fails keeps its previous proposal.
    """
    prompts = runner.prompts
    request_text = packet.render() + "\n\n# Remarks from the aggregator\n" + (runner.redaction(remarks) or "(none)")
    runner.resubmit(iteration, request_text)
    requests = {
        name: (
            prompts.proposer_system(name),
            user_message(
                context,
                query,
                prompts.synthesis_user(name)
                + "\n\n"
                + request_text
                + f"\n\nYour own proposal was Proposed Reply {packet.number_of(name)}.",
            ),
        )
        for name in packet.authors
    }
    try:
        replies = await runner.propose(requests, query)
    except AllProposersFailed:
        return {}
    return {name: reply.text for name, reply in replies.items()}
