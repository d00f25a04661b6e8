"""The panes of the main screen, one module each: Chat, one model pane per provider (the three
built-ins, then any added by a configuration file), Attachments, Resubmissions and Settings."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from ensemble_tui.core.config import PROVIDERS

_ID_SAFE = re.compile(r"[A-Za-z0-9_-]+")


def widget_key(provider: str) -> str:
    """`provider` as it may appear inside a widget id.

    Added providers are named by their configuration files, so a label may hold spaces or dots
    ("Local vLLM"), which Textual refuses in ids. Such a label becomes a slug plus a short hash,
    so two labels never share a key; a plain label (ChatGPT, xAI, DeepSeek) is kept as it is.
    """
    if _ID_SAFE.fullmatch(provider):
        return provider
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", provider).strip("-") or "provider"
    return f"{slug}-{hashlib.sha1(provider.encode()).hexdigest()[:6]}"


def pane_id_for_provider(provider: str) -> str:
    """The TabPane id of a model pane. Added providers get a prefix, so a provider labelled
    "Chat" or "Settings" cannot take another pane's id."""
    return provider.lower() if provider in PROVIDERS else f"provider-{widget_key(provider)}"


def panes(extra_providers: Sequence[str] = ()) -> tuple[tuple[str, str], ...]:
    """(TabPane id, tab label) in tab order; the ids are used by bindings and palette commands."""
    models = tuple((pane_id_for_provider(p), p) for p in (*PROVIDERS, *extra_providers))
    return (
        ("chat", "Chat"),
        *models,
        ("attachments", "Attachments"),
        ("resubmissions", "Resubmissions"),
        ("settings", "Settings"),
    )


PANES = panes()  # without added providers
