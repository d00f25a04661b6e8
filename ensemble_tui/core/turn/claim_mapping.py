"""The mapping call of a turn: started beside the pass that reads the last proposals, and never
allowed to hold the reply back.

The styles call `TurnRunner.map_claims(proposals)` as they send the aggregator's (chairman's,
reviewers') pass, so the map costs no wave of its own. When the reply is ready the engine takes
the map if it is drawn (`in_hand`), and otherwise commits the reply at once and awaits the map
afterwards (`late`): it is then kept with the run record and shown under the reply. A cancelled
or superseded turn drops its map. A later pass's map supersedes an earlier one (an aggregator
asking for another round): the earlier call is left to finish and its map dropped, since
cancelling a call in flight would bill its worst case; the calls still out when the reply is
ready are cancelled. Only the turn's own map is announced (by the engine's events): an earlier
pass's never reaches the status line. A map left out says so once, as a typed event
(ClaimsLeftOut): at once during the turn, or, when it was still out at the reply, after it is
stored (core/turn/late_map.py).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from ensemble_tui.core.chat.runlog import Artifact
from ensemble_tui.core.claims.evidence import resolve
from ensemble_tui.core.claims.model import ClaimMap
from ensemble_tui.core.claims.wire import claim_map_schema, parse_wire_map
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.provider import ProviderError
from ensemble_tui.core.turn.costs import BudgetExceeded
from ensemble_tui.core.turn.events import ClaimsLeftOut
from ensemble_tui.core.turn.runner import TurnRunner, user_message
from ensemble_tui.core.turn.styles.labels import shuffled_labelling

log = logging.getLogger(__name__)


@dataclass
class ClaimMapping:
    """One turn's claim map. `mapper` is the provider that draws it; `rng` shuffles its letters
    (its own, so the map never changes the order the aggregator's packets are shuffled in)."""

    mapper: str
    pdf: Path | None
    cache_dir: Path
    rng: random.Random = field(default_factory=random.Random)
    _task: asyncio.Task[ClaimMap | None] | None = field(default=None, repr=False)
    _superseded: list[asyncio.Task[ClaimMap | None]] = field(default_factory=list, repr=False)
    left_out: str | None = None  # why the turn's map was left out, if it was
    _late: bool = False  # still out at the reply: its outcome is announced after it is stored

    def start(self, runner: TurnRunner, proposals: dict[str, str]) -> None:
        """Start the mapping call on `proposals` now (it runs beside the caller's next call)."""
        if self._task is not None:
            self._superseded.append(self._task)
        for artifact in runner.record.artifacts:  # an earlier pass's map, drawn already, is not the turn's
            if artifact.kind == "claims":
                artifact.data["superseded"] = True
        self._task = asyncio.create_task(self._draw(runner, proposals)) if len(proposals) > 1 else None

    def _current(self) -> bool:
        """Whether the running mapping call is the latest one (a superseded map is dropped quietly)."""
        return self._task is None or asyncio.current_task() is self._task

    async def settle(self, runner: TurnRunner, grace_s: float) -> ClaimMap | None:
        """The map, if it is ready within `grace_s`; else it is cancelled and left out (one line)."""
        task = self._task
        if task is None:
            await self.abandon()
            return None
        done, _ = await asyncio.wait({task}, timeout=grace_s)
        self._task = None
        await self.abandon()
        if not done:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            self.left_out = "it was not ready when the reply was"
            runner.emit(ClaimsLeftOut(self.left_out))
            runner.record.artifacts.append(Artifact("claims", self.mapper, "", data={"problem": "not ready in time"}))
            return None
        return task.result()

    async def in_hand(self) -> tuple[bool, ClaimMap | None]:
        """At the reply, without waiting: (whether the map is still being drawn, the map if it is
        drawn). The calls of earlier passes, whose maps are dropped anyway, are cancelled."""
        superseded, self._superseded = self._superseded, []
        for task in superseded:
            task.cancel()
        await asyncio.gather(*superseded, return_exceptions=True)
        task = self._task
        if task is None:
            return False, None
        if not task.done():
            self._late = True
            return True, None
        self._task = None
        return False, task.result()

    async def late(self) -> ClaimMap | None:
        """The map still out at the reply, awaited; None if it is left out (a line said why). A
        cancel (the turn superseded, the app closed) cancels the call: its map is dropped."""
        task = self._task
        if task is None:
            return None
        try:
            return await task
        finally:
            self._task = None

    async def abandon(self) -> None:
        """Cancel every mapping call still out (the turn ended, or failed)."""
        tasks = [*self._superseded, *([self._task] if self._task is not None else [])]
        self._superseded = []
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _draw(self, runner: TurnRunner, proposals: dict[str, str]) -> ClaimMap | None:
        """One mapping call (one repair request if unreadable); None, with one line, if it fails."""
        caller = runner.context.caller
        labelling = shuffled_labelling(list(proposals), self.rng)
        letters = labelling.labels
        prompts = runner.prompts
        started = time.monotonic()
        try:
            # `render` redacts each proposal (the aggregator's packet redacted the same texts: a
            # cache hit); redacting them first made it redact five redacted copies again, ~20 ms.
            answers = labelling.render(proposals, runner.redaction, heading="Answer")
            prompt = prompts.claim_map(", ".join(letters), answers)
            reply, parsed, problem = await runner.call_parsed(
                self.mapper,
                "mapper",
                "",
                user_message(runner.history(), runner.context.query, prompt),
                lambda text: parse_wire_map(text, letters),
                prompts.claim_map_repair(", ".join(letters)),
                claim_map_schema(letters),
            )
        except ProviderError as exc:
            return self._left_out(runner, exc.message, "")
        except (BudgetExceeded, EnsembleError) as exc:  # the map is optional, the reply is not
            return self._left_out(runner, str(exc), "")
        except Exception as exc:
            log.exception("claim map failed")
            return self._left_out(runner, f"unexpected error ({type(exc).__name__})", "")
        if not self._current():
            runner.record.artifacts.append(Artifact("claims", self.mapper, reply.text, data={"superseded": True}))
            return None
        if parsed is None:
            return self._left_out(runner, f"the mapper's reply could not be read ({problem})", reply.text)
        model = caller.model_for(self.mapper)
        claim_map = await asyncio.to_thread(
            resolve, parsed, labelling.by_label, self.pdf, self.cache_dir, mapper=self.mapper, model=model
        )
        if not self._current():  # superseded while its quotes were checked
            runner.record.artifacts.append(Artifact("claims", self.mapper, reply.text, data={"superseded": True}))
            return None
        data = {"map": claim_map.model_dump(mode="json"), "latency_s": runner.timed(started)}
        runner.record.artifacts.append(Artifact("claims", self.mapper, reply.text, data=data))
        return claim_map

    def _left_out(self, runner: TurnRunner, why: str, text: str) -> None:
        if not self._current():
            return None
        self.left_out = why
        if not self._late:  # else the late map says so once it is stored (late_map.py)
            runner.emit(ClaimsLeftOut(why))
        runner.record.artifacts.append(Artifact("claims", self.mapper, text, data={"problem": why}))
        return None
