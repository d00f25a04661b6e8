"""ChatGPT through the official `openai` SDK: Files API + Responses API.

The PDF goes up once with `purpose="user_data"` and an `expires_after` as long as the upload
retention period, and is referenced as an `input_file` part;
the system prompt goes in `instructions`; web search is the `web_search` tool, and the URLs the
reply cites come from its `url_citation` annotations. A reasoning effort goes in
`reasoning.effort`; temperature is then left out, since OpenAI's reasoning models accept it only
with reasoning off (gpt-5.1 answers 400 to both together).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ensemble_tui.core.provider import CallRequest, ErrorKind, Message, OutputSchema, ProviderError, Reply, Usage
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
from ensemble_tui.providers.uploads import RemoteFile, Uploaded

DEFAULT_BASE_URL = "https://api.openai.com/v1"
WEB_SEARCH_TOOL = {"type": "web_search"}
# The range the Files API accepts for `expires_after.seconds`: one hour to 30 days.
EXPIRY_RANGE_S = (3_600, 2_592_000)


def expiry_seconds(retention_s: float) -> int:
    """An upload expires when the clean-up would delete it unused (the retention period, within
    the API's range), so nothing is left behind even if the app is never opened again. A chat
    still in use past then re-uploads once, without asking."""
    low, high = EXPIRY_RANGE_S
    return max(low, min(high, int(retention_s)))


class OpenAIProvider(SdkProvider):
    base_url_env = "OPENAI_BASE_URL"
    warm_paths = ("responses", "files")
    warm_models = ("openai.types.responses.Response",)
    default_base_url = DEFAULT_BASE_URL
    keeps_files = True

    def _make_client(self) -> Any:
        from openai import AsyncOpenAI

        return AsyncOpenAI(
            api_key=self.credentials.key,
            # explicit, so a `base_url` from the configuration file or a test's env wins
            base_url=self.base_url,
            max_retries=0,  # the engine owns retries
            timeout=DEFAULT_TIMEOUT_S,
        )

    async def _upload_pdf(self, pdf: Path) -> Uploaded:
        data = await asyncio.to_thread(pdf.read_bytes)
        try:
            uploaded = await self._client().files.create(
                file=(pdf.name, data, PDF_MIME),
                purpose="user_data",
                expires_after={"anchor": "created_at", "seconds": expiry_seconds(self.retention_s)},
                timeout=self.upload_timeout_s,
            )
        except Exception as exc:
            raise self._error(exc, self.context(), None, self.upload_timeout_s) from None
        expires = uploaded.expires_at
        return Uploaded(str(uploaded.id), expires_at=datetime.fromtimestamp(expires, UTC) if expires else None)

    async def _delete_file(self, file_id: str) -> bool:
        import openai

        try:
            await self._client().files.delete(file_id, timeout=FILE_OP_TIMEOUT_S)
        except openai.NotFoundError:
            return False
        except Exception as exc:
            raise self._error(exc, self.context(), None, FILE_OP_TIMEOUT_S) from None
        return True

    async def _list_files(self) -> list[RemoteFile]:
        """Files with the purpose the app uploads with (`user_data`), every page."""
        try:
            return [
                RemoteFile(
                    str(item.id),
                    item.filename,
                    item.bytes,
                    datetime.fromtimestamp(item.created_at, UTC),
                    datetime.fromtimestamp(item.expires_at, UTC) if item.expires_at else None,
                )
                async for item in self._client().files.list(purpose="user_data", timeout=FILE_OP_TIMEOUT_S)
            ]
        except Exception as exc:
            raise self._error(exc, self.context(), None, FILE_OP_TIMEOUT_S) from None

    async def _call(self, request: CallRequest, file_ref: str | None) -> Reply:
        kwargs: dict[str, Any] = {
            "model": request.model,
            "input": build_input(request.messages, file_ref),
            "timeout": request.timeout_s,
        }
        if request.system:
            kwargs["instructions"] = request.system
        if request.web_search:
            kwargs["tools"] = [dict(WEB_SEARCH_TOOL)]
            if request.max_searches is not None:  # the budget's bound on the call's search fees
                kwargs["max_tool_calls"] = request.max_searches
        if request.reasoning_effort is not None:
            kwargs["reasoning"] = {"effort": request.reasoning_effort}
        elif request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if request.max_output_tokens is not None:
            kwargs["max_output_tokens"] = request.max_output_tokens
        if request.output_schema is not None:
            kwargs["text"] = {"format": json_schema_format(request.output_schema)}
        try:
            # The SDK has `input`; the history goes in through `extra_body` only to skip the SDK's
            # transform of it (sent_as_is: 186 ms of CPU a call at 1000 turns against 7 ms).
            response = await self._client().responses.create(**sent_as_is(kwargs, "input"))
        except Exception as exc:
            raise self._error(exc, self.context(request.model), file_ref, request.timeout_s) from None
        if getattr(response, "error", None) is not None:
            raise ProviderError(ErrorKind.TRANSIENT, f"{self.label}: the response failed ({response.error.code})")
        withheld = withheld_reason(response)
        if withheld is not None:
            raise declined(self.label, withheld, read_usage(response))
        details = getattr(response, "incomplete_details", None)
        cut = response.status == "incomplete" and getattr(details, "reason", None) == "max_output_tokens"
        return Reply(response.output_text, read_usage(response), read_sources(response), truncated=cut)

    def _error(self, exc: Exception, ctx: CallContext, file_ref: str | None, timeout_s: float) -> Exception:
        import openai

        if isinstance(exc, openai.APITimeoutError):
            return timed_out(ctx, timeout_s)
        if isinstance(exc, openai.APIConnectionError):
            return connection_failed(ctx, exc)
        if isinstance(exc, openai.APIStatusError):
            body = exc.body if isinstance(exc.body, dict) else {}
            message = str(body.get("message") or "")
            code = str(body.get("code") or "")
            param = str(body.get("param") or "")
            if exc.status_code in (400, 404) and code != "model_not_found":
                if mentions_file(file_ref, message, code, param, loose=exc.status_code == 404):
                    return FileGone()
            return classify_status(
                ctx,
                exc.status_code,
                message,
                retry_after=retry_after_seconds(exc.response.headers),
                code=code,
            )
        return classify_other(ctx, exc)


def json_schema_format(output: OutputSchema) -> dict[str, Any]:
    """The Responses API's `text.format` for a JSON reply matching the schema (strict: the
    schema lists every property as required and allows no others)."""
    fmt: dict[str, Any] = {"type": "json_schema", "name": output.name, "schema": dict(output.schema), "strict": True}
    if output.description:
        fmt["description"] = output.description
    return fmt


def sent_as_is(kwargs: dict[str, Any], field: str) -> dict[str, Any]:
    """`kwargs` with `field` (the chat history) moved into `extra_body`, which the openai SDK
    merges into the JSON body as given.

    The SDK has the parameter (`input`, `messages`), but its request transform walks every
    history item against every variant of the param's union type: with openai 3.57, 186 ms of
    CPU a Responses call and 158 ms a Chat Completions call at 1000 turns (7 ms each this way;
    10 and 8 ms against 0.7 ms at 45 turns), on every call, holding the GIL the app's event
    loop needs, and one proposer after another on the provider loop. It would change nothing
    here: the items are already in wire form (a role, text, a file part), with no aliased or
    formatted fields for it to rewrite. The bytes sent are the same. Issue 23 asks for the SDK's
    own parameters; this stays because the cost is a user's wait in a long chat (measured with
    the SDK's public client on an in-memory transport, process CPU time, median of 5).
    """
    body = dict(kwargs)
    extra = dict(body.pop("extra_body", None) or {})
    extra[field] = body.pop(field)
    body["extra_body"] = extra
    return body


def withheld_reason(response: Any) -> str | None:
    """Why the response holds no answer, if it was withheld: the content filter stopped it
    (`incomplete`, reason `content_filter`; any partial text is cut off), or the model refused
    (a `refusal` content part instead of `output_text`)."""
    details = getattr(response, "incomplete_details", None)
    if getattr(response, "status", None) == "incomplete" and getattr(details, "reason", None) == "content_filter":
        return "content filter"
    if response.output_text.strip():
        return None
    for item in response.output:
        if item.type == "message" and any(part.type == "refusal" for part in item.content):
            return "refusal"
    return None


def build_input(messages: tuple[Message, ...], file_ref: str | None) -> list[dict[str, Any]]:
    """Turns as Responses API messages; the PDF is an `input_file` part of the first user turn."""
    with_file = first_user_index(messages) if file_ref else None
    items: list[dict[str, Any]] = []
    for index, turn in enumerate(messages):
        if index == with_file:
            content: Any = [
                {"type": "input_file", "file_id": file_ref},
                {"type": "input_text", "text": turn_text(turn)},
            ]
        else:
            content = turn_text(turn)
        items.append({"role": turn.role, "content": content})
    return items


def read_usage(response: Any) -> Usage:
    """OpenAI's `input_tokens` include the cached and cache-written tokens; take them out so
    each token is priced once. Reasoning tokens are already inside `output_tokens`."""
    usage = response.usage
    searches = read_search_count(response)
    if usage is None:
        return Usage(web_searches=searches)
    details = usage.input_tokens_details
    cached = (getattr(details, "cached_tokens", 0) or 0) if details else 0
    written = (getattr(details, "cache_write_tokens", 0) or 0) if details else 0
    return Usage(
        input_tokens=max(0, usage.input_tokens - cached - written),
        cached_input_tokens=cached,
        cache_write_tokens=written,
        output_tokens=usage.output_tokens,
        web_searches=searches,
    )


def read_search_count(response: Any) -> int:
    """Billable searches: `tool_usage.web_search.num_requests` when the API reports it (it
    leaves out page opens), else the number of `web_search_call` items that searched."""
    tool_usage = getattr(response, "tool_usage", None)
    web_search = getattr(tool_usage, "web_search", None) if tool_usage is not None else None
    if web_search is not None and web_search.num_requests is not None:
        return int(web_search.num_requests)
    count = 0
    for item in response.output:
        if item.type == "web_search_call":
            action = getattr(item, "action", None)
            if action is None or getattr(action, "type", "search") == "search":
                count += 1
    return count


def read_sources(response: Any) -> tuple[str, ...]:
    urls: list[str] = []
    for item in response.output:
        if item.type != "message":
            continue
        for part in item.content:
            for annotation in getattr(part, "annotations", None) or ():
                if annotation.type == "url_citation":
                    urls.append(annotation.url)
    return dedupe(urls)
