"""Standings and each documented tie-break (tournaments/standings.py), one case each."""

from __future__ import annotations

from fouronefour.server.tournaments.standings import Result, standings


def places(table: list[object]) -> list[str]:
    return [s.entrant for s in table]  # type: ignore[attr-defined]


def test_points_first_then_seed() -> None:
    table = standings(["a", "b", "c", "d"], [Result(("d",), ("a",), "north", 2)], [])
    # a lost to the leader: Buchholz 1 puts it above b and c (no games: the seed orders them).
    assert places(table) == ["d", "a", "b", "c"]
    assert table[0].points == 1 and table[0].won == 1 and table[0].place == 1


def test_a_bye_is_a_point() -> None:
    table = standings(["a", "b", "c"], [Result(("a",), ("b",), "east", 0)], ["c"])
    assert {s.entrant: s.points for s in table} == {"a": 0, "b": 1, "c": 1}
    assert next(s for s in table if s.entrant == "c").byes == 1


def test_buchholz_breaks_a_tie_in_points() -> None:
    results = [
        Result(("a",), ("b",), "north", 1),  # a beat b
        Result(("c",), ("d",), "north", 1),  # c beat d
        Result(("b",), ("e",), "north", 1),  # b (a's opponent) won again
        Result(("f",), ("d",), "north", 1),
    ]
    table = standings(["c", "a", "b", "d", "e", "f"], results, [])
    # a and c both have 1 point; a's opponent b has 1, c's opponent d has 0.
    assert places(table).index("a") < places(table).index("c")
    assert next(s for s in table if s.entrant == "a").buchholz == 1


def test_level_difference_after_buchholz() -> None:
    results = [Result(("a",), ("b",), "north", 1), Result(("c",), ("d",), "north", 4)]
    table = standings(["a", "b", "c", "d"], results, [])
    assert places(table)[:2] == ["c", "a"]
    assert places(table)[2:] == ["b", "d"]  # (b lost by 1 level, d by 4)
    assert table[0].level_difference == 4 and table[-1].level_difference == -4


def test_head_to_head_among_the_tied() -> None:
    # a beat b, b beat a, a beat c, c beat b... made so that a and b tie on all but it.
    results = [
        Result(("a",), ("b",), "north", 1),
        Result(("b",), ("x",), "north", 1),
        Result(("y",), ("a",), "north", 1),
        Result(("x",), ("y",), "north", 0),
    ]
    table = standings(["b", "a", "x", "y"], results, [])
    a = next(s for s in table if s.entrant == "a")
    b = next(s for s in table if s.entrant == "b")
    assert (a.points, a.buchholz, a.level_difference) == (b.points, b.buchholz, b.level_difference)
    assert a.head_to_head == 1 and b.head_to_head == 0
    assert places(table).index("a") < places(table).index("b")


def test_individuals_share_their_table_result() -> None:
    table = standings(["a", "b", "c", "d"], [Result(("a", "c"), ("b", "d"), "east", -2)], [])
    assert places(table) == ["b", "d", "a", "c"]
    assert all(s.buchholz == (0 if s.points else 2) for s in table)
