"""Questions with known answers (our fields, JSON lines, QASPER's), their grades' majority, the
judges' position bias in the report, and reasons given only when they happened (issue 33)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.eval.grading import majority, parse_grade
from ensemble_tui.eval.model import EvalPlan, EvalQuestion, Verdict
from ensemble_tui.eval.questions import UNANSWERABLE, from_file
from ensemble_tui.eval.recommend import recommend
from ensemble_tui.eval.report import render
from ensemble_tui.eval.stats import summarize
from tests.eval.records import answer, both_orders


def test_json_lines_carry_known_answers_and_evidence_and_a_relative_pdf(tmp_path: Path) -> None:
    (tmp_path / "paper.pdf").write_bytes(b"%PDF-1.4")
    path = tmp_path / "set.jsonl"
    lines = [
        {
            "question": "How many passes at most?",
            "answer": "Five.",
            "evidence": "we cap this at five passes",
            "pdf": "paper.pdf",
        },
        {"question": "An open question?"},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    graded, open_ = from_file(path)
    assert (graded.answer, graded.evidence, graded.pdf) == (
        "Five.",
        "we cap this at five passes",
        str(tmp_path / "paper.pdf"),
    )
    assert graded.graded and not open_.graded
    listed = tmp_path / "set.json"
    listed.write_text(json.dumps(lines), encoding="utf-8")
    assert [q.id for q in from_file(listed)] == [graded.id, open_.id]  # a list and JSON lines read alike


def test_qasper_fields_are_mapped(tmp_path: Path) -> None:
    def qa(question: str, **answer: object) -> dict[str, object]:
        return {
            "question": question,
            "question_id": "x",
            "answers": [{"answer": answer}, {"answer": {"free_form_answer": "second annotator"}}],
        }

    paper = {
        "title": "A paper",
        "pdf": "paper.pdf",
        "qas": [
            qa(
                "Free form?",
                free_form_answer="A sentence.",
                highlighted_evidence=["The passage."],
                evidence=["Longer."],
            ),
            qa("Spans?", extractive_spans=["BERT", "ELMo"], evidence=["FLOAT SELECTED: Table 2", "A paragraph."]),
            qa("Yes or no?", yes_no=False),
            qa("Unanswerable?", unanswerable=True),
        ],
    }
    path = tmp_path / "qasper.jsonl"
    path.write_text(json.dumps(paper) + "\n" + json.dumps(qa("Alone?", free_form_answer="Alone.")) + "\n")
    questions = {q.text: q for q in from_file(path)}
    assert questions["Free form?"].answer == "A sentence." and questions["Free form?"].evidence == "The passage."
    assert questions["Spans?"].answer == "BERT; ELMo" and questions["Spans?"].evidence == "A paragraph."
    assert questions["Yes or no?"].answer == "No"
    assert questions["Unanswerable?"].answer == UNANSWERABLE
    assert questions["Free form?"].pdf == str(tmp_path / "paper.pdf") and questions["Alone?"].pdf is None


def test_a_bad_json_line_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"question": "fine?"}\n{"question": "broken"\n', encoding="utf-8")
    with pytest.raises(EnsembleError) as caught:
        from_file(path)
    assert "\n" not in str(caught.value) and "one object a line" in str(caught.value)


def test_grades_are_read_strictly_and_the_majority_leans_to_the_less_favourable() -> None:
    assert parse_grade("REASON: It gives 87.\nGRADE: **Partly correct**") == ("partly correct", "It gives 87.")
    with pytest.raises(ValueError):
        parse_grade("GRADE: CORRECT\nREASON: no, GRADE: INCORRECT")
    assert majority(["correct", "correct", "incorrect"]) == "correct"
    assert majority(["correct", "partly correct"]) == "partly correct"
    assert majority(["declined", "incorrect"]) == "incorrect"
    assert majority([]) is None


def test_the_report_shows_the_judges_first_position_rate_and_flipped_verdicts() -> None:
    plan = EvalPlan(
        arms=("claude", "gemini", "all"), judges=("ChatGPT",), questions=(EvalQuestion(id="q1", text="Q?"),)
    )
    answers = [answer("q1", "claude"), answer("q1", "gemini"), answer("q1", "all", writer="Gemini")]
    # The judge picks whatever is shown first: every decided verdict is for Answer 1, and
    # claude against gemini flips with the order (gemini against all is consistent: all wins).
    verdicts = [
        Verdict(question_id="q1", first="claude", second="gemini", judge="ChatGPT", winner="first"),
        Verdict(question_id="q1", first="gemini", second="claude", judge="ChatGPT", winner="first"),
        *both_orders("q1", "all", "gemini", "ChatGPT", "win"),
    ]
    markdown = render(plan, answers, verdicts, "md")
    rules = markdown.split("## How it was judged")[1]
    assert "First-position rate: the judges chose the answer shown first in 75% of their 4 decided verdicts" in rules
    assert "Flipped verdicts: 1 of 2 pairs (50%) changed with the order" in rules
    bias = json.loads(render(plan, answers, verdicts, "json"))["position_bias"]
    assert (bias["first_position_rate"], bias["flipped_share"]) == (0.75, 0.5)


def test_an_arm_never_judged_is_said_not_judged_yet_not_to_have_lost_its_verdicts() -> None:
    plan = EvalPlan(
        arms=("chatgpt", "claude", "council"),
        judges=("Gemini",),
        questions=tuple(EvalQuestion(id=f"q{n}", text="Q?") for n in range(2)),
    )
    answers = [
        answer(f"q{n}", arm, writer=w)
        for n in range(2)
        for arm, w in (("chatgpt", "ChatGPT"), ("claude", "Claude"), ("council", "ChatGPT"))
    ]
    verdicts = [v for n in range(2) for v in both_orders(f"q{n}", "chatgpt", "claude", "Gemini", "loss")]
    advice = recommend(summarize(plan, answers, verdicts))
    text = " ".join(advice.findings) + advice.headline
    assert "lost their verdicts" not in text
    assert "2 question(s) not judged yet" in text
