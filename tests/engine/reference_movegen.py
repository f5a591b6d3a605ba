"""The engine's earlier legal move generator, kept as the reference for the faster one.

``fouronefour.engine.movegen`` must give exactly these moves in exactly this order (the
order is part of the engine's behaviour: bots, logs and the env's random play follow it);
:mod:`tests.engine.test_movegen` compares the two. Plain loops over the 15 rank counts.
"""

from __future__ import annotations

from fouronefour.engine.cards import (
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
from fouronefour.engine.moves import BOMB_GROUP, Kind, RatedMove
from fouronefour.engine.rules import MAX_DECKS, BombLadder

_MOST_OF_A_RANK = 4 * MAX_DECKS
_N_OF_A_KIND = [[RANKS[r] * n for n in range(_MOST_OF_A_RANK + 1)] for r in range(15)]
_STRAIGHT = [[RANKS[s : e + 1] for e in range(13)] for s in range(13)]
_DRAGON = [["".join(ch * 2 for ch in RANKS[s : e + 1]) for e in range(13)] for s in range(13)]
_RUN_FACES = range(RUN_LOW, RUN_HIGH + 1)


def _bombs(counts: Counts, level: int, ladder: BombLadder) -> list[tuple[int, str]]:
    """Every bomb the counts hold, as (value, text), weakest first."""
    powers = power_table(level)
    found: list[tuple[int, str]] = []
    for rank in range(15):
        n = counts[rank]
        if n >= 3:
            texts = _N_OF_A_KIND[rank]
            base = powers[rank]
            for size in range(3, n + 1):
                found.append((size * 1000 + base, texts[size]))
    blacks, reds = counts[BLACK_JOKER], counts[RED_JOKER]
    joker_base = 4500 if ladder == "size" else 10_000_000
    if blacks >= 2:
        found.append((joker_base, "BB"))
    if blacks and reds:
        found.append((joker_base + 1, "BR"))
    if reds >= 2:
        found.append((joker_base + 2, "RR"))
    if counts[FOUR] >= 2 and counts[12]:
        found.append((3500 if ladder == "size" else 20_000_000, "44A"))
    found.sort()
    return found


def _runs(counts: Counts, width: int) -> list[int]:
    """``runs[f]`` = how many consecutive faces ending at ``f`` hold ``width`` cards or more."""
    runs = [0] * 13
    length = 0
    for face in _RUN_FACES:
        length = length + 1 if counts[face] >= width else 0
        runs[face] = length
    return runs


def lead_moves(counts: Counts, level: int, ladder: BombLadder) -> list[str]:
    """Every move the counts can lead, lowest kinds and ranks first."""
    order = rank_order(level)
    moves = [RANKS[r] for r in order if counts[r]]
    moves.extend(RANKS[r] * 2 for r in order[:13] if counts[r] >= 2)
    runs = _runs(counts, 1)
    for top in _RUN_FACES:
        row_length = runs[top]
        for length in range(3, row_length + 1):
            moves.append(_STRAIGHT[top - length + 1][top])
    runs = _runs(counts, 2)
    for top in _RUN_FACES:
        row_length = runs[top]
        for length in range(3, row_length + 1):
            moves.append(_DRAGON[top - length + 1][top])
    moves.extend(text for _, text in _bombs(counts, level, ladder))
    return moves


def follow_moves(counts: Counts, top: RatedMove, level: int, ladder: BombLadder) -> list[str]:
    """Every move that beats ``top``, then ``pass``."""
    moves: list[str] = []
    if top.group != BOMB_GROUP:
        combination = top.combination
        kind = combination.kind
        if kind is Kind.SINGLE:
            order = rank_order(level)
            for position in range(top.value + 1, 15):
                rank = order[position]
                if counts[rank]:
                    moves.append(RANKS[rank])
        elif kind is Kind.PAIR:
            order = rank_order(level)
            for position in range(top.value + 1, 13):
                rank = order[position]
                if counts[rank] >= 2:
                    moves.append(RANKS[rank] * 2)
        elif kind is Kind.STRAIGHT:
            length = combination.size
            runs = _runs(counts, 1)
            for high in range(top.value + 1, RUN_HIGH + 1):
                if runs[high] >= length:
                    moves.append(_STRAIGHT[high - length + 1][high])
        else:
            length = combination.size // 2
            runs = _runs(counts, 2)
            for high in range(top.value + 1, RUN_HIGH + 1):
                if runs[high] >= length:
                    moves.append(_DRAGON[high - length + 1][high])
        moves.extend(text for _, text in _bombs(counts, level, ladder))
    else:
        moves.extend(text for value, text in _bombs(counts, level, ladder) if value > top.value)
    moves.append("pass")
    return moves


__all__ = ["follow_moves", "lead_moves"]
