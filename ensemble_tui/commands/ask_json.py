"""`ask --json`: the whole turn as one JSON object on stdout, for scripts (schema: README.md).

Built from what the turn's events carried and the run record the engine stored with the reply,
so it says exactly what the app shows and keeps: nothing is recomputed here.
"""

from __future__ import annotations

import json
from typing import Any

from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.chat.session import ModelOutput
from ensemble_tui.core.claims.model import ClaimMap
from ensemble_tui.core.turn.events import ReplyCommitted

SCHEMA_VERSION = 1


def turn_json(
    event: ReplyCommitted,
    outputs: dict[str, ModelOutput],
    record: TurnRecord | None,
    session_cost_usd: float,
    claims: ClaimMap | None = None,
) -> dict[str, Any]:
    """The turn: reply, provenance, claims, quote checks and costs (see README.md, `ask --json`).
    `claims`: the map drawn after the reply (ClaimsMapped), else the one the reply carried."""
    message = event.message
    claims = claims or event.claims
    calls = record.calls if record is not None else []
    return {
        "schema": SCHEMA_VERSION,
        "mode": event.mode.value,
        "reply": message.text,
        "sources": list(message.sources),
        "provenance": message.provenance.model_dump(mode="json") if message.provenance else None,
        "claims": [claim.model_dump(mode="json") for claim in claims.disputed_first()] if claims else None,
        "claims_summary": claims.summary if claims else None,
        "confidence": claims.confidence if claims else None,
        "quote_checks": {
            "reply": message.checks,
            "proposals": {name: output.checks for name, output in outputs.items() if output.checks is not None},
        },
        "proposals": {name: {"model": output.model, "text": output.text} for name, output in outputs.items()},
        "costs": {
            "turn_usd": round(sum(call.cost_usd for call in calls), 6),
            "session_usd": round(session_cost_usd, 6),
            "calls": [
                {
                    "provider": call.provider,
                    "model": call.model,
                    "role": call.role,
                    "attempt": call.attempt,
                    "started_s": call.started_s,
                    "latency_s": round(call.latency_s, 3),
                    "outcome": call.outcome,
                    "cost_usd": round(call.cost_usd, 6),
                }
                for call in calls
            ],
        },
    }


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)
