"""Gemini through the official `google-genai` SDK (`client.aio`).

The PDF goes up by the resumable upload protocol and is polled until ACTIVE; calls reference it
as a file part. Web search is Google Search grounding, and the grounding chunks are the sources.
A reasoning effort becomes a thinking budget in tokens (`ThinkingConfig.thinking_budget`), which
both the 2.5 and the 3.x models accept; the two cannot be combined with `thinking_level`.
google-genai switches to aiohttp whenever aiohttp is importable (textual-dev pulls it in), which
changes its exception types; the adapter pins an httpx2 transport so behaviour never depends on
what else is installed. The `genai.Client` is kept on the adapter: a collected client closes its
transport under any call still using it. The turns reach the request body in wire form
(`wire_contents`), skipping the SDK's converter, whose cost grows with the history.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

from ensemble_tui.core.provider import CallRequest, ErrorKind, Message, ProviderError, Reply, Usage
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
    google_retry_delay,
    mentions_file,
    one_line,
    retry_after_seconds,
    timed_out,
)
from ensemble_tui.providers.uploads import RemoteFile, Uploaded

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/"
POLL_FIRST_S = 0.5
POLL_MAX_S = 4.0
PROCESSING_LIMIT_S = 300.0
# Thinking budgets per reasoning effort, within gemini-2.5-pro's 128..32,768 range.
THINKING_BUDGETS: dict[str, int] = {"low": 2_048, "medium": 8_192, "high": 24_576}
# What the SDK's own `contents` argument gets: it must not be empty, and the real turns replace
# it in the body (wire_contents).
CONTENTS_STAND_IN = "(the turns are in extra_body)"
# Finish reasons that mean a filter withheld the reply (types.FinishReason).
BLOCKING_FINISH_REASONS = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
    }
)


def _ms(seconds: float) -> int:
    """google-genai's HttpOptions.timeout is in milliseconds."""
    return max(1, int(seconds * 1000))


class GeminiProvider(SdkProvider):
    base_url_env = "GOOGLE_GEMINI_BASE_URL"
    warm_paths = ("aio.models", "aio.files")
    warm_models = (
        "google.genai.types.Tool",  # web search: the largest, ~0.5 s to build on a busy machine
        "google.genai.types.GenerateContentConfig",
        "google.genai.types.GenerateContentResponse",
        "google.genai.types.Candidate",
    )
    default_base_url = DEFAULT_BASE_URL
    keeps_files = True

    poll_first_s: float = POLL_FIRST_S

    def _make_client(self) -> Any:
        import httpx2
        from google import genai
        from google.genai import types

        return genai.Client(
            api_key=self.credentials.key,
            vertexai=False,
            http_options=types.HttpOptions(
                base_url=self.base_url,
                timeout=_ms(DEFAULT_TIMEOUT_S),
                # an httpx2 transport, so the SDK never switches to aiohttp (see the module's note)
                async_client_args={"transport": httpx2.AsyncHTTPTransport()},
                # No retry_options: the SDK then makes one attempt, and the engine retries.
            ),
        )

    async def _close_client(self) -> None:
        if self._client_instance is not None:
            await self._client_instance.aio.aclose()

    async def _upload_pdf(self, pdf: Path) -> Uploaded:
        from google.genai import types

        data = await asyncio.to_thread(pdf.read_bytes)
        client = self._client()
        ctx = self.context()
        config = types.UploadFileConfig(
            mime_type=PDF_MIME,
            display_name=pdf.name,
            http_options=types.HttpOptions(timeout=_ms(self.upload_timeout_s)),
        )
        try:
            uploaded = await client.aio.files.upload(file=io.BytesIO(data), config=config)
            uploaded = await self._wait_until_active(client, uploaded)
        except ProviderError:
            raise
        except (ValueError, KeyError) as exc:  # the SDK's own checks of the resumable protocol
            reason = one_line(str(exc), 80)
            raise ProviderError(ErrorKind.TRANSIENT, f"{self.label}: the PDF upload failed ({reason})") from None
        except Exception as exc:
            raise self._error(exc, ctx, None, self.upload_timeout_s) from None
        # Calls carry the URI; list and delete take the name. Gemini drops the file at its
        # `expiration_time` (48 hours after upload): the registry keeps it to upload again then.
        return Uploaded(str(uploaded.uri), str(uploaded.name), uploaded.expiration_time)

    async def _delete_file(self, file_id: str) -> bool:
        from google.genai import errors, types

        try:
            options = types.HttpOptions(timeout=_ms(FILE_OP_TIMEOUT_S))
            await self._client().aio.files.delete(name=file_id, config=types.DeleteFileConfig(http_options=options))
        except errors.ClientError as exc:
            # Gemini answers 403 (not 404) for a file that no longer exists, as it does for calls.
            if exc.code in (403, 404):
                return False
            raise self._error(exc, self.context(), None, FILE_OP_TIMEOUT_S) from None
        except Exception as exc:
            raise self._error(exc, self.context(), None, FILE_OP_TIMEOUT_S) from None
        return True

    async def _list_files(self) -> list[RemoteFile]:
        """PDFs in the Files API, every page."""
        from google.genai import types

        config = types.ListFilesConfig(page_size=100, http_options=types.HttpOptions(timeout=_ms(FILE_OP_TIMEOUT_S)))
        try:
            return [
                RemoteFile(str(f.name), f.display_name or "", f.size_bytes or 0, f.create_time, f.expiration_time)
                async for f in await self._client().aio.files.list(config=config)
                if f.mime_type == PDF_MIME
            ]
        except Exception as exc:
            raise self._error(exc, self.context(), None, FILE_OP_TIMEOUT_S) from None

    async def _wait_until_active(self, client: Any, uploaded: Any) -> Any:
        """Poll `files.get` with growing pauses until the file is ACTIVE (or FAILED)."""
        delay, waited = self.poll_first_s, 0.0
        while _state(uploaded) == "PROCESSING":
            if waited >= PROCESSING_LIMIT_S:
                raise ProviderError(ErrorKind.TRANSIENT, f"{self.label}: the PDF is still being processed - try again")
            await asyncio.sleep(delay)
            waited += delay
            delay = min(POLL_MAX_S, delay * 2)
            uploaded = await client.aio.files.get(name=uploaded.name)
        if _state(uploaded) == "FAILED":
            raise ProviderError(ErrorKind.FATAL, f"{self.label}: could not process the PDF - check that it opens")
        return uploaded

    async def _call(self, request: CallRequest, file_ref: str | None) -> Reply:
        from google.genai import types

        # The SDK has `contents` (required, hence the stand-in); the turns go in through the documented
        # `HttpOptions.extra_body` only to skip the SDK's converter (wire_contents: 143 ms of CPU a
        # call at 1000 turns against 15 ms).
        contents = wire_contents(request.messages, file_ref)
        http_options = types.HttpOptions(timeout=_ms(request.timeout_s), extra_body={"contents": contents})
        config: dict[str, Any] = {"http_options": http_options}
        if request.system:
            config["system_instruction"] = request.system
        if request.web_search:
            config["tools"] = [types.Tool(google_search=types.GoogleSearch())]
        if request.temperature is not None:
            config["temperature"] = request.temperature
        if request.max_output_tokens is not None:  # thinking tokens count towards it
            config["max_output_tokens"] = request.max_output_tokens
        if request.reasoning_effort is not None:
            budget = THINKING_BUDGETS[request.reasoning_effort]
            if request.max_output_tokens is not None:  # leave half of the limit for the answer
                budget = min(budget, request.max_output_tokens // 2)
            config["thinking_config"] = types.ThinkingConfig(thinking_budget=budget)
        if request.output_schema is not None:  # sent as responseMimeType + responseJsonSchema
            config["response_mime_type"] = "application/json"
            config["response_json_schema"] = dict(request.output_schema.schema)
        try:
            response = await self._client().aio.models.generate_content(
                model=request.model,
                contents=CONTENTS_STAND_IN,
                config=types.GenerateContentConfig(**config),
            )
        except Exception as exc:
            raise self._error(exc, self.context(request.model), file_ref, request.timeout_s) from None
        withheld = withheld_reason(response)
        if withheld is not None:
            raise declined(self.label, withheld, read_usage(response))
        cut = bool(response.candidates) and _enum_text(response.candidates[0].finish_reason) == "MAX_TOKENS"
        return Reply(read_text(response), read_usage(response), read_sources(response), truncated=cut)

    def _error(self, exc: Exception, ctx: CallContext, file_ref: str | None, timeout_s: float) -> Exception:
        import httpx2
        from google.genai import errors

        if isinstance(exc, httpx2.TimeoutException):
            return timed_out(ctx, timeout_s)
        if isinstance(exc, (httpx2.TransportError, ConnectionError)):
            return connection_failed(ctx, exc)
        if isinstance(exc, errors.APIError):
            status = int(exc.code or 0)
            message = str(exc.message or "")
            body = exc.details if isinstance(exc.details, dict) else {}
            error = body.get("error", body) if isinstance(body.get("error", body), dict) else {}
            details = error.get("details")
            if status in (400, 403, 404) and mentions_file(file_ref, message, loose=status in (403, 404)):
                return FileGone()
            headers = getattr(getattr(exc, "response", None), "headers", None)
            retry_after = retry_after_seconds(headers) if headers is not None else None
            return classify_status(
                ctx,
                status,
                message,
                retry_after=retry_after if retry_after is not None else google_retry_delay(details),
                key_problem=status == 400 and ("API key" in message or "API_KEY_INVALID" in str(details)),
            )
        return classify_other(ctx, exc)


def withheld_reason(response: Any) -> str | None:
    """Why the response holds no answer, if it was withheld: the prompt was blocked
    (`prompt_feedback.block_reason`, no candidates), or the reply was stopped by a safety filter
    (a blocking `finish_reason`; whatever text came before the stop is cut off)."""
    feedback = getattr(response, "prompt_feedback", None)
    if not response.candidates:
        if feedback is not None and feedback.block_reason:
            return f"prompt blocked: {_enum_text(feedback.block_reason)}"
        return None
    finish = _enum_text(response.candidates[0].finish_reason)
    return finish if finish in BLOCKING_FINISH_REASONS else None


def _enum_text(value: Any) -> str:
    return str(getattr(value, "value", value) or "")


def _state(uploaded: Any) -> str:
    state = getattr(uploaded, "state", None)
    return str(getattr(state, "value", state) or "ACTIVE")


def wire_contents(messages: tuple[Message, ...], file_ref: str | None) -> list[dict[str, Any]]:
    """Turns as `user` / `model` contents in the form the SDK itself writes to the request body
    (the file part's inner keys are snake_case there too); the PDF is a file part in the first
    user turn.

    They reach the body through `HttpOptions.extra_body`, which replaces the `contents` the SDK
    built from a one-line stand-in. The SDK has the parameter, but its converter (it probes each
    pydantic field by iterating the whole model) costs, with google-genai 3.6, 143 ms of CPU a
    call at 1000 turns given dicts and 348 ms given `types.Content`, against 15 ms this way (8 and
    17 ms against 1.6 ms at 45 turns), on the provider loop, for the same bytes. Issue 23 asks for
    the SDK's own parameters; this stays because the cost is a user's wait in a long chat.
    """
    with_file = first_user_index(messages) if file_ref else None
    contents: list[dict[str, Any]] = []
    for index, turn in enumerate(messages):
        parts: list[dict[str, Any]] = [{"text": turn_text(turn)}]
        if index == with_file:
            parts.insert(0, {"fileData": {"file_uri": file_ref, "mime_type": PDF_MIME}})
        contents.append({"parts": parts, "role": "user" if turn.role == "user" else "model"})
    return contents


def read_text(response: Any) -> str:
    """The first candidate's text parts, without thought summaries."""
    if not response.candidates:
        return ""
    content = response.candidates[0].content
    parts = (content.parts if content is not None else None) or ()
    return "".join(part.text for part in parts if part.text and not part.thought)


def read_usage(response: Any) -> Usage:
    """Gemini's prompt count includes cached tokens; tool-use prompt tokens (search results fed
    back to the model) come separately and are billed as input; thoughts are billed as output
    but not counted in `candidates_token_count`. The searches are the queries Google Search ran
    (Gemini 3 bills each one; the configuration's `search_billing` makes Gemini 2.5 bill one
    per grounded prompt)."""
    meta = response.usage_metadata
    searches = search_queries(response)
    if meta is None:
        return Usage(web_searches=searches)
    prompt = meta.prompt_token_count or 0
    cached = meta.cached_content_token_count or 0
    return Usage(
        input_tokens=max(0, prompt - cached) + (meta.tool_use_prompt_token_count or 0),
        cached_input_tokens=cached,
        output_tokens=(meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0),
        web_searches=searches,
    )


def search_queries(response: Any) -> int:
    """How many Google searches grounded the reply: the `webSearchQueries` it lists, or one for a
    reply grounded in search results that lists none."""
    metadata = _grounding(response)
    if metadata is None:
        return 0
    return len(metadata.web_search_queries or ()) or 1


def _grounding(response: Any) -> Any:
    if not response.candidates:
        return None
    metadata = response.candidates[0].grounding_metadata
    if metadata is None or not (metadata.grounding_chunks or metadata.web_search_queries):
        return None
    return metadata


def read_sources(response: Any) -> tuple[str, ...]:
    metadata = _grounding(response)
    if metadata is None:
        return ()
    return dedupe([chunk.web.uri for chunk in metadata.grounding_chunks or () if chunk.web and chunk.web.uri])
