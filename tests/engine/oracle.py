"""A brute-force legal move oracle: every sub-multiset of the hand, classified one by one.

Deliberately naive and independent of :mod:`fouronefour.engine.movegen`.
"""

from __future__ import annotations

import itertools

import fouronefour as ff
from fouronefour.engine.cards import RANKS, parse_ranks


def oracle_moves(hand: str, top: str | None, level: str, rules: ff.Rules) -> set[str]:
    counts = parse_ranks(hand)
    found: set[str] = set()
    for take in itertools.product(*(range(n + 1) for n in counts)):
        if not any(take):
            continue
        text = "".join(RANKS[r] * n for r, n in enumerate(take))
        if ff.kind(text) is None:
            continue
        if top is None or ff.beats(text, top, level=level, rules=rules):
            found.add(ff.canonical(text))
    if top is not None:
        found.add("pass")
    return found
