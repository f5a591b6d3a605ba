"""Bot levels: named, ordered, each a registered bot with fixed settings and a fixed rating."""

from __future__ import annotations

import json
import random

import pytest

from fouronefour import bots
from fouronefour.arena.games import run_arena
from fouronefour.arena.spec import BotSpec
from fouronefour.bots.greedy import GreedyBot
from fouronefour.bots.levels import LEVELS, MEASURED, level, level_names
from fouronefour.engine import Match, Rules


def test_the_levels_are_named_weakest_first_with_ratings_in_that_order() -> None:
    assert level_names() == ["beginner", "casual", "strong", "expert"]
    mus = [found.rating.mu for found in LEVELS]
    assert mus == sorted(mus) and len(set(mus)) == len(mus)
    # measured: surer than a newcomer's 25/3
    assert all(0 < found.rating.sigma < 25 / 3 for found in LEVELS)


def test_the_ratings_are_those_the_round_robin_measured() -> None:
    measured = json.loads(MEASURED.read_text(encoding="utf-8"))
    assert measured["ordered"] is True
    assert measured["command"].startswith("python bench/levels.py --rounds ")
    assert sorted(measured["ratings"]) == sorted(level_names())
    names = level_names()
    for row in measured["rows"]:  # each level beats the one below it in 60% of rounds
        if names.index(row["stronger"]) == names.index(row["weaker"]) + 1:
            assert row["stronger_wins"] >= 0.6, row


def test_each_level_is_a_bot_by_its_name_that_plays_a_match() -> None:
    rules = Rules(players=4)
    for found in LEVELS:
        assert found.name in bots.names()
        bot = bots.get(found.name)
        assert bot.name == found.bot
        match = Match(rules, seed=5)
        rng = random.Random(5)
        for _ in range(30):
            seat = match.round.to_act
            assert seat is not None
            legal = match.round.legal_moves()
            move = bot.choose(match.view(seat), legal, rng)
            assert move in legal
            match = match.apply(move)


def test_a_level_takes_no_settings_of_its_own_and_unknown_levels_are_named() -> None:
    with pytest.raises(ValueError, match="bot 'casual' has no parameter 'mistakes'"):
        bots.get("casual", mistakes=0.9)
    with pytest.raises(ValueError, match="unknown level 'master'; the levels are beginner, "):
        level("master")
    assert level("casual").spec == "greedy:mistakes=0.15"


@pytest.mark.parametrize("mistakes", [-0.1, 1.5, "often", True])
def test_greedy_mistakes_are_a_share(mistakes: object) -> None:
    with pytest.raises(ValueError, match="mistakes must be"):
        GreedyBot(mistakes=mistakes)  # type: ignore[arg-type]


def test_greedy_with_mistakes_is_seeded_and_without_them_deterministic() -> None:
    match = Match(Rules(players=4), seed=9)
    seat = match.round.to_act
    assert seat is not None
    view, legal = match.view(seat), match.round.legal_moves()
    sloppy = GreedyBot(mistakes=0.5)
    first = [sloppy.choose(view, legal, random.Random(i)) for i in range(20)]
    assert first == [sloppy.choose(view, legal, random.Random(i)) for i in range(20)]
    assert len(set(first)) > 1
    assert len({GreedyBot().choose(view, legal, random.Random(i)) for i in range(20)}) == 1


@pytest.mark.parametrize(("weaker", "stronger"), [("beginner", "casual"), ("casual", "strong")])
def test_each_cheap_level_beats_the_one_below_it(weaker: str, stronger: str) -> None:
    # bench/levels.py measures every pair on 400 paired rounds (docs/bots.md); this is the
    # quick check that the order holds at all: 200 rounds on other deals.
    records = run_arena((BotSpec(weaker), BotSpec(stronger)), Rules(players=4), pairs=100, seed=77)
    assert sum(record.winner == 1 for record in records) / len(records) > 0.55
