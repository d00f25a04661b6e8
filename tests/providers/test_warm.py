"""`ask` warms every provider beside its turn: the SDK imports are queued on the provider loop
ahead of the calls, so the proposers' requests go out together rather than each after its own
import (issue 18, section 5). Real SDK adapters against the demo simulator, in process."""

from __future__ import annotations

import pytest

from ensemble_tui.core.warm_up import warm_up_all
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.headless import ask
from ensemble_tui.providers.base import SdkProvider


def test_ask_builds_every_client_before_its_first_model_call(home, monkeypatch, capsys):
    workspace = Workspace.open(home)
    at_each_call: list[tuple[str, set[str]]] = []
    original = SdkProvider._complete

    async def recording(self: SdkProvider, request):
        ready = {label for label, p in workspace.providers.items() if p._client_instance is not None}
        at_each_call.append((self.label, ready))
        return await original(self, request)

    monkeypatch.setattr(SdkProvider, "_complete", recording)
    code = ask(workspace, question="What is new here?", mode="all", style="aggregate", new=True, pdf=None, demo=True)
    assert code == 0, capsys.readouterr().err
    labels = set(workspace.providers)
    assert len(labels) >= 3 and len(at_each_call) > len(labels)  # the proposers, then the aggregator
    for label, ready in at_each_call:
        assert ready == labels, f"{label} was called before {sorted(labels - ready)} had its client"


class Broken:
    label = "Broken"

    async def warm_up(self) -> None:
        raise RuntimeError("no SDK")


class Counted:
    def __init__(self) -> None:
        self.warmed = 0

    async def warm_up(self) -> None:
        self.warmed += 1


@pytest.mark.asyncio
async def test_a_provider_that_cannot_warm_up_leaves_the_others_warmed():
    counted = Counted()
    await warm_up_all({"Broken": Broken(), "Counted": counted, "Scripted": object()})
    assert counted.warmed == 1


def test_the_canned_replies_parse_into_the_types_a_real_reply_has():
    """The warm-up builds the schemas a first reply needs only if its reply parses as a real one."""
    from ensemble_tui.providers import warm_replies

    response = warm_replies.openai_response()
    assert response.output_text == "t" and type(response.output[0]).__name__ == "ResponseFunctionWebSearch"
    message = warm_replies.anthropic_message()
    assert [type(block).__name__ for block in message.content] == [
        "BetaServerToolUseBlock",
        "BetaWebSearchToolResultBlock",
        "BetaTextBlock",
    ]
    gemini = warm_replies.gemini_response()
    assert gemini.text == "t" and gemini.candidates[0].grounding_metadata.web_search_queries == ["q"]
    assert warm_replies.chat_completion().choices[0].message.content == "t"
