"""The shared classification rules, as pure functions."""

from __future__ import annotations

import email.utils
import time

import pytest

from ensemble_tui.core.provider import ErrorKind
from ensemble_tui.providers.errors import (
    CallContext,
    classify_status,
    google_retry_delay,
    mentions_file,
    retry_after_seconds,
)

CTX = CallContext("ChatGPT", "OPENAI_API_KEY", "sk-secret", "gpt-5")


@pytest.mark.parametrize(
    ("status", "kind", "message"),
    [
        (500, ErrorKind.TRANSIENT, "ChatGPT: server error (500)"),
        (502, ErrorKind.TRANSIENT, "ChatGPT: server error (502)"),
        (408, ErrorKind.TRANSIENT, "ChatGPT: server error (408)"),
        (429, ErrorKind.RATE_LIMITED, "ChatGPT: rate limited (429)"),
        (529, ErrorKind.OVERLOADED, "ChatGPT: overloaded (529) - will retry"),
        (401, ErrorKind.FATAL, "ChatGPT: API key rejected (401) - check OPENAI_API_KEY"),
        (403, ErrorKind.FATAL, "ChatGPT: access denied (403) to gpt-5 - check OPENAI_API_KEY and its permissions"),
        (404, ErrorKind.FATAL, "ChatGPT: model gpt-5 is not served (retired?) - pick another in Settings"),
        (400, ErrorKind.FATAL, "ChatGPT: request rejected (400): bad thing"),
    ],
)
def test_status_classification(status, kind, message):
    error = classify_status(CTX, status, "bad thing")
    assert (error.kind, error.message) == (kind, message)


def test_quota_exhaustion_is_fatal_not_rate_limited():
    error = classify_status(CTX, 429, "You exceeded your current quota", code="insufficient_quota")
    assert error.kind is ErrorKind.FATAL
    assert "quota exhausted" in error.message


def test_quoted_server_messages_are_one_short_scrubbed_line():
    error = classify_status(CTX, 400, "line one\nline two with sk-secret " + "x" * 400)
    assert "\n" not in error.message and "sk-secret" not in error.message
    assert len(error.message) < 220


def test_upload_404_points_at_the_base_url():
    ctx = CallContext("Claude", "ANTHROPIC_API_KEY", "k")
    assert classify_status(ctx, 404).message == "Claude: file upload not found (404) - check the base URL"


def test_retry_after_forms():
    assert retry_after_seconds({"retry-after": "12"}) == 12
    assert retry_after_seconds({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 < retry_after_seconds({"retry-after": future}) <= 30
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None
    assert google_retry_delay([{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "19s"}]) == 19
    assert google_retry_delay([{"@type": "other"}]) is None


def test_file_errors_are_told_from_model_errors():
    assert mentions_file("file-abc", "No such File object: file-abc")
    assert mentions_file("https://host/v1/files/xyz", "You do not have permission to access the File xyz")
    assert mentions_file("file_1", "File not found", loose=True)
    assert not mentions_file("file_1", "File too large")  # a 400 about files is not a vanished file
    assert not mentions_file("file_1", "model: claude-x not found for this file", loose=True)
    assert not mentions_file(None, "No such File object: file-abc")
