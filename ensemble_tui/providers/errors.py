"""Turning an HTTP failure into the few kinds the engine understands, with one line a user can act on.

Each adapter extracts (status, server message, error code, Retry-After) from its SDK's exception
and hands them to `classify_status`; the rules about what is worth retrying live here once.
Server messages are only ever quoted for a 400 (where they say what was wrong), shortened to one
line, and scrubbed of the API key in case a proxy echoes it. Two failures arrive as HTTP 200:
a body that is not JSON (`classify_other`, transient) and an answer the model or a content
filter withheld (`declined`, fatal); each adapter recognises its API's shape of the latter.
"""

from __future__ import annotations

import email.utils
import json
import re
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from ensemble_tui.core.provider import ErrorKind, ProviderError, Usage

MAX_QUOTE = 160
_WHITESPACE = re.compile(r"\s+")
# What an SDK raises when a reply arrived whole but its body is not JSON (a truncated body, a
# proxy's HTML page sent as application/json, bytes that are not UTF-8).
UNREADABLE_BODY: tuple[type[Exception], ...] = (json.JSONDecodeError, UnicodeDecodeError)


class FileGone(Exception):
    """The provider no longer knows the uploaded PDF: upload it again and retry once."""


@dataclass(frozen=True)
class CallContext:
    """What a message needs: who failed, on which model, and which variable holds the key."""

    label: str
    key_var: str
    key: str = field(repr=False)
    model: str | None = None

    def scrub(self, text: str) -> str:
        return text.replace(self.key, "***") if self.key else text


def one_line(text: str, limit: int = MAX_QUOTE) -> str:
    flat = _WHITESPACE.sub(" ", text or "").strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date)."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def google_retry_delay(details: object) -> float | None:
    """`RetryInfo.retryDelay` ("12s", "0.5s") from a Google error body's `details` list."""
    if not isinstance(details, list):
        return None
    for item in details:
        if isinstance(item, Mapping) and str(item.get("@type", "")).endswith("RetryInfo"):
            delay = str(item.get("retryDelay", "")).strip().rstrip("s")
            try:
                return max(0.0, float(delay))
            except ValueError:
                return None
    return None


def mentions_file(file_ref: str | None, *texts: str | None, loose: bool = False) -> bool:
    """Whether an error on a call that referenced `file_ref` is about that file.

    Providers word this differently (OpenAI "No such File object: file-...", Anthropic "File
    not found: file_...", Gemini 403 "You do not have permission to access the File ... or it
    may not exist"). The file's id in the error is proof; with `loose` (a 403/404, where the
    request itself was understood) "file" in an error that does not name the model is enough.
    A 400 that merely talks about files (too large, unreadable) is not a vanished file.
    """
    if not file_ref:
        return False
    bare = file_ref.rstrip("/").rsplit("/", 1)[-1].lower()
    joined = " ".join(text for text in texts if text).lower()
    if bare in joined or file_ref.lower() in joined:
        return True
    return loose and "file" in joined and "model" not in joined


def classify_status(
    ctx: CallContext,
    status: int,
    server_message: str = "",
    *,
    retry_after: float | None = None,
    code: str | None = None,
    overloaded: bool = False,
    key_problem: bool = False,
) -> ProviderError:
    """The kind and message for an HTTP error status.

    `overloaded` marks Anthropic's `overloaded_error`; OpenAI and Gemini say the same with a 503
    whose message reads "overloaded", which gets the same (longer) aggregator retries.
    `key_problem` marks a rejected key that a provider reports with another status (Gemini
    answers 400 "API key not valid").
    """
    label, model = ctx.label, ctx.model or "the configured model"
    code = (code or "").lower()
    if overloaded or status == 529 or (status == 503 and "overloaded" in server_message.lower()):
        return ProviderError(ErrorKind.OVERLOADED, f"{label}: overloaded ({status}) - will retry", retry_after)
    if status == 429:
        if code == "insufficient_quota":
            return ProviderError(
                ErrorKind.FATAL, f"{label}: quota exhausted (429) - check the plan and billing of {ctx.key_var}"
            )
        return ProviderError(ErrorKind.RATE_LIMITED, f"{label}: rate limited (429)", retry_after)
    if status >= 500 or status in (408, 409):
        return ProviderError(ErrorKind.TRANSIENT, f"{label}: server error ({status})", retry_after)
    if status == 401 or key_problem:
        return ProviderError(ErrorKind.FATAL, f"{label}: API key rejected ({status}) - check {ctx.key_var}")
    if status == 402:
        return ProviderError(ErrorKind.FATAL, f"{label}: payment required (402) - check the billing of {ctx.key_var}")
    if status == 403:
        return ProviderError(
            ErrorKind.FATAL, f"{label}: access denied (403) to {model} - check {ctx.key_var} and its permissions"
        )
    if status == 404 and ctx.model is None:
        return ProviderError(ErrorKind.FATAL, f"{label}: file upload not found (404) - check the base URL")
    if status == 404 or code == "model_not_found":
        return ProviderError(
            ErrorKind.FATAL, f"{label}: model {model} is not served (retired?) - pick another in Settings"
        )
    detail = one_line(ctx.scrub(server_message))
    suffix = f": {detail}" if detail else ""
    return ProviderError(ErrorKind.FATAL, f"{label}: request rejected ({status}){suffix}")


def timed_out(ctx: CallContext, timeout_s: float | None) -> ProviderError:
    within = f" within {timeout_s:g} s" if timeout_s else ""
    return ProviderError(ErrorKind.TRANSIENT, f"{ctx.label}: no answer{within}")


def connection_failed(ctx: CallContext, exc: BaseException) -> ProviderError:
    """openai and anthropic wrap the transport's error in a generic "Connection error."; the
    transport's own words (refused, closed mid-body) are the useful part."""
    cause = exc.__cause__ if exc.__cause__ is not None and str(exc.__cause__).strip() else exc
    reason = one_line(ctx.scrub(str(cause)), 80) or type(exc).__name__
    if host_not_found(exc):
        return ProviderError(
            ErrorKind.UNRESOLVED, f"{ctx.label}: host not found ({reason}) - check the base URL and the network"
        )
    return ProviderError(ErrorKind.TRANSIENT, f"{ctx.label}: connection failed ({reason})")


_RESOLVER_WORDS = ("name or service not known", "temporary failure in name resolution", "nodename nor servname")


def host_not_found(exc: BaseException) -> bool:
    """Whether a connection failed because the host name does not resolve (the transports wrap
    socket.gaierror, sometimes only in their message)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, socket.gaierror) or any(w in str(current).lower() for w in _RESOLVER_WORDS):
            return True
        current = current.__cause__ or current.__context__
    return False


def unreadable_reply(ctx: CallContext, exc: BaseException) -> ProviderError:
    """A reply that arrived but cannot be read. Transient: a cut-off body or a proxy's error page
    is usually gone on the next attempt."""
    reason = "invalid JSON" if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
    return ProviderError(ErrorKind.TRANSIENT, f"{ctx.label}: unreadable reply ({reason})")


def classify_other(ctx: CallContext, exc: Exception) -> Exception:
    """The last rule of every adapter's error mapping: an unreadable body becomes a transient
    ProviderError; anything else is returned as it is, so a bug in our code is not retried and
    surfaces (logged) as one."""
    return unreadable_reply(ctx, exc) if isinstance(exc, UNREADABLE_BODY) else exc


def declined(label: str, reason: str, usage: Usage | None = None) -> ProviderError:
    """The model refused, or a content filter stopped its reply. Fatal: the same question gets
    the same answer, so a retry only costs money; the user can rephrase or ask another model.
    `usage` is what the provider billed for the call all the same."""
    return ProviderError(
        ErrorKind.FATAL,
        f"{label}: declined to answer ({reason}) - rephrase the question or try another model",
        usage=usage,
    )
