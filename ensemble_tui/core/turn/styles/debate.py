"""Debate: rounds of revised answers with messages to named (lettered) peers, then every
agent ranks the others' final answers; Borda count and medals pick the final reply."""

from __future__ import annotations

from functools import partial

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.core.chat.provenance import VoteRow, points
from ensemble_tui.core.chat.runlog import Artifact
from ensemble_tui.core.provider import Reply
from ensemble_tui.core.turn.runner import TurnRunner, user_message
from ensemble_tui.core.turn.styles.borda import Ballot, Standing, borda_count, medals
from ensemble_tui.core.turn.styles.council import parse_ranking, ranking_prompt, ranking_repair
from ensemble_tui.core.turn.styles.debate_reply import DebateReply, parse_debate_reply
from ensemble_tui.core.turn.styles.labels import Labelling, letters
from ensemble_tui.core.turn.styles.reviews import collect_reviews

RANKING_STATUS = "Ranking final answers…"


def round_status(number: int, rounds: int) -> str:
    return f"Debate round {number} of {rounds}…"


class Debate:
    """The state of one debate: fixed anonymous letters, latest answers, pending messages."""

    def __init__(self, runner: TurnRunner, query: str, answers: dict[str, str]) -> None:
        self.runner = runner
        self.query = query
        authors = list(answers)
        runner.rng.shuffle(authors)
        self.letter = dict(zip(authors, letters(len(authors)), strict=True))
        self.author = {letter: author for author, letter in self.letter.items()}
        self.answers = dict(answers)
        self.inbox: dict[str, dict[str, str]] = {author: {} for author in authors}  # to -> from letter -> text

    def peers_of(self, author: str) -> Labelling:
        return Labelling({self.letter[a]: a for a in sorted(self.answers, key=self.letter.get) if a != author})

    def round_prompt(self, author: str, number: int, rounds: int) -> str:
        peers = self.peers_of(author)
        inbox = self.inbox[author]
        redaction = self.runner.redaction
        messages = "\n\n".join(f"From Agent {sender}:\n{redaction(text)}" for sender, text in sorted(inbox.items()))
        return self.runner.prompts.deliberation(
            "DebateRoundPrompt",
            agent=self.letter[author],
            round=str(number),
            rounds=str(rounds),
            own_answer=self.answers[author],
            answers=peers.render(self.answers, redaction, heading="Agent"),
            messages=messages or "(none)",
            peers=", ".join(peers.labels),
        )

    async def play_round(self, number: int, rounds: int) -> None:
        runner = self.runner
        prompts = runner.prompts
        context = runner.history()
        runner.round += 1

        async def speak(author: str) -> DebateReply:
            peers = self.peers_of(author).labels
            reply, parsed, problem = await runner.call_parsed(
                author,
                "proposer",
                prompts.proposer_system(author),
                user_message(context, self.query, self.round_prompt(author, number, rounds)),
                lambda text: parse_debate_reply(text, peers),
                prompts.deliberation("DebateRepairPrompt", peers=", ".join(peers)),
            )
            return parsed or DebateReply(reply.text.strip())  # a broken format is kept as a plain answer

        jobs = {author: partial(speak, author) for author in self.answers}
        replies = await runner.gather(jobs, status=round_status(number, rounds))
        self.inbox = {author: {} for author in self.answers}
        for author, reply in replies.items():
            self.answers[author] = reply.answer
            runner.remember(author, self.query, reply.answer)
            for peer_letter, message in reply.messages.items():
                self.inbox[self.author[peer_letter]][self.letter[author]] = message
            runner.record.artifacts.append(
                Artifact(
                    "debate",
                    author,
                    reply.answer,
                    round=number,
                    data={"agent": self.letter[author], "rationale": reply.rationale, "messages": reply.messages},
                )
            )


def medal_line(standings: list[Standing], awarded: dict[str, str], rounds: int) -> str:
    parts = [f"{medal} {author} ({points(value)})" for author, medal, value in _medal_order(standings, awarded)]
    return f"*Debate over {rounds} rounds: " + ", ".join(parts) + ".*"


def _medal_order(standings: list[Standing], awarded: dict[str, str]) -> list[tuple[str, str, float]]:
    return [(s.author, awarded[s.author], s.points) for s in standings if s.author in awarded]


async def run_debate(runner: TurnRunner, query: str) -> Reply:
    rounds = runner.context.debate_rounds
    debate = Debate(runner, query, await runner.first_answers(query))
    if len(debate.answers) > 1:
        for number in range(2, rounds + 1):
            await debate.play_round(number, rounds)
    runner.map_claims(debate.answers)  # the final answers: mapped beside the rankings
    reviews = await collect_reviews(
        runner,
        query,
        {author: debate.peers_of(author) for author in debate.answers} if len(debate.answers) > 1 else {},
        prompt=lambda labelling: ranking_prompt(runner, debate.answers, labelling),
        repair=lambda labelling: ranking_repair(runner, labelling),
        parse=parse_ranking,
        status=RANKING_STATUS,
        kind="ranking",
    )
    ballots = [Ballot(r.reviewer, tuple(r.parsed)) for r in reviews.values() if r.parsed is not None]
    standings = borda_count(ballots, list(debate.answers))
    awarded = medals(standings)
    runner.count_votes(
        Style.DEBATE,
        tuple(VoteRow(s.author, s.rank, s.points, s.first_places, medal=awarded.get(s.author)) for s in standings),
    )
    line = medal_line(standings, awarded, rounds)
    runner.record.artifacts.append(
        Artifact("vote", "", line, data={"standings": [vars(s) for s in standings], "medals": awarded})
    )
    return Reply(debate.answers[standings[0].author])  # the medals go beside the reply, not in it
