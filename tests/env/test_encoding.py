"""The incremental observations equal the reference encoding of each seat's engine view."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import fouronefour as ff
from fouronefour.engine import RANKS
from fouronefour.env import ObservationLayout, encode_view, raw_env
from fouronefour.env.encoding import DECISION_FEATURES

from .helpers import play_randomly

DOCS = Path(__file__).resolve().parents[2] / "docs" / "env.md"


def assert_matches_views(environment: raw_env) -> None:
    for seat, agent in enumerate(environment.possible_agents):
        fast = environment.observe(agent)
        reference = encode_view(environment.view(seat))
        np.testing.assert_array_equal(fast["observation"], reference["observation"])
        np.testing.assert_array_equal(fast["action_mask"], reference["action_mask"])


@pytest.mark.parametrize(("players", "seed"), [(4, 1), (4, 2), (3, 5), (6, 3)])
def test_incremental_observations_equal_view_encoding(players: int, seed: int) -> None:
    environment = raw_env(players=players, max_rounds=3)
    environment.reset(seed=seed)
    assert_matches_views(environment)
    events: Counter[str] = Counter()

    def check(env: raw_env) -> None:
        assert_matches_views(env)
        log = env.round.log
        if log:
            events[log[-1]["type"]] += 1

    for _ in play_randomly(environment, random.Random(seed), check):
        pass
    # The run must have covered every kind of public event the encoding records.
    for kind in ("play", "pass", "hook", "return"):
        assert events[kind] > 0, f"no {kind} in the run: {events}"


def test_tribute_and_returns_are_encoded() -> None:
    # Seats 0 and 2 finished first and second; 1 and 3 pay tribute and get cards back.
    hands = [
        "3456789TJQKA2" + "3456789TJQKA2",
        "3456789TJQKA" + "3456789TJQKA" + "BR",
        "3456789TJQKA2" + "3456789TJQKA2",
        "3456789TJQKA" + "3456789TJQKA" + "BR",
    ]
    start = ff.Round.from_hands(hands, level="4", previous_finished=[0, 2], previous_caught=[1, 3])
    environment = raw_env(players=4)
    environment.reset(options={"round": start, "levels": ("4", "2")})
    layout = ObservationLayout(environment.rules)
    observation = environment.observe("player_0")["observation"]
    sections = layout.split(observation)
    red = RANKS.index("R")
    # Seats 1 and 3 both pay a red joker: seat 1 (nearer after seat 0) to seat 0, seat 3 to 2.
    assert sections["tribute_paid"][:, red].tolist() == [0, 1, 0, 1]
    assert sections["tribute_received"][:, red].tolist() == [1, 0, 1, 0]
    assert sections["decision"].tolist() == [0, 0, 0, 0, 1]  # seat 0 returns first
    assert sections["team_levels"][0, RANKS.index("4")] == 1
    assert sections["team_levels"][1, RANKS.index("2")] == 1
    mask = environment.observe("player_0")["action_mask"]
    labels = {environment.action_table.labels[a] for a in np.flatnonzero(mask)}
    assert labels == {f"return {rank}" for rank in "23456789"}
    environment.step(environment.move_to_action("7", "return"))
    assert_matches_views(environment)
    sections = layout.split(environment.observe("player_1")["observation"])
    # Seen from seat 1: it (relative 0) got a 7 back from seat 0 (relative 3).
    assert sections["return_received"][0, RANKS.index("7")] == 1
    assert sections["returned"][3, RANKS.index("7")] == 1


def test_sections_decode_to_the_view() -> None:
    environment = raw_env(players=4)
    environment.reset(seed=11)
    rng = random.Random(11)
    steps = play_randomly(environment, rng)
    for _ in range(30):
        next(steps)
    layout = ObservationLayout(environment.rules)
    for seat, agent in enumerate(environment.possible_agents):
        view = environment.view(seat)
        sections = layout.split(environment.observe(agent)["observation"])
        hand = ff.engine.parse_ranks(view["hand"])
        assert sections["hand"].sum(axis=1).tolist() == list(hand)
        left = sections["cards_left"].sum(axis=1).tolist()
        assert left == [min(view["counts"][(seat + i) % 4], layout.count_cap) for i in range(4)]
        assert sections["turn"].argmax() == (view["turn"] - seat) % 4
        assert sections["level"].argmax() == RANKS.index(view["level"])
        acting = view["decision"] is not None
        assert sections["decision"].sum() == (1 if acting else 0)
        if acting:
            kind = DECISION_FEATURES[int(sections["decision"].argmax())]
            assert kind in ("lead", "follow", "hook", "unhook")


def test_docs_show_the_generated_layout() -> None:
    layout = ObservationLayout(ff.Rules(players=4))
    assert layout.markdown() in DOCS.read_text(encoding="utf-8")
