from ensemble_tui.core.text.sanitize import strip_control


def test_escape_sequences_become_inert() -> None:
    hostile = "ok\x1b]52;c;ZXZpbA==\x07 and \x1b[2J clear \x9b31m c1"
    cleaned = strip_control(hostile)
    assert "\x1b" not in cleaned and "\x07" not in cleaned and "\x9b" not in cleaned
    assert cleaned.startswith("ok]52;c;ZXZpbA==")


def test_newlines_and_tabs_survive_and_crlf_is_normalised() -> None:
    assert strip_control("a\tb\r\nc\nd\x00") == "a\tb\nc\nd"


def test_lone_surrogates_are_replaced_so_the_text_can_be_saved() -> None:
    cleaned = strip_control("a\ud800b\udfffc")
    assert cleaned == "a\ufffdb\ufffdc"
    cleaned.encode("utf-8")
