"""docs/rules.md sections 2-4 and their examples, as tables of cases."""

from __future__ import annotations

from typing import Any

import pytest

import fouronefour as ff
from fouronefour.engine.cards import order_text

SIZE = ff.Rules(bomb_ladder="size")


@pytest.mark.parametrize(
    ("level", "order"),
    [
        ("2", "3456789TJQKA2BR"),
        ("5", "2346789TJQKA5BR"),
        ("A", "23456789TJQKABR"),
        ("T", "23456789JQKATBR"),
    ],
)
def test_order_of_single_cards(level: str, order: str) -> None:
    assert order_text(ff.engine.cards.level_index(level)) == order


@pytest.mark.parametrize(
    ("move", "top", "level", "expected"),
    [
        # Section 11, singles
        ("2", "A", "2", True),
        ("B", "2", "2", True),
        ("R", "B", "2", True),
        ("5", "A", "5", True),
        ("5", "2", "5", True),
        ("3", "2", "5", True),
        ("A", "K", "5", True),
        ("2", "3", "5", False),
        ("B", "B", "2", False),
        # straights and kinds
        ("456", "345", "2", True),
        ("3456", "345", "2", False),
        ("345", "KK", "2", False),
        ("QKA", "JQK", "2", True),
        ("678", "567", "7", True),  # the level card stands at its face position in runs
        # double dragons
        ("445566", "334455", "2", True),
        ("33445566", "334455", "2", False),
        # bombs, listed ladder
        ("333", "AA", "2", True),
        ("333", "345", "2", True),
        ("3333", "AAA", "2", True),
        ("AAA", "KKK", "2", True),
        ("222", "AAA", "2", True),
        ("555", "222", "5", True),
        ("BB", "22222222", "2", True),
        ("BR", "BB", "2", True),
        ("RR", "BR", "2", True),
        ("44A", "RR", "2", True),
        ("44A", "44A", "2", False),
        ("444", "44A", "2", False),
        ("AAAAAAAA", "44A", "2", False),
        ("KKK", "AAA", "2", False),
        ("22", "AA", "2", True),
        ("AA", "22", "2", False),
    ],
)
def test_beats_listed_ladder(move: str, top: str, level: str, expected: bool) -> None:
    assert ff.beats(move, top, level=level) is expected


@pytest.mark.parametrize(
    ("move", "top", "expected"),
    [
        ("44A", "AAA", True),
        ("44A", "3333", False),
        ("BB", "AAAA", True),
        ("BB", "33333", False),
        ("BR", "BB", True),
        ("RR", "BR", True),
        ("33333", "RR", True),
        ("44A", "222", True),
        ("3333", "44A", True),
        ("BB", "44A", True),
    ],
)
def test_beats_size_ladder(move: str, top: str, expected: bool) -> None:
    assert ff.beats(move, top, level="2", rules=SIZE) is expected


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("7", "single"),
        ("B", "single"),
        ("QQ", "pair"),
        ("345", "straight"),
        ("TJQKA", "straight"),
        ("10JQ", "straight"),
        ("543", "straight"),
        ("334455", "double_dragon"),
        ("JJQQKKAA", "double_dragon"),
        ("5555", "bomb"),
        ("444", "bomb"),
        ("BB", "bomb"),
        ("BR", "bomb"),
        ("RB", "bomb"),
        ("RR", "bomb"),
        ("BBB", "bomb"),
        ("44A", "bomb"),
        ("4A4", "bomb"),
        ("3345", None),
        ("BBR", None),
        ("BBRR", None),
        ("KA2", None),
        ("A23", None),
        ("2345", None),
        ("34", None),
        ("3344", None),
        ("33344455", None),
        ("2B", None),
        ("44AA", None),
        ("444A", None),
    ],
)
def test_kind(text: str, kind: str | None) -> None:
    assert ff.kind(text) == kind


@pytest.mark.parametrize("text", ["", "X", "11", "3 4 Z", "pass "])
def test_text_that_is_no_move(text: str) -> None:
    with pytest.raises(ff.IllegalMove):
        ff.beats(text, "3")


def test_beats_rejects_a_non_move() -> None:
    with pytest.raises(ff.IllegalMove, match="3345"):
        ff.beats("3345", "3")
    with pytest.raises(ff.IllegalMove):
        ff.beats("3", "BBR")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("543", "345"),
        ("10JQ", "TJQ"),
        ("a44", "44A"),
        ("RB", "BR"),
        ("Pass", "pass"),
        ("q q", "QQ"),
    ],
)
def test_canonical_text(text: str, canonical: str) -> None:
    assert ff.canonical(text) == canonical


@pytest.mark.parametrize(
    ("level", "rank"), [(2, "2"), (5, "5"), (10, "T"), ("10", "T"), ("a", "A")]
)
def test_a_level_is_a_rank_and_an_int_names_the_rank_it_prints_as(level: Any, rank: str) -> None:
    assert ff.Round.from_hands(["3", "4"], level=level).level == rank
    assert ff.beats(rank, "A", level=level) == (rank != "A")


def test_level_two_as_an_int_is_the_two() -> None:
    assert ff.beats("2", "A", level=2)
    assert ff.Round.from_hands(["3", "4"], level=5).level == "5"


@pytest.mark.parametrize("level", [0, 1, 11, 14, -1, True, 2.0, "1", "11", "X", None])
def test_other_levels_are_refused(level: Any) -> None:
    with pytest.raises(ValueError, match="level must be a rank"):
        ff.beats("3", "4", level=level)
    with pytest.raises(ValueError, match="level must be a rank"):
        ff.Round.from_hands(["3", "4"], level=level)


@pytest.mark.parametrize("move", [["3", "4", "5"], ("3",), None, 3, {"3"}])
def test_a_move_that_is_not_text_is_refused_as_such(move: Any) -> None:
    for check in (ff.kind, ff.canonical, lambda m: ff.beats(m, "3"), lambda m: ff.beats("3", m)):
        with pytest.raises(ff.IllegalMove, match="a move must be text"):
            check(move)
