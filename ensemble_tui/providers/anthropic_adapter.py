"""Claude through the official `anthropic` SDK: Files beta + beta Messages API.

The PDF goes up once through the Files beta and is referenced by a `document` block with a
file source. Two prompt-cache breakpoints make later turns and aggregator passes cheap: one on
the document block (system + tools + PDF), one on the last block of the history before the new
user turn. anthropic 2.x has no sampling parameters at all, so no temperature is ever sent.

A reasoning effort turns thinking on, in the form the model takes: Claude 4.6 and later (and
the whole Claude 5 family, which answers 400 to the older form) take adaptive thinking with
`output_config.effort`; Claude 4.5 and earlier only know a manual `budget_tokens`. The
configuration has no field for this, so the form is read from the model id's version number.
Thinking tokens count towards `max_tokens`, which is raised by the budget so the answer keeps
its room.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from ensemble_tui.core.provider import CallRequest, Message, OutputSchema, Reply, Usage
from ensemble_tui.providers.base import (
    DEFAULT_TIMEOUT_S,
    FILE_OP_TIMEOUT_S,
    PDF_MIME,
    SdkProvider,
    dedupe,
    first_user_index,
    turn_text,
)
from ensemble_tui.providers.errors import (
    CallContext,
    FileGone,
    classify_other,
    classify_status,
    connection_failed,
    declined,
    mentions_file,
    retry_after_seconds,
    timed_out,
)
from ensemble_tui.providers.uploads import RemoteFile

DEFAULT_BASE_URL = "https://api.anthropic.com"
FILES_BETA = "files-api-2025-04-14"
MAX_OUTPUT_TOKENS = 16_000
MAX_SEARCHES_PER_CALL = 5  # caps the per-search fee of one call when the request sets no cap
MAX_CONTINUATIONS = 3  # `pause_turn` resends; a long server-side search loop must still end
EPHEMERAL = {"type": "ephemeral"}
WEB_SEARCH_TOOL = {"type": "web_search_20250305", "name": "web_search", "max_uses": MAX_SEARCHES_PER_CALL}
# Thinking tokens per reasoning effort: the manual budget (at least 1,024) on older models, and
# the extra output room given to adaptive thinking on newer ones.
THINKING_BUDGETS: dict[str, int] = {"low": 2_048, "medium": 8_192, "high": 24_576}
MIN_THINKING_BUDGET = 1_024  # the API's minimum for a manual budget
ADAPTIVE_SINCE = (4, 6)  # the first Claude version with adaptive thinking
_VERSION_PART = re.compile(r"[-.:@_]")
PARAGRAPH_BREAK = "\n\n"
# Blocks that do not interrupt the text: the model's reasoning is not a step it took outside it.
NOT_A_PAUSE = frozenset({"text", "thinking", "redacted_thinking"})


class AnthropicProvider(SdkProvider):
    base_url_env = "ANTHROPIC_BASE_URL"
    warm_paths = ("beta.messages", "beta.files")
    warm_models = ("anthropic.types.beta.BetaMessage",)
    default_base_url = DEFAULT_BASE_URL
    keeps_files = True

    def _make_client(self) -> Any:
        from anthropic import AsyncAnthropic

        return AsyncAnthropic(
            api_key=self.credentials.key,
            base_url=self.base_url,
            max_retries=0,  # the engine owns retries
            timeout=DEFAULT_TIMEOUT_S,
        )

    async def _upload_pdf(self, pdf: Path) -> str:
        data = await asyncio.to_thread(pdf.read_bytes)
        try:
            uploaded = await self._client().beta.files.upload(
                file=(pdf.name, data, PDF_MIME), betas=[FILES_BETA], timeout=self.upload_timeout_s
            )
        except Exception as exc:
            raise self._error(exc, self.context(), None, self.upload_timeout_s) from None
        return str(uploaded.id)

    async def _delete_file(self, file_id: str) -> bool:
        import anthropic

        try:
            await self._client().beta.files.delete(file_id, betas=[FILES_BETA], timeout=FILE_OP_TIMEOUT_S)
        except anthropic.NotFoundError:
            return False
        except Exception as exc:
            raise self._error(exc, self.context(), None, FILE_OP_TIMEOUT_S) from None
        return True

    async def _list_files(self) -> list[RemoteFile]:
        """PDFs in the Files beta, every page."""
        try:
            return [
                RemoteFile(str(item.id), item.filename, item.size_bytes, item.created_at, item.expires_at)
                async for item in self._client().beta.files.list(betas=[FILES_BETA], timeout=FILE_OP_TIMEOUT_S)
                if item.mime_type == PDF_MIME
            ]
        except Exception as exc:
            raise self._error(exc, self.context(), None, FILE_OP_TIMEOUT_S) from None

    async def _call(self, request: CallRequest, file_ref: str | None) -> Reply:
        messages = build_messages(request.messages, file_ref)
        kwargs: dict[str, Any] = {
            "model": request.model,
            "betas": [FILES_BETA],
            # an explicit timeout also skips the SDK's "use streaming for long requests" refusal
            "timeout": request.timeout_s,
        }
        if request.system:
            kwargs["system"] = request.system
        if request.output_schema is not None:
            # A forced tool admits neither thinking nor a search first: the tool is the whole reply.
            kwargs.update(forced_tool(request.output_schema))
            kwargs.update(thinking_options(request.model, None, request.max_output_tokens))
        else:
            if request.web_search:
                kwargs["tools"] = [dict(WEB_SEARCH_TOOL)]
            kwargs.update(thinking_options(request.model, request.reasoning_effort, request.max_output_tokens))
        limit = kwargs["max_tokens"]
        # `max_uses` bounds one request's searches; continuations share the call's allowance, so
        # the budget's bound on the call's search fees (request.max_searches) holds across them.
        searches = request.max_searches or MAX_SEARCHES_PER_CALL
        searching = request.web_search and request.output_schema is None
        blocks: list[Any] = []
        usage = Usage()
        cut = False
        for _ in range(MAX_CONTINUATIONS + 1):
            kwargs["max_tokens"] = limit - usage.output_tokens  # continuations share the call's limit
            if searching:
                kwargs["tools"] = [{**WEB_SEARCH_TOOL, "max_uses": max(1, searches - usage.web_searches)}]
            try:
                message = await self._client().beta.messages.create(messages=messages, **kwargs)
            except Exception as exc:
                raise self._error(exc, self.context(request.model), file_ref, request.timeout_s) from None
            usage = usage + read_usage(message)
            if message.stop_reason == "refusal":  # any text before the stop is cut off mid-answer
                raise declined(self.label, "refusal", usage)
            blocks.extend(message.content)
            cut = message.stop_reason == "max_tokens"
            if message.stop_reason != "pause_turn" or usage.output_tokens >= limit:
                break
            if searching and usage.web_searches >= searches:
                break  # the call's searches are spent: another round could only search again
            # The server paused a long tool loop: send its partial turn back so it continues.
            paused = [block.model_dump(mode="json", exclude_none=True) for block in message.content]
            messages = [*messages, {"role": "assistant", "content": paused}]
        if request.output_schema is not None:
            return Reply(tool_input_json(blocks, request.output_schema.name), usage, truncated=cut)
        return Reply(join_text_blocks(blocks), usage, cited_urls(blocks), truncated=cut)

    def _error(self, exc: Exception, ctx: CallContext, file_ref: str | None, timeout_s: float) -> Exception:
        import anthropic

        if isinstance(exc, anthropic.APITimeoutError):
            return timed_out(ctx, timeout_s)
        if isinstance(exc, anthropic.APIConnectionError):
            return connection_failed(ctx, exc)
        if isinstance(exc, anthropic.APIStatusError):
            message = str(exc.api_message or "")
            error_type = str(exc.type or "")
            error_code = str(exc.error_code or "")
            if exc.status_code in (400, 404) and (
                error_code == "file_expired" or mentions_file(file_ref, message, loose=exc.status_code == 404)
            ):
                return FileGone()
            return classify_status(
                ctx,
                exc.status_code,
                message,
                retry_after=retry_after_seconds(exc.response.headers),
                code=error_code or error_type,
                overloaded=error_type == "overloaded_error",
                key_problem=error_type == "authentication_error",
            )
        return classify_other(ctx, exc)


def forced_tool(output: OutputSchema) -> dict[str, Any]:
    """Structured output through tool use: one tool whose `input_schema` is the schema, and
    `tool_choice` forcing the model to call it; its `input` is the JSON reply."""
    tool: dict[str, Any] = {"name": output.name, "input_schema": dict(output.schema)}
    if output.description:
        tool["description"] = output.description
    return {"tools": [tool], "tool_choice": {"type": "tool", "name": output.name}}


def tool_input_json(blocks: list[Any], name: str) -> str:
    """The forced tool's `input` as JSON text; without such a block, the text blocks (which
    then fail the caller's validation and get its repair request)."""
    for block in blocks:
        if block.type == "tool_use" and block.name == name:
            return json.dumps(block.input, ensure_ascii=False)
    return join_text_blocks(blocks)


def join_text_blocks(blocks: list[Any]) -> str:
    """The answer as the model wrote it, from the text blocks of one turn (continuations included).

    Citations split a sentence into several text blocks that follow each other directly: those
    join as they are. A search (`server_tool_use`, `web_search_tool_result`, or any other tool
    block) between two text blocks ends a paragraph: the model wrote "I'll search for it." before
    the search and the answer after it, so they get a paragraph break, not "it.Here".
    """
    text = ""
    searched_since_text = False
    for block in blocks:
        if block.type == "text":
            if searched_since_text and text.strip() and block.text.strip():
                text = text.rstrip() + PARAGRAPH_BREAK + block.text.lstrip("\n")
            else:
                text += block.text
            searched_since_text = False
        elif block.type not in NOT_A_PAUSE:
            searched_since_text = True
    return text


def cited_urls(blocks: list[Any]) -> tuple[str, ...]:
    """The web pages the text blocks cite, in order, once each."""
    return dedupe(
        [
            citation.url
            for block in blocks
            if block.type == "text"
            for citation in block.citations or ()
            if getattr(citation, "type", "") == "web_search_result_location"
        ]
    )


def claude_version(model: str) -> tuple[int, int] | None:
    """(major, minor) from a model id: `claude-sonnet-4-6` -> (4, 6), `claude-3-7-sonnet-20250219`
    -> (3, 7), `claude-sonnet-5` -> (5, 0); a trailing date is not a version. None if absent."""
    numbers = [int(part) for part in _VERSION_PART.split(model.lower()) if part.isdigit() and len(part) <= 2]
    if not numbers:
        return None
    return numbers[0], numbers[1] if len(numbers) > 1 else 0


def thinking_options(model: str, effort: str | None, limit: int | None = None) -> dict[str, Any]:
    """The request fields for a reasoning effort and an output-token limit (`max_tokens`, which
    thinking counts towards; without a limit, MAX_OUTPUT_TOKENS plus the thinking budget).

    A model id without a version number (an alias on a gateway) gets the adaptive form: every
    model released since 4.6 takes it, and the newest reject the manual one. A manual budget
    takes at most half the limit and is left out below its minimum of 1,024.
    """
    if effort is None:
        return {"max_tokens": limit or MAX_OUTPUT_TOKENS}
    budget = THINKING_BUDGETS[effort]
    max_tokens = limit or MAX_OUTPUT_TOKENS + budget
    version = claude_version(model)
    if version is None or version >= ADAPTIVE_SINCE:
        return {"thinking": {"type": "adaptive"}, "output_config": {"effort": effort}, "max_tokens": max_tokens}
    budget = min(budget, max_tokens // 2)
    if budget < MIN_THINKING_BUDGET:
        return {"max_tokens": max_tokens}
    return {"thinking": {"type": "enabled", "budget_tokens": budget}, "max_tokens": max_tokens}


def build_messages(messages: tuple[Message, ...], file_ref: str | None) -> list[dict[str, Any]]:
    """Turns as content blocks, with the document first in the first user turn.

    Cache breakpoints: the document block, and the last block before the new user turn, so the
    next call (a later turn, or the aggregator after the proposers) reads them from the cache.
    """
    with_file = first_user_index(messages) if file_ref else None
    result: list[dict[str, Any]] = []
    for index, turn in enumerate(messages):
        blocks: list[dict[str, Any]] = [{"type": "text", "text": turn_text(turn)}]
        if index == with_file:
            document = {"type": "document", "source": {"type": "file", "file_id": file_ref}}
            blocks.insert(0, {**document, "cache_control": dict(EPHEMERAL)})
        result.append({"role": turn.role, "content": blocks})
    if len(result) >= 2:
        last_history_block = result[-2]["content"][-1]
        last_history_block["cache_control"] = dict(EPHEMERAL)
    return result


def read_usage(message: Any) -> Usage:
    """Anthropic's `input_tokens` exclude cache reads and writes, which come separately."""
    usage = message.usage
    server_tools = getattr(usage, "server_tool_use", None)
    return Usage(
        input_tokens=usage.input_tokens or 0,
        cached_input_tokens=usage.cache_read_input_tokens or 0,
        cache_write_tokens=usage.cache_creation_input_tokens or 0,
        output_tokens=usage.output_tokens or 0,
        web_searches=(server_tools.web_search_requests or 0) if server_tools is not None else 0,
    )
