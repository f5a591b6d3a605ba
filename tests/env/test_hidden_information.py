"""A seat's observations do not depend on cards it cannot see.

Round A is played at random for a while. Round B deals the same cards to the observer and
lets every other seat keep the cards it played in A, but shuffles the cards they had not
played among them. Both rounds are then driven through the same public events (offers that
the next public claim does not take are declined, which is private). The observer's
observations, step by step, must be the same in both; only a declined offer may repeat one.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import fouronefour as ff
from fouronefour.engine import RANKS, Decision
from fouronefour.env import raw_env

from .helpers import play_randomly

PREFIX_DECISIONS = 80


def hand_text(counts: Counter[str]) -> str:
    return "".join(rank * counts[rank] for rank in RANKS)


def swapped_hands(
    start: ff.Round, events: Sequence[dict[str, Any]], observer: int, rng: random.Random
) -> list[str]:
    """The deal of ``start`` with the unplayed cards of every seat but ``observer`` shuffled."""
    players = start.rules.players
    played = [Counter[str]() for _ in range(players)]
    for event in events:
        if event["type"] in ("play", "hook", "unhook"):
            played[event["seat"]].update(event["move"])
    others = [seat for seat in range(players) if seat != observer]
    unplayed = {seat: Counter(start.hand(seat)) - played[seat] for seat in others}
    pool = [card for seat in others for card in unplayed[seat].elements()]
    rng.shuffle(pool)
    hands = [start.hand(seat) for seat in range(players)]
    for seat in others:
        size = unplayed[seat].total()
        hands[seat] = hand_text(played[seat] + Counter(pool[:size]))
        pool = pool[size:]
    return hands


def observe_through(
    start: ff.Round, events: Sequence[dict[str, Any]], observer: int
) -> tuple[list[bytes], list[str]]:
    """Drive ``start`` through the public ``events``; the observer's distinct observations
    (consecutive repeats dropped) and the hands of the other seats at the start."""
    environment = raw_env(players=start.rules.players)
    environment.reset(options={"round": start})
    agent = environment.possible_agents[observer]
    seen = [environment.observe(agent)["observation"].tobytes()]
    masks: list[bytes] = []
    pending = [e for e in events if e["type"] in ("play", "pass", "hook", "unhook")]
    while pending:
        current = environment.round
        seat, decision = current.to_act, current.decision
        event = pending[0]
        if decision in (Decision.HOOK, Decision.UNHOOK):
            claims = event["type"] in ("hook", "unhook") and event["seat"] == seat
            move = event["move"] if claims else "pass"
        else:
            assert event["seat"] == seat, (event, seat)
            move = event.get("move", "pass")
        if move != "pass" or decision is Decision.PLAY:
            pending.pop(0)
        if seat == observer:
            masks.append(environment.observe(agent)["action_mask"].tobytes())
        environment.step(environment.move_to_action(move, decision or "play"))
        observation = environment.observe(agent)["observation"].tobytes()
        if observation != seen[-1]:
            seen.append(observation)
    return seen + masks, [start.hand(s) for s in range(start.rules.players) if s != observer]


@pytest.mark.parametrize(("seed", "observer"), [(1, 0), (2, 1), (3, 2), (4, 3), (5, 0)])
def test_observations_ignore_other_seats_hidden_cards(seed: int, observer: int) -> None:
    rules = ff.Rules(players=4)
    start = ff.Match(rules, seed=seed).round
    played = raw_env(players=4)
    played.reset(options={"round": start})
    for count, _ in enumerate(play_randomly(played, random.Random(seed)), 1):
        if count == PREFIX_DECISIONS:
            break
    events = played.round.log
    assert any(e["type"] == "unhook" for e in events)  # the prefix holds a hook chain

    other_deal = swapped_hands(start, events, observer, random.Random(seed))
    swapped = ff.Round.from_hands(other_deal, leader=start.leader, level=start.level, rules=rules)
    seen_a, hidden_a = observe_through(start, events, observer)
    seen_b, hidden_b = observe_through(swapped, events, observer)
    assert hidden_a != hidden_b  # the other seats' hidden cards really differ
    assert len(seen_a) == len(seen_b)
    for step, (a, b) in enumerate(zip(seen_a, seen_b, strict=True)):
        assert a == b, f"observation {step} of seat {observer} differs"


def test_observation_is_the_same_for_every_deal_of_the_unseen_cards() -> None:
    """At the start of a round, redealing the other seats' cards changes nothing for a seat."""
    rules = ff.Rules(players=4)
    start = ff.Match(rules, seed=9).round
    rng = random.Random(9)
    baseline = None
    for _ in range(5):
        hands = swapped_hands(start, [], 0, rng)
        environment = raw_env(players=4)
        environment.reset(options={"round": ff.Round.from_hands(hands, leader=0, rules=rules)})
        observation = environment.observe("player_0")
        flat = np.concatenate([observation["observation"], observation["action_mask"]])
        if baseline is None:
            baseline = flat
        np.testing.assert_array_equal(flat, baseline)
