"""The engine: runs one turn in a mode and yields typed events as it goes.

A turn runs in its own task and talks to the consumer through a queue, so cancelling the
consumer (a Textual worker, Ctrl-C in `ask`) cancels the turn and its calls at once. State is
committed only when the turn ends: a cancelled run leaves nothing behind but the money spent.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from ensemble_tui.core import aggregate  # noqa: F401 - registers the default style
from ensemble_tui.core.costs import check_budget, estimate_call_cost, usage_cost
from ensemble_tui.core.deliberation import council, debate_turn, vote  # noqa: F401 - register the other styles
from ensemble_tui.core.events import CostUpdated, EngineEvent, Notice
from ensemble_tui.core.modes import RunMode, Style
from ensemble_tui.core.provider import CallRequest, ErrorKind, ProviderError, Reply, Turn, Usage
from ensemble_tui.core.retry import CallRole, RetryPolicy
from ensemble_tui.core.runlog import CallRecord, TurnRecord
from ensemble_tui.core.sanitize import strip_control
from ensemble_tui.core.turn import TurnRunner
from ensemble_tui.core.workspace import Workspace

log = logging.getLogger(__name__)

_DONE = object()
Sleep = Callable[[float], Awaitable[None]]


class Engine:
    """Runs turns for one Workspace; only one turn runs at a time."""

    def __init__(
        self,
        workspace: Workspace,
        *,
        retry: RetryPolicy | None = None,
        rng: random.Random | None = None,
        sleep: Sleep = asyncio.sleep,
        timeout_s: float = 180.0,
    ) -> None:
        self.workspace = workspace
        self.retry = retry or RetryPolicy()
        self.rng = rng or random.Random()
        self.sleep = sleep
        self.timeout_s = timeout_s
        self._task: asyncio.Task[None] | None = None
        self._warned_models: set[str] = set()
        self.prompt_warnings_shown = 0  # placeholder typos are reported once each

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def cancel(self) -> None:
        """Cancel the turn in flight, if any, and wait until it has rolled back."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def run(self, mode: RunMode, text: str, style: Style = Style.AGGREGATE) -> AsyncIterator[EngineEvent]:
        """Run a turn: `text` is the new input, or empty to redo the last reply.

        `style` decides how a multi-model mode deliberates; single modes ignore it.
        """
        await self.cancel()
        queue: asyncio.Queue[object] = asyncio.Queue()
        runner = TurnRunner(self, mode, text, queue.put_nowait, style)
        task = asyncio.create_task(runner.execute())
        task.add_done_callback(lambda _: queue.put_nowait(_DONE))
        self._task = task
        try:
            while (event := await queue.get()) is not _DONE and self._task is task:
                yield event  # type: ignore[misc]
        finally:
            if not task.done():
                task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            if self._task is task:
                self._task = None

    # The pieces below are used by TurnRunner; they hold the rules shared by every role.

    def note_unknown_model(self, provider: str, model: str, emit: Callable[[EngineEvent], None]) -> None:
        spec = self.workspace.configs[provider].model(model)
        key = f"{provider}/{model}"
        if (spec is None or not spec.price_known) and key not in self._warned_models:
            self._warned_models.add(key)
            emit(Notice(f"{provider}: no prices known for {model}; its cost is estimated cautiously."))

    def request(self, provider: str, system: str, messages: tuple[Turn, ...], pdf: Path | None) -> CallRequest:
        workspace = self.workspace
        model = workspace.model_for(provider)
        spec = workspace.configs[provider].spec_or_cautious(model)
        effort = workspace.settings.reasoning.get(provider, "off")
        return CallRequest(
            model=model,
            system=system,
            messages=messages,
            pdf=pdf,
            temperature=workspace.settings.temperature if spec.temperature else None,
            web_search=spec.web_search,
            timeout_s=self.timeout_s,
            reasoning_effort=effort if spec.reasoning and effort != "off" else None,
        )

    async def call(
        self,
        provider: str,
        role: CallRole,
        request: CallRequest,
        *,
        record: TurnRecord,
        in_flight: dict[object, float],
        pdf_bytes: int,
        emit: Callable[[EngineEvent], None],
    ) -> Reply:
        """One call with the retry policy for `role` and the budget guard before each attempt."""
        workspace = self.workspace
        adapter = workspace.providers[provider]
        spec = workspace.configs[provider].spec_or_cautious(request.model)
        retries = 0
        while True:
            estimate = estimate_call_cost(spec, request, pdf_bytes)
            check_budget(workspace.session.cost_usd, sum(in_flight.values()), estimate, workspace.settings.budget_usd)
            token = object()
            in_flight[token] = estimate
            started = time.monotonic()
            try:
                async with asyncio.timeout(request.timeout_s + min(5.0, request.timeout_s)):
                    reply = await adapter.complete(request)
                if not reply.text.strip():
                    raise ProviderError(ErrorKind.TRANSIENT, f"{provider}: returned an empty reply", usage=reply.usage)
            except (ProviderError, TimeoutError) as exc:
                error = (
                    exc
                    if isinstance(exc, ProviderError)
                    else ProviderError(ErrorKind.TRANSIENT, f"{provider}: no answer within {request.timeout_s:g} s")
                )
                billed = error.usage or Usage()  # a refusal or an empty reply is still paid for
                failed_cost = usage_cost(spec, billed)
                if failed_cost:
                    workspace.session.cost_usd += failed_cost
                    record.turn_cost_usd += failed_cost
                    emit(CostUpdated(workspace.session.cost_usd))
                record.calls.append(
                    CallRecord(
                        provider,
                        request.model,
                        role,
                        retries + 1,
                        time.monotonic() - started,
                        error.message,
                        billed,
                        failed_cost,
                    )
                )
                log.info("%s %s attempt %d failed: %s", provider, role, retries + 1, error.message)
                allowed = self.retry.retries_allowed(role, error)
                delay = self.retry.delay_s(retries + 1, error, self.rng) if retries < allowed else None
                if delay is None:
                    raise error from None
                retries += 1
                await self.sleep(delay)
                continue
            finally:
                in_flight.pop(token, None)
            cost = usage_cost(spec, reply.usage)
            workspace.session.cost_usd += cost
            record.turn_cost_usd += cost
            record.calls.append(
                CallRecord(
                    provider, request.model, role, retries + 1, time.monotonic() - started, "ok", reply.usage, cost
                )
            )
            emit(CostUpdated(workspace.session.cost_usd))
            sources = tuple(strip_control(url) for url in reply.sources if url.startswith(("http://", "https://")))
            return Reply(strip_control(reply.text).strip(), reply.usage, sources)
