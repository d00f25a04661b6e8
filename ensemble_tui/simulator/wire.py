"""Small pieces every simulated API shares: the HTTP reply type, ids, default token counts."""

from __future__ import annotations

import hashlib
import json
import secrets
import socket
import string
import time
from dataclasses import dataclass, field, replace
from typing import Any

from ensemble_tui.simulator.script import Citation, RecordedRequest, ScriptedReply

_ALPHABET = string.ascii_letters + string.digits


@dataclass
class HttpReply:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, status: int, payload: Any, headers: dict[str, str] | None = None) -> HttpReply:
        body = json.dumps(payload).encode("utf-8")
        return cls(status, body, {"content-type": "application/json", **(headers or {})})


def token(length: int = 24, alphabet: str = _ALPHABET) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


def now() -> int:
    return int(time.time())


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def estimate_tokens(text: str) -> int:
    """A plausible token count for default usage numbers (about four characters a token)."""
    return max(1, len(text) // 4)


def default_input_tokens(request: RecordedRequest) -> int:
    """Prompt tokens for an unscripted reply: the request's text plus ~1,500 per attached PDF."""
    return estimate_tokens(request.text) + 1500 * len(request.file_ids)


def citation(item: Citation | str) -> Citation:
    return item if isinstance(item, Citation) else Citation(item, item.split("/")[2] if "//" in item else item)


def merged(defaults: dict[str, Any], overrides: Any) -> dict[str, Any]:
    """`defaults` with the scripted keys replaced (nested dictionaries are merged)."""
    result = dict(defaults)
    for key, value in dict(overrides or {}).items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = value
    return result


def split_cited(text: str) -> tuple[str, str]:
    """Text before the last sentence, and the last sentence (the part a citation covers)."""
    stripped = text.rstrip()
    cut = max(stripped.rfind(". ", 0, len(stripped) - 1), stripped.rfind("\n", 0, len(stripped) - 1))
    if cut <= 0:
        return "", text
    return text[: cut + 1], text[cut + 1 :]


def closed_port_url(host: str = "127.0.0.1") -> str:
    """A base URL on a loopback port nobody listens on: connecting is refused at once, as with a
    local model server (Ollama, llama.cpp) that is not running."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        port = probe.getsockname()[1]
    return f"http://{host}:{port}/v1"


def within_limit(reply: ScriptedReply, limit: Any, output_key: str) -> tuple[ScriptedReply, bool]:
    """The reply as a model that stopped at `limit` output tokens gives it, and whether it was
    cut: its output count (the scripted usage's `output_key`, else the text's estimate) becomes
    the limit and the text is cut in proportion. The caller renders the API's own signal."""
    if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
        return reply, False
    usage = dict(reply.usage or {})
    scripted = usage.get(output_key)
    tokens = int(scripted) if isinstance(scripted, (int, float)) else estimate_tokens(reply.before_search + reply.text)
    if tokens <= limit:
        return reply, False
    usage[output_key] = limit
    return replace(reply, text=reply.text[: len(reply.text) * limit // tokens], usage=usage, citations=()), True
