"""Building an SDK's pydantic models ahead of its first call: a model and every model its fields
can hold, the ones it holds first.

The SDKs defer building their models to first use (pydantic's `defer_build`). Building a reply
model alone does not cover its first reply: the SDKs read a reply field by field, each field
through a type adapter of its own, which builds every model the field may hold (an OpenAI
`Response`'s output items: ~90 models, ~0.2 s of CPU) unless those models are built already, in
which case pydantic reuses their schemas. So `build_with_parts` builds the parts first, then the
model: the first reply then costs what a later one does (bench row 8).
"""

from __future__ import annotations

import logging
import typing
from typing import Any

from pydantic import BaseModel

log = logging.getLogger(__name__)


def parts_first(root: type[BaseModel]) -> list[type[BaseModel]]:
    """`root` and every model its fields may hold (through unions, lists, dicts, `Annotated`),
    each after the models it holds."""
    seen: set[type[BaseModel]] = set()
    ordered: list[type[BaseModel]] = []

    def visit_type(annotation: Any) -> None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            visit_model(annotation)
            return
        for argument in typing.get_args(annotation):
            visit_type(argument)

    def visit_model(model: type[BaseModel]) -> None:
        if model in seen or model is BaseModel:
            return
        seen.add(model)
        for field in model.model_fields.values():
            visit_type(field.annotation)
        ordered.append(model)

    visit_model(root)
    return ordered


def build_with_parts(root: type[BaseModel]) -> int:
    """Build `root` and the models it holds (`parts_first`); returns how many were built. A model
    that cannot be built now is left to its first use, as without this."""
    built = 0
    for model in parts_first(root):
        try:
            model.model_rebuild()
        except Exception as exc:  # noqa: BLE001 - a warm-up never fails a call
            log.debug("cannot build %s ahead of use: %s", model.__qualname__, exc)
        else:
            built += 1
    return built
