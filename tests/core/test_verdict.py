from ensemble_tui.core.turn.styles.verdict import parse_verdict


def test_final_line_makes_the_rest_the_reply() -> None:
    verdict = parse_verdict("FINAL REPLY:\nThe answer is 42.\n\nBecause.")
    assert verdict.kind == "final"
    assert verdict.text == "The answer is 42.\n\nBecause."


def test_sentinel_is_found_on_the_first_non_empty_line_case_insensitively() -> None:
    verdict = parse_verdict("\n\n  request synthesis from proposers  \nReply 2 misreads Table 3.")
    assert verdict.kind == "resynthesize"
    assert verdict.text == "Reply 2 misreads Table 3."


def test_markdown_decoration_around_the_sentinel_is_tolerated() -> None:
    assert parse_verdict("**FINAL REPLY:**\nText").text == "Text"
    assert parse_verdict("## REQUEST SYNTHESIS FROM PROPOSERS\nfix it").kind == "resynthesize"


def test_text_after_final_reply_on_the_same_line_is_kept() -> None:
    assert parse_verdict("FINAL REPLY: Yes, it holds.\nDetails follow.").text == "Yes, it holds.\nDetails follow."


def test_output_without_a_sentinel_is_taken_whole() -> None:
    output = "The paper proves it in Section 4.\nSee Lemma 2."
    verdict = parse_verdict(output)
    assert verdict.kind == "final"
    assert verdict.text == output


def test_sentinel_on_a_later_line_does_not_count() -> None:
    output = "Here is my view.\nREQUEST SYNTHESIS FROM PROPOSERS"
    assert parse_verdict(output).kind == "final"
    assert parse_verdict(output).text == output
