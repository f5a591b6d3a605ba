"""Shared drivers for the environment tests: seeded random play through the raw AEC env."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import numpy as np

from fouronefour.env import raw_env


def random_legal_action(observation: dict[str, np.ndarray], rng: random.Random) -> int:
    legal = np.flatnonzero(observation["action_mask"])
    return int(legal[rng.randrange(len(legal))])


def play_randomly(
    environment: raw_env,
    rng: random.Random,
    after_step: Callable[[raw_env], None] | None = None,
    max_steps: int = 100_000,
) -> Iterator[int]:
    """Step ``environment`` (already reset) with random legal actions until the episode ends,
    yielding each action; ``after_step`` is called after every live step."""
    for _ in range(max_steps):
        agent = environment.agent_selection
        if environment.terminations[agent] or environment.truncations[agent]:
            return
        action = random_legal_action(environment.observe(agent), rng)
        environment.step(action)
        yield action
        if after_step is not None:
            after_step(environment)
