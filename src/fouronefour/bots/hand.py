"""Reading a hand the way a player does: which combinations it splits into, and how far
it is from going out. Shared by the greedy and search bots; pure functions of rank counts.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from fouronefour.engine.cards import (
    ACE,
    BLACK_JOKER,
    FACE_COUNT,
    FOUR,
    RANKS,
    RED_JOKER,
    RUN_HIGH,
    RUN_LOW,
    Counts,
    level_index,
    parse_ranks,
    power_table,
)
from fouronefour.engine.moves import Kind, classify_text

PASS = "pass"


def view_level(view: dict[str, Any]) -> int:
    """The face index of the round's level in a view."""
    return level_index(str(view["level"]))


def view_hand(view: dict[str, Any]) -> Counts:
    """The acting seat's own cards as rank counts."""
    return parse_ranks(str(view["hand"]))


@lru_cache(maxsize=1 << 12)
def is_bomb(move: str) -> bool:
    if move == PASS:
        return False
    combination = classify_text(move)
    return combination is not None and combination.kind is Kind.BOMB


def remove(counts: Counts, move: str) -> Counts:
    """The counts left after playing ``move`` (which the counts must hold)."""
    if move == PASS:
        return counts
    need = parse_ranks(move)
    return tuple(have - n for have, n in zip(counts, need, strict=True))


def lowest_power(move: str, level: int) -> int:
    """Power of the weakest card in a move at ``level`` (how "low" shedding it is)."""
    powers = power_table(level)
    return min(powers[RANKS.index(ch)] for ch in move)


def _best_straight(c: list[int]) -> tuple[int, int, int] | None:
    """The straight window (low, high, gain) that saves most combinations, if any saves one.

    A straight over ``s`` lone cards and ``p`` pairs turns ``s + p`` combinations into
    ``1 + p`` (the pairs become singles), so it gains ``s - 1``; ties go to the longer run.
    """
    best: tuple[int, int, int] | None = None
    for low in range(RUN_LOW, RUN_HIGH - 1):
        if not c[low]:
            continue
        singles = 0
        for high in range(low, RUN_HIGH + 1):
            n = c[high]
            if not n:
                break
            singles += n == 1
            length = high - low + 1
            gain = singles - 1
            better = best is None or (gain, length) > (best[2], best[1] - best[0] + 1)
            if length >= 3 and gain > 0 and better:
                best = (low, high, gain)
    return best


@lru_cache(maxsize=1 << 16)
def decompose(counts: Counts, level: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Split a hand into (combinations, bombs) a player would plan to play.

    Bombs are kept whole (three or more of a rank, two jokers, ``44A``); then double dragons
    over runs of pairs, straights where they save combinations, and pairs and singles.
    Every text is a canonical move.
    """
    c = list(counts)
    bombs: list[str] = []
    if c[FOUR] == 2 and c[ACE] >= 1 and c[ACE] != 3:
        bombs.append("44A")
        c[FOUR] = 0
        c[ACE] -= 1
    for rank in range(FACE_COUNT):
        if c[rank] >= 3:
            bombs.append(RANKS[rank] * c[rank])
            c[rank] = 0
    for joker in (BLACK_JOKER, RED_JOKER):
        if c[joker] >= 3:
            bombs.append(RANKS[joker] * c[joker])
            c[joker] = 0
    while c[BLACK_JOKER] + c[RED_JOKER] >= 2:
        if c[RED_JOKER] >= 2:
            bombs.append("RR")
            c[RED_JOKER] -= 2
        elif c[BLACK_JOKER] and c[RED_JOKER]:
            bombs.append("BR")
            c[BLACK_JOKER] -= 1
            c[RED_JOKER] -= 1
        else:
            bombs.append("BB")
            c[BLACK_JOKER] -= 2

    combos: list[str] = []
    # Double dragons: every maximal run of three or more pairs.
    face = RUN_LOW
    while face <= RUN_HIGH:
        if c[face] == 2:
            end = face
            while end + 1 <= RUN_HIGH and c[end + 1] == 2:
                end += 1
            if end - face >= 2:
                combos.append("".join(RANKS[r] * 2 for r in range(face, end + 1)))
                for r in range(face, end + 1):
                    c[r] = 0
            face = end + 1
        else:
            face += 1
    while (window := _best_straight(c)) is not None:
        low, high, _ = window
        combos.append(RANKS[low : high + 1])
        for r in range(low, high + 1):
            c[r] -= 1
    for rank in range(15):
        if c[rank] == 2:
            combos.append(RANKS[rank] * 2)
        elif c[rank] == 1:
            combos.append(RANKS[rank])
    return tuple(combos), tuple(bombs)


def control_cards(counts: Counts, level: int) -> int:
    """Cards that usually win a trick of singles or pairs: jokers and level cards."""
    return counts[BLACK_JOKER] + counts[RED_JOKER] + counts[level]


@lru_cache(maxsize=1 << 16)
def turns_to_go_out(counts: Counts, level: int) -> float:
    """Rough number of leads a hand still needs: its planned combinations, less what its
    bombs and top cards can win back."""
    if not any(counts):
        return 0.0
    combos, bombs = decompose(counts, level)
    if not combos:
        return float(len(bombs)) * 0.5
    powers = power_table(level)
    weak = 0.0
    for combo in combos:
        low = min(powers[RANKS.index(ch)] for ch in combo)
        if len(combo) >= 5:
            weak += 0.6
        elif low >= 11:  # A or better: usually wins its trick
            weak += 0.3
        else:
            weak += 1.0 - low * 0.03
    return max(0.5, weak - 0.8 * len(bombs))


__all__ = [
    "PASS",
    "control_cards",
    "decompose",
    "is_bomb",
    "lowest_power",
    "remove",
    "turns_to_go_out",
    "view_hand",
    "view_level",
]
