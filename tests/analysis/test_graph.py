"""The round's graph: one estimate a step from a spectator's point of view, which depends on
what everyone saw and not on who decides or what the hidden hands hold."""

from __future__ import annotations

import itertools

import pytest

import fouronefour as ff
from fouronefour.analysis import analyse_round, match_rounds
from fouronefour.analysis.graph import fill_graph, fill_private_steps, spectator_chance

from .conftest import play_match

RULES = ff.Rules(players=4)


def test_hidden_cards_and_the_deciders_own_hand_do_not_move_the_graph() -> None:
    # The same public position (counts, level, who leads); the cards moved between seats,
    # the decider's own included.
    dealt = ff.Round.from_hands(["3456", "789T", "JQKA", "22BR"], leader=0, rules=RULES)
    moved = ff.Round.from_hands(["3452", "78QT", "J9KA", "62BR"], leader=0, rules=RULES)
    assert dealt.public_view() == moved.public_view()
    first = spectator_chance(dealt, worlds=24, seed="s")
    assert spectator_chance(moved, worlds=24, seed="s") == first
    # and the estimate is the spectator's: seat 0's own estimate differs with its hand
    assert 0.0 < first < 1.0


def test_the_same_step_from_two_seats_turns_gives_the_same_graph_value() -> None:
    # Seat 0 leads a 3; seat 2 is offered the hook (a private offer: to everyone else the
    # trick goes on), hooks, and seat 3 declines to unhook. The offers are decisions of
    # seats 2 and 3, made in the public position seat 0's play left: the graph stays.
    start = ff.Round.from_hands(["35K", "789", "33QA", "334J"], leader=0, rules=RULES)
    steps = analyse_round(start, ["3", "33", "pass"], worlds=16, seed=3)
    assert [s["seat"] for s in steps] == [0, 2, 3]
    assert [s["decision"] for s in steps] == ["play", "hook", "unhook"]
    assert steps[0]["spectator_chance"] == steps[1]["spectator_chance"]
    assert steps[1]["spectator_chance"] == steps[2]["spectator_chance"]
    # each label and win chance stays its decider's own
    assert {s["win_chance"] for s in steps} != {steps[0]["spectator_chance"]}


def test_steps_without_a_public_position_show_the_play_decision_before_them() -> None:
    assert fill_private_steps([None, None, 0.4, None, 0.7]) == [0.4, 0.4, 0.4, 0.4, 0.7]
    assert fill_private_steps([None]) == [0.5]


def test_only_a_play_decision_has_a_spectators_estimate() -> None:
    offer = ff.Round.from_hands(["35K", "789", "33QA", "334J"], leader=0, rules=RULES).apply("3")
    with pytest.raises(ValueError, match="at a play decision"):
        spectator_chance(offer, worlds=4, seed="s")


def test_a_round_analysed_in_parts_as_it_is_played_gives_what_it_gives_whole() -> None:
    # Round 2 of a match opens with tribute returns (steps without a public position) and
    # has hook offers: the parts are cut inside both.
    match = play_match(5, rounds=2)
    start, moves = list(match_rounds(match.rules, match.seed, match.moves))[1]
    whole = analyse_round(start, moves, worlds=4, seed=2)
    cuts = [0, 1, 7, len(moves) // 2, len(moves)]
    parts = [
        decision
        for low, high in itertools.pairwise(cuts)
        for decision in analyse_round(start, moves[:high], worlds=4, seed=2, first=low)
    ]
    assert any(d["decision"] != "play" for d in whole)
    assert fill_graph(parts) == whole


def test_first_must_be_a_decision_of_the_round() -> None:
    start = ff.Round.from_hands(["35K", "789", "33QA", "334J"], leader=0, rules=RULES)
    with pytest.raises(ValueError, match="first must be a decision's index from 0 to 1"):
        analyse_round(start, ["3"], worlds=4, first=2)
