"""Shared drivers for the environment tests: seeded random play through the raw AEC env."""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


def documented_call(function: Callable[..., Any]) -> str:
    """How docs/env.md writes a call with every parameter: ``name(a, b=1, **rest)``."""
    parts = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.name == "self":
            continue
        if parameter.kind is parameter.VAR_KEYWORD:
            parts.append(f"**{parameter.name}")
        elif parameter.default is parameter.empty:
            parts.append(parameter.name)
        else:
            default = parameter.default
            shown = f'"{default}"' if isinstance(default, str) else repr(default)
            parts.append(f"{parameter.name}={shown}")
    name = function.__name__ if function.__name__ != "__init__" else function.__qualname__[:-9]
    return f"{name}({', '.join(parts)})"


def env_docs() -> str:
    """docs/env.md with its line breaks and indents collapsed to single spaces."""
    text = (Path(__file__).parents[2] / "docs" / "env.md").read_text()
    return " ".join(text.split())
