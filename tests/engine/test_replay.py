"""The engine plays exactly as it did before it was made faster: seeded random rounds and
matches give the same legal moves, in the same order, and the same logs, tribute and results
as the engine of main at b848874, whose digests golden_play.json holds.

A change to the rules' behaviour must change this file on purpose: regenerate it with
``FOUR14_REGEN=1 pytest tests/engine/test_replay.py`` and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

import fouronefour as ff

GOLDEN = Path(__file__).with_name("golden_play.json")
RULE_SETS: list[dict[str, Any]] = [
    {"players": 4},
    {"players": 4, "hooking": False},
    {"players": 4, "bomb_ladder": "size"},
    {"players": 2},
    {"players": 3},
    {"players": 5},
    {"players": 6, "decks": 4},
    {"players": 4, "decks": 1},
]


def _digest(trace: object) -> str:
    return hashlib.sha256(json.dumps(trace, sort_keys=True).encode()).hexdigest()


def round_digest(rule_set: int, number: int) -> str:
    """Every decision's legal moves and the finished round's log, of a seeded random round."""
    rules = ff.Rules(**RULE_SETS[rule_set])
    rng = random.Random(f"replay/{rule_set}/{number}")
    hands, leader = ff.deal(rules, f"replay{rule_set}", number)
    level = rng.choice("23456789TJQKA")
    game = ff.Round.from_hands(hands, leader=leader, level=level, rules=rules)
    trace: list[Any] = []
    while not game.is_over:
        moves = game.legal_moves()
        trace.append([game.to_act, game.decision, game.turn, moves])
        game = game.apply(moves[rng.randrange(len(moves))])
    trace.append([game.log, game.finished, game.caught, game.winning_team])
    return _digest(trace)


def match_digest(rule_set: int, number: int) -> str:
    """The same for a seeded random match (tribute and returns included), up to 3,000 moves."""
    rules = ff.Rules(**RULE_SETS[rule_set])
    rng = random.Random(f"replay-match/{rule_set}/{number}")
    match = ff.Match(rules, seed=f"replay{rule_set}/{number}")
    trace: list[Any] = []
    for _ in range(3000):
        if match.is_over:
            break
        moves = match.round.legal_moves()
        trace.append(moves)
        match = match.apply(moves[rng.randrange(len(moves))])
    trace.append([match.round.log, match.round.tributes, [r.to_dict() for r in match.results]])
    return _digest(trace)


def digests() -> dict[str, str]:
    out = {}
    for rule_set in range(len(RULE_SETS)):
        for number in range(12):
            out[f"round/{rule_set}/{number}"] = round_digest(rule_set, number)
        out[f"match/{rule_set}"] = match_digest(rule_set, 0)
    return out


def test_seeded_play_matches_the_engine_before_it_was_made_faster() -> None:
    expected = json.loads(GOLDEN.read_text())
    got = digests()
    assert got.keys() == expected.keys()
    different = [key for key in expected if got[key] != expected[key]]
    assert not different, f"plays differently from golden_play.json: {different}"


if os.environ.get("FOUR14_REGEN"):  # pragma: no cover - run by hand
    GOLDEN.write_text(json.dumps(digests(), indent=1, sort_keys=True) + "\n")
    pytest.skip("golden_play.json regenerated", allow_module_level=True)
