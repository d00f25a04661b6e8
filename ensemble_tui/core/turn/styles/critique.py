"""Strict-JSON critiques for the critique-and-vote style, validated with pydantic."""

from __future__ import annotations

import json
import re

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

Score = float


class AnswerCritique(BaseModel):
    model_config = ConfigDict(extra="ignore")

    label: str = Field(min_length=1, max_length=2)
    critique: str
    correctness: Score = Field(ge=0, le=10)
    completeness: Score = Field(ge=0, le=10)
    clarity: Score = Field(ge=0, le=10)
    helpfulness: Score = Field(ge=0, le=10)
    safety: Score = Field(ge=0, le=10)
    overall: Score = Field(ge=0, le=10)


class CritiqueReview(BaseModel):
    """One reviewer's verdict on the other answers."""

    model_config = ConfigDict(extra="ignore")

    critiques: list[AnswerCritique] = Field(min_length=1)
    ranking: list[str] = Field(min_length=1)
    confidence: float = Field(ge=0, le=1)

    @model_validator(mode="after")
    def _labels_are_consistent(self) -> CritiqueReview:
        self.ranking = [label.strip().upper() for label in self.ranking]
        for critique in self.critiques:
            critique.label = critique.label.strip().upper()
        if len(set(self.ranking)) != len(self.ranking):
            raise ValueError("ranking lists a label twice")
        if {c.label for c in self.critiques} != set(self.ranking):
            raise ValueError("ranking and critiques cover different labels")
        return self

    def by_label(self) -> dict[str, AnswerCritique]:
        return {critique.label: critique for critique in self.critiques}


class CritiqueParseError(ValueError):
    """The reply is not the JSON object the schema asks for."""


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def _json_object(text: str) -> object:
    fenced = _FENCE.search(text)
    candidate = fenced.group(1) if fenced else text
    start, end = candidate.find("{"), candidate.rfind("}")
    if start < 0 or end <= start:
        raise CritiqueParseError("no JSON object found")
    try:
        return json.loads(candidate[start : end + 1])
    except json.JSONDecodeError as exc:
        raise CritiqueParseError(f"invalid JSON ({exc.msg} at line {exc.lineno})") from None


def parse_critique(text: str, labels: tuple[str, ...]) -> CritiqueReview:
    """Validate a critique reply against the schema and the labels the reviewer was shown."""
    try:
        review = CritiqueReview.model_validate(_json_object(text))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "object"
        raise CritiqueParseError(f"{where}: {first['msg']}") from None
    if set(review.ranking) != set(labels):
        raise CritiqueParseError(f"expected labels {', '.join(labels)}, got {', '.join(review.ranking)}")
    return review


CRITIQUE_SCHEMA_HINT = json.dumps(
    {
        "critiques": [
            {
                "label": "A",
                "critique": "what is right, wrong or missing",
                "correctness": 0,
                "completeness": 0,
                "clarity": 0,
                "helpfulness": 0,
                "safety": 0,
                "overall": 0,
            }
        ],
        "ranking": ["A"],
        "confidence": 0.0,
    },
    indent=2,
)
