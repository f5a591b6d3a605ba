"""A shorter match (rules ``goal``, docs/rules.md section 10): one round, or until a side's
level reaches a level; the whole match (section 7) unless asked."""

from __future__ import annotations

import random

import pytest

from fouronefour.engine import Match, Rules
from fouronefour.engine.cards import level_index
from fouronefour.engine.errors import IllegalMove


def played(rules: Rules, seed: int, rounds: int = 1000) -> Match:
    """Random legal moves until the match is over (or ``rounds`` rounds are in)."""
    match = Match(rules, seed)
    rng = random.Random(seed)
    while not match.is_over and len(match.results) < rounds:
        match = match.apply(rng.choice(sorted(match.round.legal_moves())))
    return match


def test_the_whole_match_is_the_default_and_reads_as_before() -> None:
    assert Rules().goal == "match"
    assert "goal" not in Rules().to_dict()  # (a normal table's rules are stored as before)
    assert Rules.from_dict(Rules(goal="7").to_dict()) == Rules(goal="7")
    match = played(Rules(), 3, rounds=3)
    assert not match.is_over and len(match.results) == 3


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_one_round_ends_the_match_with_the_rounds_winner(seed: int) -> None:
    match = played(Rules(goal="round"), seed)
    assert match.is_over and len(match.results) == 1
    assert match.winning_team == match.results[0].winning_team
    with pytest.raises(IllegalMove):
        match.apply("pass")


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_a_level_ends_the_match_when_a_side_first_reaches_it(seed: int) -> None:
    match = played(Rules(goal="6"), seed)
    assert match.is_over
    reached = [max(level_index(x) for x in r.levels_after) >= level_index("6")
               for r in match.results]  # fmt: skip
    assert reached[-1] and not any(reached[:-1])
    assert match.winning_team == match.results[-1].winning_team
    # The same deal and moves under the whole match's rules play on.
    whole = Match.replay(Rules(), match.seed, match.moves)
    assert not whole.is_over and whole.results == match.results


@pytest.mark.parametrize("goal", ["2", "B", "", 5, None, "Match"])
def test_a_goal_that_is_none_is_refused(goal: object) -> None:
    with pytest.raises(ValueError, match="goal"):
        Rules(goal=goal)  # type: ignore[arg-type]
