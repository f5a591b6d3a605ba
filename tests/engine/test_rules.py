"""The rule set's options (docs/rules.md section 10): every value checked for type and range,
and every deck count the rule set accepts playable."""

from __future__ import annotations

import random
from typing import Any

import pytest

import fouronefour as ff
from fouronefour.engine.rules import MAX_DECKS, MAX_PLAYERS


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"hooking": "false"}, "hooking must be True or False, not 'false'"),
        ({"hooking": None}, "hooking must be True or False"),
        ({"tribute": 0}, "tribute must be True or False, not 0"),
        ({"tribute": 1}, "tribute must be True or False, not 1"),
        ({"players": 4.0}, "players must be an integer"),
        ({"players": "4"}, "players must be an integer"),
        ({"players": 1}, "players must be 2 to 32, not 1"),
        ({"players": MAX_PLAYERS + 1}, "players must be 2 to 32, not 33"),
        ({"decks": "2"}, "decks must be an integer"),
        ({"decks": True}, "decks must be an integer"),
        ({"decks": 0}, "decks must be 1 to 16, not 0"),
        ({"decks": 100}, "decks must be 1 to 16, not 100"),
        ({"bomb_ladder": "weird"}, "bomb_ladder must be 'listed' or 'size'"),
        ({"bomb_ladder": ["size"]}, "bomb_ladder must be 'listed' or 'size'"),
    ],
)
def test_options_are_checked_for_type_and_range(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        ff.Rules(**options)


def test_the_largest_tables_are_accepted() -> None:
    assert ff.Rules(players=MAX_PLAYERS).decks == MAX_PLAYERS // 2
    assert ff.Rules(players=2, decks=MAX_DECKS).decks == MAX_DECKS


@pytest.mark.parametrize("players", [2, 3])
def test_every_deck_count_plays_a_whole_round(players: int) -> None:
    # Two players and many decks hold the most cards of one rank: up to 64 per seat.
    for decks in range(1, MAX_DECKS + 1):
        rules = ff.Rules(players=players, decks=decks)
        hands, leader = ff.deal(rules, seed=decks, round_number=1)
        r = ff.Round.from_hands(hands, leader=leader, rules=rules)
        rng = random.Random(decks)
        while not r.is_over:
            legal = r.legal_moves()
            bombs = [m for m in legal if len(set(m)) == 1 and len(m) >= 3]
            r = r.apply(max(bombs, key=len) if bombs else rng.choice(legal))
        assert r.winning_team in (0, 1)
