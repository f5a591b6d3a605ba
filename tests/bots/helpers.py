"""Shared helpers for the bot tests: random play to interesting decisions."""

from __future__ import annotations

import random
from collections.abc import Iterator

import fouronefour as ff
from fouronefour.engine import deal


def random_decisions(
    rules: ff.Rules, seed: int, rng: random.Random, limit: int = 10_000
) -> Iterator[ff.Round]:
    """Every decision point of one random round (round 1 of the match ``seed``)."""
    hands, leader = deal(rules, seed, 1)
    r = ff.Round.from_hands(hands, leader=leader, rules=rules)
    for _ in range(limit):
        if r.is_over:
            return
        yield r
        legal = r.legal_moves()
        r = r.apply(legal[rng.randrange(len(legal))])


def hook_heavy_rules() -> ff.Rules:
    """Four players with many decks: pairs everywhere, so hook chains are common."""
    return ff.Rules(players=4, decks=4)
