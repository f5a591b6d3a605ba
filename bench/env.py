"""RL environment speed against RLCard's Dou Dizhu environment, measured in one run.

    python bench/env.py [--seconds 3] [--repeats 3]

Steps per second with uniformly random legal actions, every observation encoded:

- ``fouronefour_v0`` as users get it (``fouronefour.env.env()``: PettingZoo's standard
  wrappers), driven by the usual ``agent_iter()`` / ``last()`` / ``step()`` loop;
- the same loop on ``raw_env`` (no wrappers: what the environment itself costs);
- RLCard's ``rlcard.make("doudizhu")`` environment (the ``bench`` extra), ``reset()`` /
  ``step()``, whose ``step`` returns the next player's encoded state;
- "wrappers alone": the same wrappers and loop around a table that does nothing, to show
  what PettingZoo's wrappers cost by themselves.

The runs alternate (ours, raw, RLCard, ours, ...) ``--repeats`` times so that load from
other processes hits all of them alike, and rates are steps per second of this process's
CPU time (``time.process_time``), which time spent waiting for a shared core does not
inflate; each rate is the median of its runs, and each ratio the median of the ratios of
the same repeat (with their spread). Target (issue 26): ``fouronefour_v0`` at least 5x
RLCard's environment steps/s.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from rich.progress import Progress

from fouronefour.env import env, raw_env
from fouronefour.env.aec import wrap


def pettingzoo_steps_per_second(
    make: Callable[[], Any], seconds: float, seed: int
) -> tuple[float, int]:
    """Steps/s of the AEC loop on environments from ``make``, full matches, until time is up."""
    rng = random.Random(seed)
    table = make()
    steps = 0
    episode = 0
    begin = time.process_time()
    while time.process_time() - begin < seconds:
        table.reset(seed=seed * 100_000 + episode)
        episode += 1
        for _agent in table.agent_iter():
            observation, _, terminated, truncated, _ = table.last()
            if terminated or truncated:
                table.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            table.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
            if steps % 256 == 0 and time.process_time() - begin >= seconds:
                break
    return steps / (time.process_time() - begin), steps


class NoOpTable(raw_env):
    """A table whose observations and steps cost nothing: the same agents, spaces and
    bookkeeping, turns passed round in seat order, no engine and no encoding. With
    PettingZoo's standard wrappers it measures what the wrappers cost by themselves."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        self._turns = 0
        self._constant = {
            "observation": np.zeros(self.encoder.layout.size, dtype=np.int8),
            "action_mask": np.ones(self.action_table.size, dtype=np.int8),
        }

    def observe(self, agent: str) -> dict[str, Any]:
        return self._constant

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._turns += 1
        if self._turns == 2_000:  # about a match's length
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            seat = self.possible_agents.index(agent)
            self.agent_selection = self.possible_agents[(seat + 1) % len(self.possible_agents)]
        self._accumulate_rewards()


def wrapped_no_op(players: int) -> Any:
    return wrap(NoOpTable(players=players))


def rlcard_steps_per_second(seconds: float, seed: int) -> tuple[float, int] | None:
    try:
        import rlcard
    except ImportError:
        return None
    rng = random.Random(seed)
    game = rlcard.make("doudizhu", config={"seed": seed})
    steps = 0
    begin = time.process_time()
    while time.process_time() - begin < seconds:
        state, _ = game.reset()
        while not game.is_over():
            legal = list(state["legal_actions"])
            state, _ = game.step(legal[rng.randrange(len(legal))])
            steps += 1
    return steps / (time.process_time() - begin), steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each run")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each environment")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    runs: dict[str, list[float]] = {
        "fouronefour_v0": [],
        "raw_env": [],
        "rlcard": [],
        "wrappers alone": [],
    }
    steps: dict[str, int] = dict.fromkeys(runs, 0)
    players = args.players
    with Progress() as progress:
        task = progress.add_task("measuring", total=len(runs) * args.repeats)
        for repeat in range(args.repeats):
            seed = args.seed + repeat
            measured = {
                "fouronefour_v0": pettingzoo_steps_per_second(
                    lambda: env(players=players), args.seconds, seed
                ),
                "raw_env": pettingzoo_steps_per_second(
                    lambda: raw_env(players=players), args.seconds, seed
                ),
                "rlcard": rlcard_steps_per_second(args.seconds, seed),
                "wrappers alone": pettingzoo_steps_per_second(
                    lambda: wrapped_no_op(players), args.seconds, seed
                ),
            }
            for name, figure in measured.items():
                progress.advance(task)
                if figure is not None:
                    runs[name].append(figure[0])
                    steps[name] += figure[1]

    medians = {name: statistics.median(rates) for name, rates in runs.items() if rates}
    print(
        f"{players} players, {args.repeats} runs of {args.seconds:g} CPU-s each, random legal "
        "actions"
    )
    for name, rate in medians.items():
        spread = ", ".join(f"{r:,.0f}" for r in runs[name])
        print(f"{name:>15}: {rate:>8,.0f} steps/s median ({spread}; {steps[name]:,} steps)")
    if "rlcard" not in medians:
        print("RLCard not installed (pip install -e '.[bench]'): no reference ratio")
        return
    ratios = {
        name: [ours / theirs for ours, theirs in zip(runs[name], runs["rlcard"], strict=True)]
        for name in ("fouronefour_v0", "raw_env")
    }
    wrapped = statistics.median(ratios["fouronefour_v0"])
    raw = statistics.median(ratios["raw_env"])

    def spread(name: str) -> str:
        return ", ".join(f"{r:.1f}x" for r in ratios[name])

    print(
        f"ratio fouronefour_v0 / RLCard doudizhu env, median of same-run ratios: {wrapped:.1f}x "
        f"({spread('fouronefour_v0')}; target >= 5x: {'met' if wrapped >= 5 else 'NOT met'})"
    )
    print(f"ratio raw_env / RLCard doudizhu env: {raw:.1f}x ({spread('raw_env')})")
    floor = 1e6 / medians["wrappers alone"]
    print(
        f"PettingZoo's standard wrappers alone (no-op table): {floor:.0f} us a step, "
        f"{floor / (1e6 / medians['fouronefour_v0']):.0%} of a fouronefour_v0 step"
    )


if __name__ == "__main__":
    main()
