"""When a table of an event is decided (tournaments/lengths.py), on real matches played out
by the engine with a fixed seed."""

from __future__ import annotations

import random

from fouronefour.engine import Match, Rules
from fouronefour.engine.cards import level_index
from fouronefour.server.tournaments.lengths import decided


def played(rounds: int, seed: int = 7) -> Match:
    """A match of random legal moves, ``rounds`` rounds in (or over, if sooner)."""
    match = Match(Rules(players=4), seed)
    rng = random.Random(seed)
    while not match.is_over and len(match.results) < rounds:
        legal = match.round.legal_moves()
        match = match.apply(rng.choice(sorted(legal)))
    return match


def test_nothing_is_decided_before_the_first_round_ends() -> None:
    fresh = Match(Rules(players=4), 1)
    assert decided("round", fresh) is None
    assert decided("5", fresh) is None
    assert decided("match", fresh) is None


def test_one_round_decides_with_the_round_winner() -> None:
    match = played(1)
    result = match.results[0]
    side, difference = decided("round", match) or ("", 0)
    assert side == ("north" if result.winning_team == 0 else "east")
    north, east = (level_index(level) for level in result.levels_after)
    assert difference == north - east and difference != 0
    assert decided("round", played(3)) == decided("round", match)  # (the first round's)


def test_a_level_decides_when_a_side_first_reaches_it() -> None:
    match = played(40)
    first = next(
        r for r in match.results if max(level_index(x) for x in r.levels_after) >= level_index("6")
    )
    side, _ = decided("6", match) or ("", 0)
    assert side == ("north" if first.winning_team == 0 else "east")
    assert decided("match", match) is None or match.is_over
