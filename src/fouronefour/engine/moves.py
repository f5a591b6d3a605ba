"""Combinations (docs/rules.md sections 3 and 4): what a set of ranks is, and what beats what."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cache

from .cards import (
    ACE,
    BLACK_JOKER,
    FACE_COUNT,
    FOUR,
    RANKS,
    RED_JOKER,
    RUN_HIGH,
    RUN_LOW,
    Counts,
    face_text,
    level_index,
    parse_ranks,
    power_table,
)
from .errors import IllegalMove
from .rules import BombLadder, Rules

PASS = "pass"


class Kind(enum.StrEnum):
    """The kinds of move. A ``StrEnum``, so ``Kind.PAIR == "pair"``."""

    SINGLE = "single"
    PAIR = "pair"
    STRAIGHT = "straight"
    DOUBLE_DRAGON = "double_dragon"
    BOMB = "bomb"


class BombKind(enum.StrEnum):
    N_OF_A_KIND = "n_of_a_kind"
    DOUBLE_JOKER = "double_joker"
    FOUR_FOUR_ACE = "414"


@dataclass(frozen=True, slots=True)
class Combination:
    """A set of ranks that is a move, independent of the level.

    ``high`` is the rank that decides among combinations of one kind and length:
    the rank of a single, pair or n of a kind, the top face of a straight or double dragon.
    """

    text: str
    kind: Kind
    size: int
    high: int
    bomb: BombKind | None = None

    def __str__(self) -> str:
        return self.text


def _classify_counts(counts: Counts) -> Combination | None:
    present = [r for r, n in enumerate(counts) if n]
    if not present:
        return None
    size = sum(counts)
    text = face_text(counts)
    if len(present) == 1:
        rank = present[0]
        if size == 1:
            return Combination(text, Kind.SINGLE, 1, rank)
        if size == 2:
            if rank >= BLACK_JOKER:  # BB, RR: two jokers are always the double-joker bomb
                return Combination(text, Kind.BOMB, 2, rank, BombKind.DOUBLE_JOKER)
            return Combination(text, Kind.PAIR, 2, rank)
        return Combination(text, Kind.BOMB, size, rank, BombKind.N_OF_A_KIND)
    if counts[BLACK_JOKER] == 1 and counts[RED_JOKER] == 1 and size == 2:
        return Combination(text, Kind.BOMB, 2, RED_JOKER, BombKind.DOUBLE_JOKER)
    if size == 3 and counts[FOUR] == 2 and counts[ACE] == 1:
        return Combination(text, Kind.BOMB, 3, ACE, BombKind.FOUR_FOUR_ACE)
    low, high = present[0], present[-1]
    if low < RUN_LOW or high > RUN_HIGH or high - low + 1 != len(present) or len(present) < 3:
        return None
    per_rank = {counts[r] for r in present}
    if per_rank == {1}:
        return Combination(text, Kind.STRAIGHT, size, high)
    if per_rank == {2}:
        return Combination(text, Kind.DOUBLE_DRAGON, size, high)
    return None


def classify_text(text: str) -> Combination | None:
    """The combination a rank string makes, or None if it is no move.

    Raises :class:`IllegalMove` for text that is not ranks at all, or not text.
    """
    if not isinstance(text, str):
        raise IllegalMove(f"a move must be text such as '345', not {type(text).__name__}")
    return _classify(text)


@cache
def _classify(text: str) -> Combination | None:
    return _classify_counts(parse_ranks(text))


def kind(text: str) -> Kind | None:
    """The kind of move a rank string is, or None for a set of cards that is no move.

    >>> kind("334455")
    <Kind.DOUBLE_DRAGON: 'double_dragon'>
    >>> kind("3345") is None
    True
    """
    combination = classify_text(text)
    return None if combination is None else combination.kind


def bomb_value(combination: Combination, level: int, ladder: BombLadder) -> int:
    """Strength of a bomb; a bigger value beats a smaller one."""
    powers = power_table(level)
    if combination.bomb is BombKind.N_OF_A_KIND:
        return combination.size * 1000 + powers[combination.high]
    if combination.bomb is BombKind.DOUBLE_JOKER:
        rank = {"BB": 0, "BR": 1, "RR": 2}[combination.text]
        return (4 * 1000 + 500 + rank) if ladder == "size" else 10_000_000 + rank
    # 44A: above every three of a kind on the size ladder, above everything when listed.
    return 3 * 1000 + 500 if ladder == "size" else 20_000_000


@dataclass(frozen=True, slots=True)
class RatedMove:
    """A combination rated at a level and bomb ladder.

    Non-bombs compare within ``group`` (kind and size); bombs have ``group == BOMB_GROUP``.
    """

    combination: Combination
    group: int
    value: int

    @property
    def is_bomb(self) -> bool:
        return self.group == BOMB_GROUP

    def beats(self, other: RatedMove) -> bool:
        if self.group == BOMB_GROUP:
            return other.group != BOMB_GROUP or self.value > other.value
        return self.group == other.group and self.value > other.value


BOMB_GROUP = -1
_KIND_CODE = {Kind.SINGLE: 1, Kind.PAIR: 2, Kind.STRAIGHT: 3, Kind.DOUBLE_DRAGON: 4}


@cache
def rate(text: str, level: int, ladder: BombLadder) -> RatedMove:
    """Rate a canonical or free-form move text; raises IllegalMove if it is no move."""
    combination = classify_text(text)
    if combination is None:
        raise IllegalMove(
            f"{text!r} is not a move: not a single, pair, straight, double dragon or bomb"
        )
    if combination.kind is Kind.BOMB:
        return RatedMove(combination, BOMB_GROUP, bomb_value(combination, level, ladder))
    group = _KIND_CODE[combination.kind] * 1000 + combination.size
    if combination.kind in (Kind.STRAIGHT, Kind.DOUBLE_DRAGON):
        value = combination.high  # runs use face positions at every level
    else:
        value = power_table(level)[combination.high]
    return RatedMove(combination, group, value)


def beats(move: str, top: str, level: str | int = "2", rules: Rules | None = None) -> bool:
    """Whether ``move`` may be played on ``top`` at ``level`` (a rank; see
    :func:`~fouronefour.engine.cards.level_index`).

    >>> beats("456", "345", level="2")
    True
    >>> beats("2", "A", level=2)
    True
    >>> beats("44A", "RR")
    True
    """
    ladder = (rules or Rules()).bomb_ladder
    level_i = level_index(level)
    for text in (move, top):
        if not isinstance(text, str):
            raise IllegalMove(f"a move must be text such as '345', not {type(text).__name__}")
    return rate(move, level_i, ladder).beats(rate(top, level_i, ladder))


def canonical(text: str) -> str:
    """Canonical text of a move (``pass`` or ranks in face order); IllegalMove if no move."""
    if isinstance(text, str) and text.strip().lower() == PASS:
        return PASS
    combination = classify_text(text)
    if combination is None:
        raise IllegalMove(f"{text!r} is not a move")
    return combination.text


__all__ = [
    "FACE_COUNT",
    "PASS",
    "RANKS",
    "BombKind",
    "Combination",
    "Kind",
    "RatedMove",
    "beats",
    "canonical",
    "classify_text",
    "kind",
    "rate",
]
