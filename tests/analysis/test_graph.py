"""The round's graph: one value a step, the mean of what each seat last judged, which does
not change with who decides and which private decisions do not move."""

from __future__ import annotations

import itertools

import pytest

import fouronefour as ff
from fouronefour.analysis import analyse_round, match_rounds
from fouronefour.analysis.graph import EVEN, fill_graph, seats_mean

from .conftest import play_match

RULES = ff.Rules(players=4)


def test_each_seat_counts_its_latest_own_estimate_as_team_a_chance() -> None:
    # seat 0 (team A) says 0.8; seat 1 (team B) says its team has 0.6, so A has 0.4;
    # seat 0 again says 0.6: the mean of 0.6 and 0.4.
    steps = [(0, "play", 0.8), (1, "play", 0.6), (0, "play", 0.6)]
    assert seats_mean(steps) == pytest.approx([0.8, 0.6, 0.5])
    assert seats_mean([]) == []


def test_the_same_step_from_two_seats_turns_gives_the_same_graph_value() -> None:
    # Every seat has judged once. Whichever seat decides next and however confident it is
    # in its own team, the graph's value before the step is what the seats said so far:
    # the decider's point of view is one of four fixed parts, not the graph's.
    said = [(0, "play", 0.7), (1, "play", 0.55), (2, "play", 0.65), (3, "play", 0.5)]
    before = seats_mean(said)[-1]
    for seat in range(4):
        for own in (0.1, 0.9):
            assert seats_mean([*said, (seat, "hook", own)])[-1] == before


def test_a_private_decision_moves_nothing() -> None:
    # Seat 0 leads a 3; seat 2 is offered the hook (a private offer: to everyone else the
    # trick goes on), hooks, and seat 3 declines to unhook: the graph stays.
    start = ff.Round.from_hands(["35K", "789", "33QA", "334J"], leader=0, rules=RULES)
    steps = analyse_round(start, ["3", "33", "pass"], worlds=16, seed=3)
    assert [s["decision"] for s in steps] == ["play", "hook", "unhook"]
    assert steps[0]["graph_chance"] == steps[1]["graph_chance"] == steps[2]["graph_chance"]
    # From the lead on every seat is heard: the leader's own estimate, and the others'
    # before the lead (analysis/opening.py), each as Team A's chance.
    said = [steps[0]["win_chance"], *(c for c in steps[0]["opening"] if c is not None)]
    seats = [0, *(s for s, c in enumerate(steps[0]["opening"]) if c is not None)]
    team_a = [c if s % 2 == 0 else 1 - c for s, c in zip(seats, said, strict=True)]
    assert steps[0]["graph_chance"] == pytest.approx(sum(team_a) / 4, abs=1e-4)
    assert seats_mean([(1, "return", 0.9)]) == [EVEN]  # before any play: even


def test_the_first_trick_speaks_for_every_seat() -> None:
    # Without the opening estimates the first steps are the leader's view alone, then two
    # seats'...: each seat's team looks stronger from where it sits, so the graph swung as
    # the turn passed. With them, from the lead on, the mean is over all four seats.
    said = [(0, "play", 0.7), (1, "play", 0.6)]
    assert seats_mean(said) == pytest.approx([0.7, 0.55])
    opening = {0: (None, 0.6, 0.7, 0.6)}
    assert seats_mean(said, opening) == pytest.approx([0.55, 0.55])
    assert seats_mean([(0, "return", 0.2), *said], {1: (None, 0.6, 0.7, 0.6)})[0] == EVEN


def test_the_graph_moves_less_than_the_deciders_own_estimates_inside_a_trick() -> None:
    match = play_match(3, rounds=1)
    start, moves = next(iter(match_rounds(match.rules, match.seed, match.moves)))
    steps = analyse_round(start, moves, worlds=16, seed=1)
    own = [s["win_chance"] if s["seat"] % 2 == 0 else 1 - s["win_chance"] for s in steps]
    graph = [s["graph_chance"] for s in steps]

    def moved(line: list[float]) -> float:
        return sum(abs(b - a) for a, b in itertools.pairwise(line))

    assert moved(graph) < moved(own) / 2


def test_a_round_analysed_in_parts_as_it_is_played_gives_what_it_gives_whole() -> None:
    # Round 2 of a match opens with tribute returns (private steps) and has hook offers:
    # the parts are cut inside both.
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
    assert parts != whole  # (each part's graph is made from the part alone)
    assert fill_graph(parts) == whole


def test_first_must_be_a_decision_of_the_round() -> None:
    start = ff.Round.from_hands(["35K", "789", "33QA", "334J"], leader=0, rules=RULES)
    with pytest.raises(ValueError, match="first must be a decision's index from 0 to 1"):
        analyse_round(start, ["3"], worlds=4, first=2)
