"""Train a small Deep Monte-Carlo (DMC) agent on ``fouronefour_v0`` and show it beats random.

    pip install -e '.[train]'       # PyTorch (CPU), numpy, pettingzoo, gymnasium, ray
    python examples/train_dmc.py [--minutes 3] [--pairs 200] [--seed 0] [--save dmc.pt]

Deep Monte-Carlo, as DouZero trains its Dou Dizhu agents: a network estimates ``Q(s, a)``,
the return a seat's team gets at the end of the round when the seat takes action ``a`` in
observation ``s``; it is regressed on the returns actually obtained (no bootstrapping), and
play is greedy in ``Q`` with a little exploration. Here one network plays all four seats
(self-play), one round per episode (``max_rounds=1``, reward +-caught players), with a head
of one ``Q`` value per action of the fixed action space, masked to the legal ones.

Training runs many tables side by side so that each network call decides for all of them.
The result is then measured as ``fouronefour arena`` does: the trained agent, wrapped as a
:mod:`fouronefour.bots` bot that sees only its seat's view (``encode_view``), against the
``random`` bot on paired deals (every deal played twice, teams swapped), with a 95% Wilson
interval on its round win rate.

This example shows the environment's fixed action space in use, in one process. The
``learned`` bot that ships with the package is trained differently, by ``fouronefour
train``: Ray actors, a network that scores each legal move from its own features (so it
plays at any table size), search distillation; see docs/bots.md.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from torch import nn

import fouronefour.bots
from fouronefour import Rules
from fouronefour.arena import BotSpec, run_arena, summarize
from fouronefour.env import action_table, encode_view, raw_env


def build_model(observation_size: int, actions: int, hidden: int = 512) -> nn.Module:
    """Observation in, one Q value per action out."""
    return nn.Sequential(
        nn.Linear(observation_size, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden // 2),
        nn.ReLU(),
        nn.Linear(hidden // 2, actions),
    )


class DMCAgent:
    """A Q network and how to act with it."""

    def __init__(self, model: nn.Module) -> None:
        self.model = model

    @torch.no_grad()
    def choose(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        epsilon: float = 0.0,
        rng: random.Random | None = None,
    ) -> list[int]:
        """An action for each row: greedy in Q among the legal ones, random with ``epsilon``."""
        q = self.model(torch.from_numpy(observations).float())
        q = q.masked_fill(torch.from_numpy(masks) == 0, float("-inf"))
        best = q.argmax(dim=1).tolist()
        if epsilon > 0 and rng is not None:
            for row, mask in enumerate(masks):
                if rng.random() < epsilon:
                    legal = np.flatnonzero(mask)
                    best[row] = int(legal[rng.randrange(len(legal))])
        return [int(action) for action in best]


class DMCBot:
    """The agent as a :mod:`fouronefour.bots` player: it sees its seat's view only."""

    name = "dmc"

    def __init__(self, agent: DMCAgent, rules: Rules) -> None:
        self.agent = agent
        self.actions = action_table(rules)

    def choose(self, view: dict[str, Any], legal_moves: Sequence[str], rng: random.Random) -> str:
        if len(legal_moves) == 1:
            return legal_moves[0]
        encoded = encode_view(view)
        [action] = self.agent.choose(encoded["observation"][None], encoded["action_mask"][None])
        return self.actions.action_to_move(action)


@dataclass
class Replay:
    """The most recent (observation, action, return) samples."""

    capacity: int
    observation_size: int
    observations: np.ndarray = field(init=False)
    actions: np.ndarray = field(init=False)
    returns: np.ndarray = field(init=False)
    size: int = 0
    cursor: int = 0

    def __post_init__(self) -> None:
        self.observations = np.zeros((self.capacity, self.observation_size), dtype=np.int8)
        self.actions = np.zeros(self.capacity, dtype=np.int64)
        self.returns = np.zeros(self.capacity, dtype=np.float32)

    def add(self, observations: list[np.ndarray], actions: list[int], value: float) -> None:
        for observation, action in zip(observations, actions, strict=True):
            self.observations[self.cursor] = observation
            self.actions[self.cursor] = action
            self.returns[self.cursor] = value
            self.cursor = (self.cursor + 1) % self.capacity
            self.size = min(self.size + 1, self.capacity)

    def sample(self, batch: int, rng: np.random.Generator) -> tuple[torch.Tensor, ...]:
        rows = rng.integers(0, self.size, batch)
        return (
            torch.from_numpy(self.observations[rows]).float(),
            torch.from_numpy(self.actions[rows]),
            torch.from_numpy(self.returns[rows]),
        )


@dataclass
class TrainingStats:
    seconds: float = 0.0
    decisions: int = 0
    rounds: int = 0
    updates: int = 0
    losses: list[float] = field(default_factory=list)


class SelfPlay:
    """``tables`` rounds played side by side by one agent at every seat."""

    def __init__(self, tables: int, seed: int, players: int = 4) -> None:
        self.rng = random.Random(seed)
        self.tables = [raw_env(players=players, max_rounds=1) for _ in range(tables)]
        self.trajectories: list[dict[str, tuple[list[np.ndarray], list[int]]]] = []
        for table in self.tables:
            table.reset(seed=self.rng.randrange(2**62))
            self.trajectories.append({agent: ([], []) for agent in table.possible_agents})

    def step(self, agent: DMCAgent, epsilon: float, replay: Replay) -> tuple[int, int]:
        """One decision at every table; finished rounds go to ``replay``. Returns the
        decisions taken and the rounds finished."""
        seen = [table.observe(table.agent_selection) for table in self.tables]
        observations = np.stack([s["observation"] for s in seen])
        masks = np.stack([s["action_mask"] for s in seen])
        actions = agent.choose(observations, masks, epsilon, self.rng)
        finished = 0
        for index, (table, action) in enumerate(zip(self.tables, actions, strict=True)):
            acting = table.agent_selection
            taken = self.trajectories[index][acting]
            taken[0].append(observations[index])
            taken[1].append(action)
            table.step(action)
            if (
                table.truncations[table.agent_selection]
                or table.terminations[table.agent_selection]
            ):
                for seat_agent, (seat_observations, seat_actions) in self.trajectories[
                    index
                ].items():
                    value = float(table._cumulative_rewards[seat_agent])
                    replay.add(seat_observations, seat_actions, value)
                table.reset(seed=self.rng.randrange(2**62))
                self.trajectories[index] = {a: ([], []) for a in table.possible_agents}
                finished += 1
        return len(self.tables), finished


def train(
    seconds: float,
    seed: int = 0,
    tables: int = 32,
    batch: int = 512,
    updates_per_step: float = 0.25,
    show_progress: bool = True,
    max_rounds: int | None = None,
) -> tuple[DMCAgent, TrainingStats]:
    """Self-play DMC for ``seconds`` of wall time (or until ``max_rounds`` rounds are done)."""
    torch.manual_seed(seed)
    sample_rng = np.random.default_rng(seed)
    probe = raw_env(players=4)
    observation_size = probe.encoder.layout.size
    model = build_model(observation_size, probe.action_table.size)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    agent = DMCAgent(model)
    replay = Replay(200_000, observation_size)
    play = SelfPlay(tables, seed)
    stats = TrainingStats()
    pending_updates = 0.0
    start = time.perf_counter()
    columns = (
        TextColumn("training"),
        BarColumn(),
        TextColumn("{task.fields[info]}"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, disable=not show_progress) as progress:
        task = progress.add_task("train", total=seconds, info="")
        while (elapsed := time.perf_counter() - start) < seconds:
            if max_rounds is not None and stats.rounds >= max_rounds:
                break
            epsilon = max(0.02, 0.15 * (1 - elapsed / seconds))
            decisions, rounds = play.step(agent, epsilon, replay)
            stats.decisions += decisions
            stats.rounds += rounds
            if replay.size < batch:
                continue
            pending_updates += updates_per_step
            while pending_updates >= 1:
                pending_updates -= 1
                observations, actions, returns = replay.sample(batch, sample_rng)
                q = model(observations).gather(1, actions[:, None]).squeeze(1)
                loss = nn.functional.mse_loss(q, returns)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                stats.updates += 1
                stats.losses.append(loss.item())
            if stats.updates % 50 == 0:
                recent = stats.losses[-50:]
                progress.update(
                    task,
                    completed=elapsed,
                    info=f"{stats.rounds} rounds, loss {sum(recent) / max(1, len(recent)):.3f}",
                )
        progress.update(task, completed=seconds)
    stats.seconds = time.perf_counter() - start
    model.eval()
    return agent, stats


def evaluate(agent: DMCAgent, opponent: str, pairs: int, seed: int) -> dict[str, Any]:
    """Paired-deal arena rounds: the agent's bot against ``opponent``."""
    rules = Rules(players=4)
    fouronefour.bots.register("dmc", lambda: DMCBot(agent, rules))
    specs = (BotSpec("dmc"), BotSpec(opponent))
    records = run_arena(specs, rules, pairs=pairs, seed=seed, jobs=1)
    return summarize(specs, records, matches=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="training wall time")
    parser.add_argument("--pairs", type=int, default=200, help="paired deals per evaluation")
    parser.add_argument("--opponents", default="random", help="comma-separated bot names")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--save", help="write the trained network's weights here")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    agent, stats = train(args.minutes * 60, seed=args.seed)
    print(
        f"trained {stats.seconds / 60:.1f} min on {torch.get_num_threads()} CPU thread(s): "
        f"{stats.rounds:,} rounds, {stats.decisions:,} decisions, {stats.updates:,} updates, "
        f"final loss {np.mean(stats.losses[-200:]):.3f}"
    )
    if args.save:
        torch.save(agent.model.state_dict(), args.save)
        print(f"weights written to {args.save}")
    for opponent in filter(None, args.opponents.split(",")):
        begin = time.perf_counter()
        summary = evaluate(agent, opponent.strip(), args.pairs, seed=args.seed + 1)
        ours, theirs = summary["bots"]
        low, high = ours["round_win_ci95"]
        print(
            f"arena, {summary['rounds']} rounds ({summary['pairs']} paired deals) against "
            f"{theirs['bot']}: dmc wins {ours['round_win_rate']:.1%} (95% CI {low:.1%}-"
            f"{high:.1%}), levels per round {ours['levels_per_round']:.2f} vs "
            f"{theirs['levels_per_round']:.2f} [{time.perf_counter() - begin:.0f} s]"
        )


if __name__ == "__main__":
    main()
