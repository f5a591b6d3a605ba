"""The rule set's options (docs/rules.md section 10): every value checked for type and range,
and every deck count the rule set accepts playable."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

import fouronefour as ff
from fouronefour.engine.rules import MAX_DECKS, MAX_PLAYERS, RULE_FIELDS

from ..strategies import rule_sets


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


@given(rule_sets(max_players=24, max_extra_decks=3))
def test_from_dict_reads_what_to_dict_writes(rules: ff.Rules) -> None:
    assert ff.Rules.from_dict(rules.to_dict()) == rules


def test_from_dict_takes_defaults_for_missing_options() -> None:
    assert ff.Rules.from_dict({}) == ff.Rules()
    assert ff.Rules.from_dict({"players": 6, "decks": None}) == ff.Rules(players=6)
    assert tuple(ff.Rules(goal="round").to_dict()) == RULE_FIELDS
    # (The whole match, the default goal, is left out: rules read as they always did.)
    assert tuple(ff.Rules().to_dict()) == RULE_FIELDS[:-1]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"players": 4, "jokers": 2}, "unknown rule option: 'jokers' (the options are players"),
        ({"hook": True, "ladder": "size"}, "unknown rule options: 'hook', 'ladder'"),
        ([("players", 4)], "rules must be an object, not list"),
        ({"players": "4"}, "players must be an integer, not '4'"),
        ({"bomb_ladder": "weird"}, "bomb_ladder must be 'listed' or 'size'"),
    ],
)
def test_from_dict_refuses_what_is_not_a_rule_set(data: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        ff.Rules.from_dict(data)


def test_no_other_module_turns_a_dict_into_rules() -> None:
    # One codec: every dict becomes Rules through Rules.from_dict, so a new option or check
    # is read the same way by the server, the bots, the analysis and the lessons.
    package = Path(ff.__file__).parent
    spread = [
        f"{path.relative_to(package)}:{number}"
        for path in package.rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "Rules(**" in line.replace(" ", "")
    ]
    assert spread == []
