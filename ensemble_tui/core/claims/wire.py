"""What the mapper returns: JSON with letters, asked for through each API's structured output.

The schema is strict (every property required, no others), as OpenAI's strict mode demands,
and names the letters of the call, so a model cannot invent a proposal. The app validates the
reply all the same: a model may still fill the schema badly, and a gateway may ignore it.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ensemble_tui.core.claims.model import KINDS, ClaimKind, StanceKind
from ensemble_tui.core.provider import OutputSchema

SCHEMA_NAME = "claim_map"
MAX_CLAIMS = 40


def claim_map_schema(letters: tuple[str, ...]) -> OutputSchema:
    """The JSON Schema of a map over these letters."""
    stance = {
        "type": "object",
        "additionalProperties": False,
        "required": ["letter", "stance", "quote", "paper_quote", "page"],
        "properties": {
            "letter": {"type": "string", "enum": list(letters)},
            "stance": {"type": "string", "enum": ["supports", "contradicts", "silent"]},
            "quote": {"type": "string", "description": "a few of this proposal's own words"},
            "paper_quote": {"type": "string", "description": "the paper's words this proposal quotes, or empty"},
            "page": {"type": ["integer", "null"], "description": "the page this proposal cites, or null"},
        },
    }
    claim = {
        "type": "object",
        "additionalProperties": False,
        "required": ["text", "kind", "stances", "citations"],
        "properties": {
            "text": {"type": "string"},
            "kind": {"type": "string", "enum": list(KINDS)},
            "stances": {"type": "array", "items": stance},
            "citations": {"type": "array", "items": {"type": "string"}},
        },
    }
    schema = {
        "type": "object",
        "additionalProperties": False,
        "required": ["claims"],
        "properties": {"claims": {"type": "array", "items": claim}},
    }
    return OutputSchema(SCHEMA_NAME, schema, "The claims of the proposals and each proposal's stance on them.")


class WireStance(BaseModel):
    model_config = ConfigDict(extra="ignore")

    letter: str
    stance: StanceKind
    quote: str = ""
    paper_quote: str = ""
    page: int | None = None


class WireClaim(BaseModel):
    model_config = ConfigDict(extra="ignore")

    text: str
    kind: ClaimKind
    stances: list[WireStance]
    citations: list[str] = []


class WireMap(BaseModel):
    model_config = ConfigDict(extra="ignore")

    claims: list[WireClaim]


def parse_wire_map(text: str, letters: tuple[str, ...]) -> WireMap:
    """The mapper's reply, validated; ValueError (one line, for the repair request) if unreadable."""
    try:
        data: Any = json.loads(_unfenced(text))
    except ValueError:
        raise ValueError("the reply is not a JSON object") from None
    try:
        parsed = WireMap.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"{where or 'the object'}: {first['msg']}") from None
    if not parsed.claims:
        raise ValueError("the map has no claims")
    if len(parsed.claims) > MAX_CLAIMS:
        raise ValueError(f"the map has more than {MAX_CLAIMS} claims")
    for number, claim in enumerate(parsed.claims, start=1):
        unknown = sorted({s.letter for s in claim.stances} - set(letters))
        if unknown:
            raise ValueError(f"claim {number} names proposal {', '.join(unknown)}, which does not exist")
    return parsed


def _unfenced(text: str) -> str:
    """A JSON object a gateway returned inside a Markdown code fence, without the fence."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = stripped.rsplit("```", 1)[0]
    return stripped
