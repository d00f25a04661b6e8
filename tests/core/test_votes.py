"""Borda counts with self-exclusion and every tie-breaker, and medals with ties."""

from __future__ import annotations

from ensemble_tui.core.turn.styles.borda import Ballot, borda_count, medals

AUTHORS = ["gpt", "claude", "gemini"]


def standings_table(standings) -> list[tuple[str, int, float, int]]:
    return [(s.author, s.rank, s.points, s.first_places) for s in standings]


def test_self_excluded_ballots_share_points_among_the_others() -> None:
    ballots = [
        Ballot("gpt", ("claude", "gemini")),
        Ballot("claude", ("gpt", "gemini")),
        Ballot("gemini", ("claude", "gpt")),
    ]
    assert standings_table(borda_count(ballots, AUTHORS)) == [
        ("claude", 1, 2.0, 2),
        ("gpt", 2, 1.0, 1),
        ("gemini", 3, 0.0, 0),
    ]


def test_full_ballots_give_n_minus_one_points_to_first_place() -> None:
    ballots = [Ballot("judge", ("gemini", "gpt", "claude"))]
    assert [s.points for s in borda_count(ballots, AUTHORS)] == [2.0, 1.0, 0.0]


def test_equal_points_are_broken_by_mean_overall_score() -> None:
    ballots = [
        Ballot("gpt", ("claude", "gemini"), overall={"claude": 6, "gemini": 5}),
        Ballot("claude", ("gemini", "gpt"), overall={"gemini": 9, "gpt": 4}),
        Ballot("gemini", ("gpt", "claude"), overall={"gpt": 8, "claude": 7}),
    ]
    result = borda_count(ballots, AUTHORS)
    assert [s.points for s in result] == [1.0, 1.0, 1.0]
    assert [s.author for s in result] == ["gemini", "claude", "gpt"]  # means 7.0, 6.5, 6.0
    assert [s.rank for s in result] == [1, 2, 3]


def test_then_by_mean_correctness() -> None:
    ballots = [
        Ballot("r1", ("gpt", "claude"), overall={"gpt": 7, "claude": 7}, correctness={"gpt": 5, "claude": 9}),
        Ballot("r2", ("claude", "gpt"), overall={"gpt": 7, "claude": 7}, correctness={"gpt": 5, "claude": 9}),
    ]
    result = borda_count(ballots, ["gpt", "claude"])
    assert [(s.author, s.rank) for s in result] == [("claude", 1), ("gpt", 2)]


def test_answers_still_equal_share_the_rank() -> None:
    ballots = [
        Ballot("r1", ("gpt", "claude"), overall={"gpt": 7, "claude": 7}, correctness={"gpt": 8, "claude": 8}),
        Ballot("r2", ("claude", "gpt"), overall={"gpt": 7, "claude": 7}, correctness={"gpt": 8, "claude": 8}),
        Ballot("r3", ("gemini",)),
    ]
    result = borda_count(ballots, AUTHORS)
    ranks = {s.author: s.rank for s in result}
    assert ranks["gpt"] == ranks["claude"] == 1
    assert ranks["gemini"] == 3


def test_medals_follow_point_levels_and_ties_share_them() -> None:
    ballots = [
        Ballot("a", ("w", "x", "y", "z")),
        Ballot("b", ("w", "y", "x", "z")),
    ]
    result = borda_count(ballots, ["w", "x", "y", "z"])
    assert medals(result) == {"w": "gold", "x": "silver", "y": "silver", "z": "bronze"}


def test_an_author_without_ballots_still_appears_with_zero_points() -> None:
    result = borda_count([Ballot("gpt", ("claude",))], AUTHORS)
    assert {s.author: s.points for s in result} == {"claude": 0.0, "gpt": 0.0, "gemini": 0.0}
    assert all(s.rank == 1 for s in result)
