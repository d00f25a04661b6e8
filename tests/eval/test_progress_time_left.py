"""The eval's progress bar says how long is left from the questions' own pace (issue 35 polish):
it showed 0:00:00 remaining throughout."""

from __future__ import annotations

from ensemble_tui.commands import eval as eval_command


def test_time_left_follows_the_pace_of_the_questions_done() -> None:
    assert eval_command.time_left(0.0, 0, 10) == "time left: estimating"
    assert eval_command.time_left(60.0, 2, 10) == "about 4m 00s left"  # 30 s a question, 8 to go
    assert eval_command.time_left(3600.0, 1, 3) == "about 2h 00m left"
    assert eval_command.time_left(90.0, 10, 10) == "done"


def test_the_bar_shows_the_time_left_while_questions_remain(capsys) -> None:
    class Runner:
        progress = None

        async def run(self) -> str:
            self.progress(1, 0.01)  # one question of three done
            return "result"

    assert eval_command.run_with_progress(Runner(), 3, demo=False) == "result"
    shown = capsys.readouterr().err
    assert "1/3" in shown and "0:00:00" not in shown and ("left" in shown or "estimating" in shown)
