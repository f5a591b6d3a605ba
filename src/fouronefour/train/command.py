"""``fouronefour train``: train the ``learned`` bot with Deep Monte-Carlo on Ray.

Imports torch and ray only when it runs, so the command is listed (and says how to
install what it needs) in an installation without the ``train`` extra.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .trainer import Result, TrainConfig

INSTALL_HINT = (
    "fouronefour train needs the train extra (torch, ray, matplotlib): "
    "pip install 'fouronefour[train]' (from a checkout: pip install -e '.[train]')"
)


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a comma-separated list of numbers"
        ) from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: every size must be at least 1")
    return sizes


def _positive(kind: type[int] | type[float]) -> Callable[[str], int | float]:
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text!r} must be positive")
        return value

    return parse


#: The settings with a default, in the order ``--help`` lists them: flag, how its text is
#: read, default, what it sets.
SETTINGS: tuple[tuple[str, Callable[[str], object], object, str], ...] = (
    ("--minutes", _positive(float), 60.0, "wall time to train in this run"),
    ("--actors", _positive(int), 2, "rollout actors"),
    ("--seed", int, 0, "seeds the network and the actors"),
    ("--hidden", _sizes, "256,256,128", "hidden layer sizes"),
    ("--batch", _positive(int), 512, "samples per update"),
    ("--lr", _positive(float), 3e-4, "Adam step size"),
    (
        "--reuse",
        _positive(float),
        2.0,
        "updates per sample x batch: how often a sample is used",
    ),
    ("--replay", _positive(int), 100_000, "samples kept for the learner"),
    (
        "--rounds-per-task",
        _positive(int),
        8,
        "rounds an actor plays before it hands in its samples",
    ),
    ("--players", _sizes, "4", "player counts to train at, e.g. 4 or 4,6"),
    ("--epsilon", float, 0.05, "share of random moves, to explore"),
    ("--greedy-share", float, 0.5, "share of rounds against the greedy bot, the rest self-play"),
    (
        "--rollout-share",
        float,
        0.0,
        "share of rounds whose decisions are labelled by greedy rollouts in a sampled world "
        "(search distillation) instead of by their return, as Deep Monte-Carlo",
    ),
    ("--rollout-moves", _positive(int), 8, "moves labelled per decision in those rounds"),
    (
        "--margin",
        float,
        0.1,
        "how much more than the greedy choice a move must be worth for the bot to play it, "
        "in the curve's games and the exported weights",
    ),
    ("--eval-every", _positive(float), 600.0, "seconds between points of the learning curve"),
    (
        "--eval-deals",
        _positive(int),
        100,
        "paired deals against greedy per point, a quarter as many against random",
    ),
    ("--checkpoint-every", _positive(float), 300.0, "seconds between checkpoints"),
    ("--threads", _positive(int), 1, "torch threads of the learner"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Train the learned bot: rollout actors on Ray play rounds with the latest weights, "
        "a learner regresses the network on the returns (Deep Monte-Carlo). Writes "
        "checkpoint.pt, learned.npz (the bot's weights), curve.csv and curve.png to --out. "
        "Measure the weights with: fouronefour arena learned:weights=OUT/learned.npz greedy"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("train-runs/learned"),
        help="directory for checkpoint, weights and curve (default %(default)s)",
    )
    parser.add_argument(
        "--samples",
        type=_positive(int),
        help="stop once this many samples are done (resumed runs included), if sooner "
        "than --minutes",
    )
    parser.add_argument(
        "--address",
        help="a running Ray cluster: 'auto' on one of its nodes, or "
        "ray://HEAD:10001 (default: start Ray on this machine)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue from --out's checkpoint (counters and curve included)",
    )
    parser.add_argument(
        "--init", type=Path, help="start from these weights (.npz) instead of random ones"
    )
    for flag, kind, default, text in SETTINGS:
        parser.add_argument(flag, type=kind, default=default, help=f"{text} (default %(default)s)")


def run(args: argparse.Namespace) -> int:
    try:
        from .trainer import TrainConfig, train
    except ImportError as error:
        print(f"{INSTALL_HINT} ({error})", file=sys.stderr)
        return 2
    for name, value in (
        ("--epsilon", args.epsilon),
        ("--greedy-share", args.greedy_share),
        ("--rollout-share", args.rollout_share),
    ):
        if not 0.0 <= value <= 1.0:
            print(f"{name} must be between 0 and 1, not {value}", file=sys.stderr)
            return 2
    if max(args.players) > 8 or min(args.players) < 2:
        print("--players must be between 2 and 8", file=sys.stderr)
        return 2
    config = TrainConfig(
        out=args.out,
        minutes=args.minutes,
        samples=args.samples,
        actors=args.actors,
        address=args.address,
        resume=args.resume,
        init=args.init,
        seed=args.seed,
        hidden=args.hidden,
        batch=args.batch,
        lr=args.lr,
        reuse=args.reuse,
        replay=args.replay,
        rounds_per_task=args.rounds_per_task,
        players=args.players,
        epsilon=args.epsilon,
        greedy_share=args.greedy_share,
        rollout_share=args.rollout_share,
        rollout_moves=args.rollout_moves,
        margin=args.margin,
        eval_every=args.eval_every,
        eval_deals=args.eval_deals,
        checkpoint_every=args.checkpoint_every,
        threads=args.threads,
    )
    try:
        result = _train_with_progress(config, train)
    except (FileNotFoundError, ValueError) as error:
        print(f"fouronefour train: {error}", file=sys.stderr)
        return 2
    c = result.counters
    print(
        f"trained {c.seconds / 3600:.2f} h in all ({c.cpu_hours:.2f} CPU-hours): "
        f"{c.samples:,} samples, {c.rounds:,} rounds, {c.updates:,} updates; this run "
        f"{result.samples_per_second:,.0f} samples/s, {result.updates_per_second:.1f} "
        f"updates/s with {config.actors} actor(s); loss {result.last_loss:.3f}"
    )
    for score in result.scores[-2:]:
        low, high = score.interval
        print(
            f"vs {score.opponent}: {score.rate:.1%} [{low:.1%}, {high:.1%}] of "
            f"{score.rounds} rounds"
        )
    print(f"weights: {config.out / 'learned.npz'}, curve: {config.out / 'curve.png'}")
    return 0


def _train_with_progress(config: TrainConfig, train: Callable[..., Result]) -> Result:
    """A rich progress bar on a terminal; a line a minute otherwise (logs, nohup)."""
    seconds = config.minutes * 60.0
    if not sys.stderr.isatty():
        last = [-60.0]

        def line(elapsed: float, text: str) -> None:
            if elapsed - last[0] >= 60.0:
                last[0] = elapsed
                print(
                    f"[{elapsed / 60:.0f}/{config.minutes:.0f} min] {text}",
                    file=sys.stderr,
                    flush=True,
                )

        return train(config, line)
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (
        TextColumn("training"),
        BarColumn(),
        TextColumn("{task.fields[info]}"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, transient=False) as progress:
        task = progress.add_task("train", total=seconds, info="starting Ray")

        def update(elapsed: float, text: str) -> None:
            progress.update(task, completed=elapsed, info=text)

        result = train(config, update)
        progress.update(task, completed=seconds)
    return result
