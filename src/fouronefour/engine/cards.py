"""Ranks, their order at a level, and the rank-string notation.

Suits never matter to a rule (docs/rules.md, Notation), so the engine works with rank counts:
a hand is a tuple of 15 counts indexed by rank.
"""

from __future__ import annotations

from functools import cache

from .errors import IllegalMove

#: Face ranks in face order, then the black and the red joker.
RANKS = "23456789TJQKA" + "BR"
FACES = RANKS[:13]
FACE_COUNT = 13
BLACK_JOKER = 13
RED_JOKER = 14
RANK_COUNT = 15
INDEX = {ch: i for i, ch in enumerate(RANKS)}
#: Straights and double dragons run along 3..A (face indexes 1..12).
RUN_LOW = 1
RUN_HIGH = 12
FOUR = INDEX["4"]
ACE = INDEX["A"]

Counts = tuple[int, ...]


def level_index(level: str | int) -> int:
    """The face index of a level given as its rank: ``"2"``, ``"T"`` (or ``"10"``), ``"A"``;
    an int names the rank it prints as (``5`` is the level 5, ``10`` the level T).

    >>> level_index("2"), level_index(2), level_index("t"), level_index(10)
    (0, 0, 8, 8)
    """
    if isinstance(level, int) and not isinstance(level, bool):
        if 2 <= level <= 10:
            return level - 2
    elif isinstance(level, str):
        text = level.strip().upper()
        if text == "10":
            text = "T"
        if len(text) == 1 and text in FACES:
            return INDEX[text]
    raise ValueError(
        f"level must be a rank, one of {' '.join(FACES)} (or an int 2 to 10), not {level!r}"
    )


@cache
def power_table(level: int) -> tuple[int, ...]:
    """Power of each rank at ``level``: faces without the level card, then it, then B, R."""
    powers = [0] * RANK_COUNT
    position = 0
    for face in range(FACE_COUNT):
        if face != level:
            powers[face] = position
            position += 1
    powers[level] = 12
    powers[BLACK_JOKER] = 13
    powers[RED_JOKER] = 14
    return tuple(powers)


@cache
def rank_order(level: int) -> tuple[int, ...]:
    """Ranks lowest first at ``level`` (the inverse of :func:`power_table`)."""
    powers = power_table(level)
    return tuple(sorted(range(RANK_COUNT), key=powers.__getitem__))


def order_text(level: int) -> str:
    """The order of single cards at ``level`` as text, e.g. ``3456789TJQKA2BR`` at level 2."""
    return "".join(RANKS[r] for r in rank_order(level))


def parse_ranks(text: str) -> Counts:
    """Rank counts of a rank string in any order; ``10`` is read as ``T``.

    >>> parse_ranks("10 J q")[8:11]
    (1, 1, 1)
    """
    if not isinstance(text, str):
        raise IllegalMove(f"cards must be given as text, not {type(text).__name__}")
    counts = [0] * RANK_COUNT
    cleaned = text.upper().replace("10", "T")
    for ch in cleaned:
        if ch in " ,":
            continue
        index = INDEX.get(ch)
        if index is None:
            raise IllegalMove(f"{text!r}: {ch!r} is not a rank (use 2-9 T J Q K A B R)")
        counts[index] += 1
    return tuple(counts)


def face_text(counts: Counts) -> str:
    """Ranks in face order (the order a person reads a move: ``345``, ``44A``, ``BR``)."""
    return "".join(RANKS[r] * n for r, n in enumerate(counts) if n)


def hand_text(counts: Counts, level: int) -> str:
    """Ranks lowest first in the order of the round played at ``level``."""
    return "".join(RANKS[r] * counts[r] for r in rank_order(level) if counts[r])


def deck_counts(decks: int) -> Counts:
    """Rank counts of ``decks`` full 54-card decks."""
    return (4 * decks,) * FACE_COUNT + (decks, decks)
