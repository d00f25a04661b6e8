"""A turn asks every model with the prompt files as they stood when it first read them."""

from __future__ import annotations

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.provider import CallRequest
from tests.core.helpers import run_turn


async def test_a_prompt_file_edited_during_a_turn_applies_from_the_next_turn(workspace, scripted, make_engine):
    aggregator_file = workspace.paths.prompts / "AggregatorSystemPrompt.txt"
    before = workspace.prompts.aggregator_system()

    def edit_then_answer(label: str):
        def step(_request: CallRequest) -> str:
            aggregator_file.write_text("Edited while the proposers were answering.\n", encoding="utf-8")
            return f"Proposal of {label}."

        return step

    for label in ("ChatGPT", "Claude", "Gemini"):
        scripted[label].scripts["proposer"] = [edit_then_answer(label), f"Second proposal of {label}."]
    scripted["Gemini"].scripts["aggregator"] = ["FINAL REPLY:\nFirst.", "FINAL REPLY:\nSecond."]
    workspace.update_settings(aggregator="Gemini")
    engine = make_engine()

    await run_turn(engine, Mode.ALL, "[one-pass] Explain Figure 2")
    (first,) = scripted["Gemini"].calls_as("aggregator")
    assert first.system == before  # the same prompts for the whole turn

    await run_turn(engine, Mode.ALL, "[one-pass] And Figure 3?")
    _, second = scripted["Gemini"].calls_as("aggregator")
    assert second.system == "Edited while the proposers were answering."  # the next turn reads the edit
