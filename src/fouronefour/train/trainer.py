"""Deep Monte-Carlo on Ray: rollout actors play rounds with the latest weights, the learner
(this process) regresses the network on the returns they bring, and sends the new weights
back through Ray's object store.

- **Actors** (:class:`RolloutWorker`, one Ray actor each, one CPU): play ``rounds_per_task``
  rounds per call with the weights they are handed (numpy, as the shipped bot) and return
  the samples. Each actor is resubmitted as soon as its batch arrives, with the newest
  weights, so playing and learning overlap.
- **Learner**: a replay of the most recent samples; per new sample, ``reuse / batch``
  updates (each sample is used about ``reuse`` times), mean squared error on the return.
- **Evaluation**: every ``eval_every`` seconds a snapshot of the weights plays paired deals
  against ``greedy`` and ``random`` on a separate actor; each result is a row of
  ``curve.csv`` and a point of ``curve.png``.
- **Checkpoints**: ``checkpoint.pt`` (network, optimizer, counters) and ``learned.npz``
  (the bot's weights) every ``checkpoint_every`` seconds and at the end; ``resume``
  continues from them, counters and curve included.

Locally Ray starts with one CPU per actor plus one for the evaluator; with ``address`` it
joins a running cluster (``auto`` on a cluster node, ``ray://head:10001`` from outside)
and the actors spread over its nodes.
"""

from __future__ import annotations

import csv
import json
import random
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import ray
import torch
from torch import nn

from fouronefour.bots.features import ACTION_SIZE, FEATURE_VERSION, STATE_SIZE
from fouronefour.bots.learned import QNetwork, save_weights

from .curve import CSV_FIELDS, draw_curve
from .evaluate import Score, evaluate
from .model import QModel, hidden_of
from .selfplay import EpisodeConfig, Samples, play_rounds

CHECKPOINT = "checkpoint.pt"
WEIGHTS = "learned.npz"
CURVE_CSV = "curve.csv"
CURVE_PNG = "curve.png"


@dataclass
class TrainConfig:
    out: Path = Path("train-runs/learned")
    minutes: float = 60.0
    samples: int | None = None  # stop once the run (resumes included) has this many
    actors: int = 2
    address: str | None = None
    resume: bool = False
    init: Path | None = None  # start from these weights (.npz) instead of random ones
    seed: int = 0
    hidden: tuple[int, ...] = (256, 256, 128)
    batch: int = 512
    lr: float = 3e-4
    reuse: float = 2.0
    replay: int = 100_000
    rounds_per_task: int = 8
    players: tuple[int, ...] = (4,)
    epsilon: float = 0.05
    greedy_share: float = 0.5
    rollout_share: float = 0.0
    rollout_moves: int = 8
    margin: float = 0.1  # the bot's margin over the greedy choice, in evaluation and export
    eval_every: float = 600.0
    eval_deals: int = 100
    checkpoint_every: float = 300.0
    threads: int = 1


@dataclass
class Counters:
    """What a run has spent so far, carried across ``--resume``."""

    seconds: float = 0.0
    samples: int = 0
    rounds: int = 0
    decisions: int = 0
    updates: int = 0
    actor_cpu: float = 0.0
    learner_cpu: float = 0.0
    eval_cpu: float = 0.0

    @property
    def cpu_hours(self) -> float:
        return (self.actor_cpu + self.learner_cpu + self.eval_cpu) / 3600.0


@dataclass
class Result:
    counters: Counters
    samples_per_second: float
    updates_per_second: float
    last_loss: float
    scores: list[Score] = field(default_factory=list)


class Replay:
    """The most recent samples, kept as float16."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.states = np.zeros((capacity, STATE_SIZE), dtype=np.float16)
        self.actions = np.zeros((capacity, ACTION_SIZE), dtype=np.float16)
        self.returns = np.zeros(capacity, dtype=np.float32)
        self.size = 0
        self.cursor = 0

    def add(self, samples: Samples) -> None:
        for start in range(0, len(samples), self.capacity):
            states = samples.states[start : start + self.capacity]
            n = len(states)
            rows = (self.cursor + np.arange(n)) % self.capacity
            self.states[rows] = states
            self.actions[rows] = samples.actions[start : start + n]
            self.returns[rows] = samples.returns[start : start + n]
            self.cursor = int((self.cursor + n) % self.capacity)
            self.size = min(self.capacity, self.size + n)

    def sample(
        self, batch: int, rng: np.random.Generator
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        rows = rng.integers(0, self.size, batch)
        return (
            torch.from_numpy(self.states[rows].astype(np.float32)),
            torch.from_numpy(self.actions[rows].astype(np.float32)),
            torch.from_numpy(self.returns[rows]),
        )


class RolloutWorker:
    """A rollout actor's state: its table settings and its own random stream."""

    def __init__(self, config: EpisodeConfig, seed: int) -> None:
        self.config = config
        self.rng = random.Random(seed)

    def play(self, arrays: dict[str, Any], rounds: int) -> Samples:
        return play_rounds(arrays, self.config, rounds, self.rng.randrange(1 << 62))

    def evaluate(self, arrays: dict[str, Any], opponent: str, deals: int, seed: int) -> Score:
        return evaluate(arrays, opponent, deals, seed)


def _meta(config: TrainConfig, counters: Counters) -> dict[str, Any]:
    return {
        "feature_version": FEATURE_VERSION,
        "players": list(config.players),
        "hidden": list(config.hidden),
        "samples": counters.samples,
        "rounds": counters.rounds,
        "updates": counters.updates,
        "cpu_hours": round(counters.cpu_hours, 3),
        "margin": config.margin,
    }


def _arrays(model: QModel, config: TrainConfig, counters: Counters) -> dict[str, Any]:
    arrays: dict[str, Any] = dict(model.to_arrays())
    arrays["meta"] = np.array(json.dumps(_meta(config, counters)))
    return arrays


def _start_ray(config: TrainConfig) -> bool:
    """Connect to Ray (or start it); True if this call started it."""
    if ray.is_initialized():
        return False
    if config.address:
        ray.init(address=config.address, log_to_driver=False)
    else:
        ray.init(num_cpus=config.actors + 1, include_dashboard=False, log_to_driver=False)
    return True


def _write_checkpoint(
    out: Path,
    model: QModel,
    optimizer: torch.optim.Optimizer,
    config: TrainConfig,
    counters: Counters,
) -> None:
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "hidden": list(config.hidden),
        "counters": asdict(counters),
        "feature_version": FEATURE_VERSION,
    }
    partial = out / (CHECKPOINT + ".partial")
    torch.save(state, partial)
    partial.replace(out / CHECKPOINT)
    partial_weights = out / (WEIGHTS + ".partial.npz")
    arrays = model.to_arrays()
    save_weights(partial_weights, arrays, _meta(config, counters))
    partial_weights.replace(out / WEIGHTS)


def _append_row(out: Path, row: dict[str, Any]) -> None:
    path = out / CURVE_CSV
    new = not path.exists()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
        if new:
            writer.writeheader()
        writer.writerow(row)


def train(config: TrainConfig, report: Callable[[float, str], None] | None = None) -> Result:
    """Train for ``config.minutes`` of wall time, or until ``config.samples`` samples
    (counted over resumes), whichever comes first (with ``resume`` the minutes are
    added to what the checkpoint has done)."""
    out = config.out
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    counters = Counters()
    checkpoint_path = out / CHECKPOINT
    if config.resume:
        if not checkpoint_path.exists():
            raise FileNotFoundError(f"--resume: no {CHECKPOINT} in {out}")
        state = torch.load(checkpoint_path, weights_only=True)
        if state["feature_version"] != FEATURE_VERSION:
            raise ValueError(f"{checkpoint_path} was trained on another feature version")
        config.hidden = tuple(state["hidden"])
        model = QModel(config.hidden)
        model.load_state_dict(state["model"])
        optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
        optimizer.load_state_dict(state["optimizer"])
        counters = Counters(**state["counters"])
    else:
        if config.init is not None:
            QNetwork.load(config.init)  # the bot must be able to read them
            with np.load(config.init, allow_pickle=False) as data:
                arrays = dict(data)
            config.hidden = hidden_of(arrays)
            model = QModel(config.hidden)
            model.load_arrays(arrays)
        else:
            model = QModel(config.hidden)
        optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
        for stale in (CURVE_CSV, CURVE_PNG):
            (out / stale).unlink(missing_ok=True)

    started_ray = _start_ray(config)
    try:
        return _Run(config, model, optimizer, counters).loop(report)
    finally:
        if started_ray:
            ray.shutdown()


class _Run:
    """One run of the loop: actors, evaluator, learner, and the bookkeeping between them."""

    def __init__(
        self,
        config: TrainConfig,
        model: QModel,
        optimizer: torch.optim.Optimizer,
        counters: Counters,
    ) -> None:
        self.config = config
        self.model = model
        self.optimizer = optimizer
        self.counters = counters
        episode = EpisodeConfig(
            players=config.players,
            epsilon=config.epsilon,
            greedy_share=config.greedy_share,
            rollout_share=config.rollout_share,
            rollout_moves=config.rollout_moves,
        )
        seed_base = config.seed * 1000 + counters.updates
        worker: Any = ray.remote(num_cpus=1)(RolloutWorker)  # handles are untyped
        self.actors: list[Any] = [
            worker.remote(episode, seed_base + i) for i in range(config.actors)
        ]
        # The evaluator asks for no CPU so it never waits for an actor to finish.
        evaluator: Any = ray.remote(num_cpus=0)(RolloutWorker)
        self.evaluator: Any = evaluator.remote(episode, seed_base + 999)
        self.replay = Replay(config.replay)
        self.sample_rng = np.random.default_rng(config.seed + counters.updates)
        self.loss_fn = nn.MSELoss()
        self.losses: list[float] = []
        self.owed = 0.0
        self.scores: list[Score] = []
        self.evaluation: tuple[list[Any], Counters, float] | None = None
        self.weights_ref = ray.put(_arrays(model, config, counters))
        self.start = time.perf_counter()
        self.base = Counters(**asdict(counters))

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def loop(self, report: Callable[[float, str], None] | None) -> Result:
        config = self.config
        pending = {
            actor.play.remote(self.weights_ref, config.rounds_per_task): actor
            for actor in self.actors
        }
        last_checkpoint = last_report = self.start
        last_eval = self.start
        if self.counters.samples == 0:
            last_eval -= config.eval_every  # a first point at the start
        interrupted = False
        # Ctrl-C or a plain kill (SIGTERM, which Ray's own handler would turn into an exit
        # without a checkpoint) stops the run the same way: checkpoint, then return.
        previous = signal.signal(signal.SIGTERM, _interrupt)
        try:
            while self.elapsed() < config.minutes * 60.0 and (
                config.samples is None or self.counters.samples < config.samples
            ):
                done, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
                for ref in done:
                    actor = pending.pop(ref)
                    samples: Samples = ray.get(ref)
                    # Resubmit first, with the weights at hand: the actor plays while we learn.
                    pending[actor.play.remote(self.weights_ref, config.rounds_per_task)] = actor
                    self.learn(samples)
                self.counters.seconds = self.base.seconds + self.elapsed()
                now = time.perf_counter()
                if self.evaluation is None and now - last_eval >= config.eval_every:
                    last_eval = now
                    self.start_evaluation()
                self.finish_evaluation(wait=False)
                if now - last_checkpoint >= config.checkpoint_every:
                    last_checkpoint = now
                    self.checkpoint()
                if report is not None and now - last_report >= 1.0:
                    last_report = now
                    report(self.elapsed(), self.status())
        except KeyboardInterrupt:
            interrupted = True  # stopped by hand: keep what was learned
        finally:
            signal.signal(signal.SIGTERM, previous)
            for actor in self.actors:
                ray.kill(actor)
        try:
            if not interrupted:
                # Every run ends with a point on the curve: one still being evaluated is
                # written first, and it is the last only if nothing was learned since.
                running = self.evaluation
                self.finish_evaluation(wait=True)
                if running is None or running[1].samples != self.counters.samples:
                    self.start_evaluation()
                    self.finish_evaluation(wait=True)
        finally:
            ray.kill(self.evaluator)
        self.counters.seconds = self.base.seconds + self.elapsed()
        self.checkpoint()
        seconds = max(self.elapsed(), 1e-9)
        return Result(
            counters=self.counters,
            samples_per_second=(self.counters.samples - self.base.samples) / seconds,
            updates_per_second=(self.counters.updates - self.base.updates) / seconds,
            last_loss=_mean(self.losses[-200:]),
            scores=self.scores,
        )

    def learn(self, samples: Samples) -> None:
        """Take an actor's samples and make the updates they are owed."""
        config, counters = self.config, self.counters
        self.replay.add(samples)
        counters.samples += len(samples)
        counters.rounds += samples.rounds
        counters.decisions += samples.decisions
        counters.actor_cpu += samples.cpu_seconds
        self.owed += config.reuse * len(samples) / config.batch
        cpu = time.process_time()
        while self.owed >= 1.0 and self.replay.size >= config.batch:
            self.owed -= 1.0
            states, actions, returns = self.replay.sample(config.batch, self.sample_rng)
            loss = self.loss_fn(self.model(states, actions), returns)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            counters.updates += 1
            self.losses.append(float(loss.item()))
        counters.learner_cpu += time.process_time() - cpu
        self.weights_ref = ray.put(_arrays(self.model, config, counters))

    def start_evaluation(self) -> None:
        config = self.config
        seed = config.seed + self.counters.updates
        deals = config.eval_deals
        refs = [
            self.evaluator.evaluate.remote(self.weights_ref, "greedy", deals, seed),
            self.evaluator.evaluate.remote(self.weights_ref, "random", max(1, deals // 4), seed),
        ]
        self.evaluation = (refs, Counters(**asdict(self.counters)), _mean(self.losses[-200:]))

    def finish_evaluation(self, wait: bool) -> None:
        """Write the evaluation's point to the curve once its results are in."""
        if self.evaluation is None:
            return
        refs, snapshot, loss = self.evaluation
        if not wait:
            ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
            if len(ready) < len(refs):
                return
        greedy_score, random_score = ray.get(refs)
        self.counters.eval_cpu += greedy_score.cpu_seconds + random_score.cpu_seconds
        self.scores.extend((greedy_score, random_score))
        out = self.config.out
        _append_row(out, _row(snapshot, loss, greedy_score, random_score))
        draw_curve(out / CURVE_CSV, out / CURVE_PNG)
        self.evaluation = None

    def checkpoint(self) -> None:
        _write_checkpoint(self.config.out, self.model, self.optimizer, self.config, self.counters)

    def status(self) -> str:
        counters, base = self.counters, self.base
        seconds = max(self.elapsed(), 1e-9)
        rate = (counters.samples - base.samples) / seconds
        updates = (counters.updates - base.updates) / seconds
        last = next((s for s in reversed(self.scores) if s.opponent == "greedy"), None)
        versus = f", vs greedy {last.rate:.1%}" if last else ""
        return (
            f"{counters.samples:,} samples ({rate:,.0f}/s), {counters.updates:,} updates "
            f"({updates:.1f}/s), loss {_mean(self.losses[-200:]):.3f}{versus}"
        )


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _row(counters: Counters, loss: float, greedy: Score, random_: Score) -> dict[str, Any]:
    greedy_low, greedy_high = greedy.interval
    random_low, random_high = random_.interval
    return {
        "seconds": round(counters.seconds, 1),
        "samples": counters.samples,
        "rounds": counters.rounds,
        "updates": counters.updates,
        "cpu_hours": round(counters.cpu_hours, 4),
        "loss": round(loss, 5),
        "greedy_win": round(greedy.rate, 4),
        "greedy_low": round(greedy_low, 4),
        "greedy_high": round(greedy_high, 4),
        "greedy_rounds": greedy.rounds,
        "random_win": round(random_.rate, 4),
        "random_low": round(random_low, 4),
        "random_high": round(random_high, 4),
        "random_rounds": random_.rounds,
    }


__all__ = ["Counters", "Replay", "Result", "RolloutWorker", "TrainConfig", "train"]
