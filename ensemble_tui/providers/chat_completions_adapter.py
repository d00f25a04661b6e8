"""Any OpenAI-compatible server through the official `openai` SDK's Chat Completions API:
OpenRouter, DeepSeek, Mistral, xAI, and local servers (Ollama, llama.cpp, vLLM).

The system prompt is a `system` message and the history user / assistant messages. How the PDF
travels is the configuration's choice (`pdf`): OpenRouter takes it inline as a `file` content
part (base64 data URL); the others take no files, so its text is extracted locally and sent in
the first user turn, and `pdf_note` says so for the model's pane. Either way the PDF sits in the
first user turn, where it stays from turn to turn, so a server's prefix cache can reuse it.
"Preparing" the PDF builds that content once per file content, like an upload.

Web search: OpenRouter's `web` plugin when the configuration says `openrouter-plugin`; the Chat
Completions protocol itself has no portable switch, so `native` and `none` send nothing (URL
citations a server adds on its own are still read). A local server that refuses the connection
is not running: that is one fatal line, never a retry storm.
"""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Self
from urllib.parse import urlsplit

from ensemble_tui.core.provider import CallRequest, ErrorKind, Message, OutputSchema, ProviderError, Reply, Usage
from ensemble_tui.providers.base import DEFAULT_TIMEOUT_S, SdkProvider, dedupe, first_user_index, turn_text
from ensemble_tui.providers.credentials import Credentials
from ensemble_tui.providers.errors import (
    CallContext,
    classify_other,
    classify_status,
    connection_failed,
    declined,
    one_line,
    retry_after_seconds,
    timed_out,
)
from ensemble_tui.providers.openai_adapter import json_schema_format, sent_as_is
from ensemble_tui.providers.pdf_text import PdfTextError, pdf_as_text, pdf_data_url

if TYPE_CHECKING:
    from ensemble_tui.core.config import ProviderConfig

PdfMode = Literal["file-part", "text"]
WEB_PLUGIN = {"id": "web"}
TEXT_NOTE = "{label}: the PDF was sent as extracted text (this endpoint takes no files) - figures and layout are lost"


@dataclass(frozen=True)
class ChatOptions:
    """What the adapter needs from the configuration file besides the credentials."""

    pdf: PdfMode = "text"
    web_search: Literal["native", "openrouter-plugin", "none"] = "none"
    local: bool = False
    config_file: str = ""  # named in the "not reachable" line, e.g. "Ollama.json"


class ChatCompletionsProvider(SdkProvider):
    base_url_env = None  # no SDK variable applies: the base URL comes from the configuration file
    warm_paths = ("chat.completions",)
    warm_models = ("openai.types.chat.ChatCompletion",)

    def __init__(self, label: str, credentials: Credentials, options: ChatOptions | None = None) -> None:
        super().__init__(label, credentials)
        self.options = options or ChatOptions()
        self.pdf_note = TEXT_NOTE.format(label=label) if self.options.pdf == "text" else None

    @classmethod
    def from_config(cls, label: str, credentials: Credentials, config: ProviderConfig) -> Self:
        # "file-api" means nothing here (no upload endpoint is standard); text is the safe reading
        pdf: PdfMode = "file-part" if config.pdf == "file-part" else "text"
        options = ChatOptions(pdf, config.web_search, config.local, f"{label}.json")
        return cls(label, credentials, options)

    async def _warm_up(self) -> None:
        await super()._warm_up()
        if self.options.pdf == "text":
            # The PDF's text is extracted with pypdf at the first upload; its import is most of
            # that (~75 ms of ~105 on a 1 MB paper), and without this it fell after the other
            # providers' requests had left, holding this one back.
            importlib.import_module("pypdf")

    def _make_client(self) -> Any:
        from openai import AsyncOpenAI, Omit

        return AsyncOpenAI(
            api_key=self.credentials.key,
            base_url=self.base_url,
            max_retries=0,  # the engine owns retries
            timeout=DEFAULT_TIMEOUT_S,
            # The SDK adds OPENAI_ORG_ID / OPENAI_PROJECT_ID from the environment as headers;
            # they belong to the user's OpenAI account and must not go to another company.
            default_headers={"OpenAI-Organization": Omit(), "OpenAI-Project": Omit()},  # type: ignore[dict-item]
        )

    async def _upload_pdf(self, pdf: Path) -> str:
        """The PDF as message content: its extracted text, or its data URL for a `file` part."""
        if self.options.pdf == "file-part":
            return await asyncio.to_thread(pdf_data_url, pdf)
        try:
            return await asyncio.to_thread(pdf_as_text, pdf)
        except PdfTextError as exc:
            raise ProviderError(
                ErrorKind.FATAL, f"{self.label}: {exc} - this endpoint takes no files, only the PDF's text"
            ) from None

    async def _call(self, request: CallRequest, file_ref: str | None) -> Reply:
        pdf_name = request.pdf.name if request.pdf is not None else "paper.pdf"
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": build_messages(request.system, request.messages, file_ref, self.options.pdf, pdf_name),
            "timeout": request.timeout_s,
        }
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if request.reasoning_effort is not None:
            kwargs["reasoning_effort"] = request.reasoning_effort
        if request.max_output_tokens is not None:  # the parameter every compatible server knows
            kwargs["max_tokens"] = request.max_output_tokens
        if request.output_schema is not None:
            kwargs["response_format"] = response_format(request.output_schema)
        plugin = request.web_search and self.options.web_search == "openrouter-plugin"
        if plugin:
            # OpenRouter's `plugins` field is not in OpenAI's Chat Completions API: the SDK has no parameter
            kwargs["extra_body"] = {"plugins": [dict(WEB_PLUGIN)]}
        try:
            # The SDK has `messages` (required, hence `[]`); the real list goes in through `extra_body`
            # only to skip the SDK's transform of it (sent_as_is: 158 ms of CPU at 1000 turns against 7)
            response = await self._client().chat.completions.create(**sent_as_is(kwargs, "messages"), messages=[])
        except Exception as exc:
            raise self._error(exc, self.context(request.model), request.timeout_s) from None
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise self._body_error(response, self.context(request.model))
        message = choices[0].message
        if choices[0].finish_reason == "content_filter":  # any partial text is cut off
            raise declined(self.label, "content filter", read_usage(response, searched=plugin))
        if not (message.content or "").strip() and getattr(message, "refusal", None):
            raise declined(self.label, "refusal", read_usage(response, searched=plugin))
        cut = choices[0].finish_reason == "length"  # stopped at max_tokens
        usage = read_usage(response, searched=plugin)
        return Reply(message.content or "", usage, read_sources(message), truncated=cut)

    def _error(self, exc: Exception, ctx: CallContext, timeout_s: float) -> Exception:
        import httpx2
        import openai

        if isinstance(exc, openai.APITimeoutError):
            return timed_out(ctx, timeout_s)
        if isinstance(exc, openai.APIConnectionError):
            if self.options.local and isinstance(exc.__cause__, httpx2.ConnectError):
                return self.not_running()
            return connection_failed(ctx, exc)
        if isinstance(exc, openai.APIStatusError):
            body = exc.body if isinstance(exc.body, dict) else {}
            return classify_status(
                ctx,
                exc.status_code,
                str(body.get("message") or ""),
                retry_after=retry_after_seconds(exc.response.headers),
                code=str(body.get("code") or ""),
            )
        return classify_other(ctx, exc)

    def not_running(self) -> ProviderError:
        """A local server that refuses connections is not running: say so once, do not retry."""
        parts = urlsplit(self.credentials.base_url or "")
        where = f"{parts.scheme}://{parts.netloc}" if parts.netloc else (self.credentials.base_url or "its base URL")
        file = self.options.config_file or f"{self.label}.json"
        return ProviderError(
            ErrorKind.FATAL, f"{self.label} at {where} is not reachable - start it, or set enabled: false in {file}"
        )

    def _body_error(self, response: Any, ctx: CallContext) -> ProviderError:
        """A 200 reply without choices: OpenRouter reports upstream failures this way, with an
        `error` object whose `code` is an HTTP status."""
        error = getattr(response, "error", None)
        error = error if isinstance(error, dict) else {}
        code = error.get("code")
        if isinstance(code, int) and code >= 400:
            return classify_status(ctx, code, str(error.get("message") or ""))
        detail = one_line(ctx.scrub(str(error.get("message") or "")), 80)
        return ProviderError(
            ErrorKind.TRANSIENT, f"{self.label}: the reply held no answer" + (f" ({detail})" if detail else "")
        )


def response_format(output: OutputSchema) -> dict[str, Any]:
    """Chat Completions' `response_format` for a JSON reply matching the schema: the same
    fields as the Responses API's format, nested under `json_schema`."""
    fmt = json_schema_format(output)
    del fmt["type"]
    return {"type": "json_schema", "json_schema": fmt}


def build_messages(
    system: str, turns: tuple[Message, ...], pdf_content: str | None, pdf_mode: PdfMode, pdf_name: str
) -> list[dict[str, Any]]:
    """The system message, then the turns; the PDF goes in the first user turn.

    Extracted text is joined to that turn's text as one string, which every compatible server
    accepts (some reject content arrays); the `file` part needs the array form.
    """
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    with_pdf = first_user_index(turns) if pdf_content else None
    for index, turn in enumerate(turns):
        content: Any = turn_text(turn)
        if index == with_pdf and pdf_mode == "file-part":
            file_part = {"type": "file", "file": {"filename": pdf_name, "file_data": pdf_content}}
            content = [file_part, {"type": "text", "text": content}]
        elif index == with_pdf:
            content = f"{pdf_content}\n\n---\n\n{content}"
        messages.append({"role": turn.role, "content": content})
    return messages


def read_usage(response: Any, *, searched: bool) -> Usage:
    """`prompt_tokens` include cached (and cache-written) tokens, which are taken out so each
    token is priced once; `completion_tokens` include reasoning tokens. DeepSeek reports its
    cache hits as `prompt_cache_hit_tokens` instead. A call with the web plugin counts as one
    search, since OpenRouter bills the plugin per request. OpenRouter also says what the call
    cost (`reported_cost`), which then replaces the estimate from the configured prices."""
    usage = getattr(response, "usage", None)
    searches = int(searched)
    if usage is None:
        return Usage(web_searches=searches)
    details = usage.prompt_tokens_details
    cached = (getattr(details, "cached_tokens", 0) or 0) if details else 0
    written = (getattr(details, "cache_write_tokens", 0) or 0) if details else 0
    if not cached:
        cached = int(getattr(usage, "prompt_cache_hit_tokens", 0) or 0)
    return Usage(
        input_tokens=max(0, (usage.prompt_tokens or 0) - cached - written),
        cached_input_tokens=cached,
        cache_write_tokens=written,
        output_tokens=usage.completion_tokens or 0,
        web_searches=searches,
        cost_usd=reported_cost(usage),
    )


def reported_cost(usage: Any) -> float | None:
    """USD the call cost as OpenRouter reports it: `usage.cost` (plugins included), plus the
    upstream provider's bill when the user brought their own key (`is_byok`: then `cost` is only
    OpenRouter's fee). None when the server reports no cost, or not as a number."""
    cost = _number(getattr(usage, "cost", None))
    if cost is None:
        return None
    if getattr(usage, "is_byok", None) is True:
        details = getattr(usage, "cost_details", None)
        upstream = details.get("upstream_inference_cost") if isinstance(details, dict) else None
        upstream = _number(upstream if upstream is not None else getattr(details, "upstream_inference_cost", None))
        if upstream is None:
            return None  # the upstream bill is unknown: estimate rather than undercount
        cost += upstream
    return cost


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return float(value)


def read_sources(message: Any) -> tuple[str, ...]:
    urls = [
        annotation.url_citation.url
        for annotation in getattr(message, "annotations", None) or ()
        if annotation.type == "url_citation" and getattr(annotation, "url_citation", None) is not None
    ]
    return dedupe(urls)
