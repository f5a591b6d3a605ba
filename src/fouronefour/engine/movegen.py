"""Legal move generation from rank counts, made for speed.

A hand is a tuple of 15 rank counts. Singles and pairs are picked from precomputed texts in
the level's order by C-level filters (``itertools.compress``); runs come from a table keyed by
which run faces (3..A) hold a card (or two), built once per pattern, which gives each face's
"run length ending here" and the straights or double dragons in order; a hand's bombs are
remembered for as long as the hand recurs (a seat's hand stays the same while others play).
The order of the moves is part of the engine's behaviour: singles, pairs (both lowest first at
the level), straights, double dragons (both by top face, then length), bombs weakest first.
:mod:`tests.engine.test_movegen` checks the result against a brute-force oracle and the order
against the earlier, plainer generator (``tests/engine/reference_movegen.py``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from functools import cache
from itertools import compress
from operator import itemgetter

from .cards import (
    ACE,
    BLACK_JOKER,
    FOUR,
    RANKS,
    RED_JOKER,
    RUN_HIGH,
    RUN_LOW,
    Counts,
    power_table,
    rank_order,
)
from .moves import BOMB_GROUP, Kind, RatedMove
from .rules import MAX_DECKS, BombLadder

_MOST_OF_A_RANK = 4 * MAX_DECKS
_N_OF_A_KIND = [[RANKS[r] * n for n in range(_MOST_OF_A_RANK + 1)] for r in range(15)]
_STRAIGHT = [[RANKS[s : e + 1] for e in range(13)] for s in range(13)]
_DRAGON = [["".join(ch * 2 for ch in RANKS[s : e + 1]) for e in range(13)] for s in range(13)]
_RUN_FACES = range(RUN_LOW, RUN_HIGH + 1)
#: bytes.translate tables: a count becomes 1 if the rank holds at least one (two) cards.
_ONE_OR_MORE = bytes([0] + [1] * 255)
_TWO_OR_MORE = bytes([0, 0] + [1] * 254)


@cache
def _ordered(
    level: int,
) -> tuple[Callable[[Counts], tuple[int, ...]], tuple[str, ...], tuple[str, ...]]:
    """At ``level``: what takes a hand's counts lowest rank first (in one C call), the single
    texts in that order, and the 13 faces' pair texts in that order."""
    order = rank_order(level)
    in_order = itemgetter(*order)
    return in_order, tuple(RANKS[r] for r in order), tuple(RANKS[r] * 2 for r in order[:13])


@cache
def _run_table(pattern: bytes) -> tuple[tuple[int, ...], tuple[str, ...], tuple[str, ...]]:
    """For ``pattern`` (1 where a run face 3..A is held, faces ``RUN_LOW``..``RUN_HIGH``):
    ``runs[f]`` = how many consecutive held faces end at face ``f``, and the straights and
    double dragons those runs make, by top face then length (at most 4,096 patterns)."""
    runs = [0] * 13
    straights: list[str] = []
    dragons: list[str] = []
    length = 0
    for face, held in zip(_RUN_FACES, pattern, strict=True):
        length = length + 1 if held else 0
        runs[face] = length
        for run in range(3, length + 1):
            straights.append(_STRAIGHT[face - run + 1][face])
            dragons.append(_DRAGON[face - run + 1][face])
    return tuple(runs), tuple(straights), tuple(dragons)


@cache
def _bomb_rows(level: int) -> tuple[tuple[tuple[int, str], ...], ...]:
    """For each rank, its n-of-a-kind bombs (value, text) from 3 cards up, at ``level``."""
    powers = power_table(level)
    return tuple(
        tuple(
            (size * 1000 + powers[rank], _N_OF_A_KIND[rank][size])
            for size in range(3, _MOST_OF_A_RANK + 1)
        )
        for rank in range(15)
    )


def _find_bombs(
    counts: Counts, level: int, ladder: BombLadder
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Every bomb the counts hold: values and texts, weakest first."""
    rows = _bomb_rows(level)
    found: list[tuple[int, str]] = []
    for rank in range(15):
        n = counts[rank]
        if n >= 3:
            found += rows[rank][: n - 2]
    blacks, reds = counts[BLACK_JOKER], counts[RED_JOKER]
    if blacks or reds:
        joker_base = 4500 if ladder == "size" else 10_000_000
        if blacks >= 2:
            found.append((joker_base, "BB"))
        if blacks and reds:
            found.append((joker_base + 1, "BR"))
        if reds >= 2:
            found.append((joker_base + 2, "RR"))
    if counts[FOUR] >= 2 and counts[ACE]:
        found.append((3500 if ladder == "size" else 20_000_000, "44A"))
    if not found:
        return _NO_BOMBS
    found.sort()
    values, texts = zip(*found, strict=True)
    return values, texts


_NO_BOMBS: tuple[tuple[int, ...], tuple[str, ...]] = ((), ())
#: Bombs of recently seen hands; emptied when full so that it stays small.
_BOMBS: dict[tuple[Counts, int, BombLadder], tuple[tuple[int, ...], tuple[str, ...]]] = {}
_BOMBS_KEPT = 1 << 14


def _bombs(
    counts: Counts, level: int, ladder: BombLadder
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """:func:`_find_bombs`, remembered."""
    key = (counts, level, ladder)
    found = _BOMBS.get(key)
    if found is None:
        if len(_BOMBS) >= _BOMBS_KEPT:
            _BOMBS.clear()
        found = _BOMBS[key] = _find_bombs(counts, level, ladder)
    return found


def lead_moves(counts: Counts, level: int, ladder: BombLadder) -> list[str]:
    """Every move the counts can lead, lowest kinds and ranks first."""
    in_order, singles, pairs = _ordered(level)
    ordered = in_order(counts)
    moves = list(compress(singles, ordered))
    moves += compress(pairs, bytes(ordered[:13]).translate(_TWO_OR_MORE))
    held = bytes(counts[RUN_LOW : RUN_HIGH + 1])
    moves += _run_table(held.translate(_ONE_OR_MORE))[1]
    moves += _run_table(held.translate(_TWO_OR_MORE))[2]
    moves += _bombs(counts, level, ladder)[1]
    return moves


def follow_moves(counts: Counts, top: RatedMove, level: int, ladder: BombLadder) -> list[str]:
    """Every move that beats ``top``, then ``pass``."""
    if top.group == BOMB_GROUP:
        values, texts = _bombs(counts, level, ladder)
        moves = list(texts[bisect_right(values, top.value) :])
        moves.append("pass")
        return moves
    combination = top.combination
    kind = combination.kind
    beat = top.value + 1
    if kind is Kind.SINGLE:
        in_order, singles, _ = _ordered(level)
        moves = list(compress(singles[beat:], in_order(counts)[beat:]))
    elif kind is Kind.PAIR:
        in_order, _, pairs = _ordered(level)
        wanted = bytes(in_order(counts)[beat:13]).translate(_TWO_OR_MORE)
        moves = list(compress(pairs[beat:], wanted))
    elif kind is Kind.STRAIGHT:
        length = combination.size
        held = bytes(counts[RUN_LOW : RUN_HIGH + 1]).translate(_ONE_OR_MORE)
        runs = _run_table(held)[0]
        moves = [
            _STRAIGHT[high - length + 1][high]
            for high in range(beat, RUN_HIGH + 1)
            if runs[high] >= length
        ]
    else:
        length = combination.size // 2
        held = bytes(counts[RUN_LOW : RUN_HIGH + 1]).translate(_TWO_OR_MORE)
        runs = _run_table(held)[0]
        moves = [
            _DRAGON[high - length + 1][high]
            for high in range(beat, RUN_HIGH + 1)
            if runs[high] >= length
        ]
    moves += _bombs(counts, level, ladder)[1]
    moves.append("pass")
    return moves


__all__ = ["follow_moves", "lead_moves"]
