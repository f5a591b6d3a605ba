"""Ship a run's weights as the package's ``learned`` bot, with the margin it plays with
and the player counts it plays.

    python -m fouronefour.train.export runs/a/learned.npz --margin 0.05 --players 2,3,4,6

The margin (how much more than the greedy choice another move must be worth to be played;
see :class:`fouronefour.bots.learned.LearnedBot`) is chosen by measuring candidates in the
arena, e.g. ``fouronefour arena learned:weights=runs/a/learned.npz,margin=0.05 greedy``.
The features do not depend on the number of players, so weights trained at one count can
play at others; ``--players`` declares the counts at which they measured better than the
greedy rules (``--players 6`` in the arena), and the bot plays greedy at the rest.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from fouronefour.bots.learned import WEIGHTS, QNetwork, save_weights


def export(
    source: Path,
    margin: float,
    target: Path = WEIGHTS,
    players: tuple[int, ...] | None = None,
) -> None:
    """Write ``source``'s weights to ``target`` with ``margin`` in their metadata, and
    ``players`` (default: the counts they were trained at) as the counts they play."""
    if players is not None and (not players or min(players) < 2 or max(players) > 8):
        raise ValueError(f"player counts are from 2 to 8, not {list(players)}")
    QNetwork.load(source)  # refuses weights the bot cannot use
    with np.load(source, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files if name != "meta"}
        meta = json.loads(str(data["meta"]))
    meta["margin"] = margin
    if players is not None:
        meta["players"] = sorted(set(players))
    save_weights(target, arrays, meta)


def _counts(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list") from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="a run's learned.npz")
    parser.add_argument("--margin", type=float, default=0.0)
    parser.add_argument("--to", type=Path, default=WEIGHTS, help="default: the package's")
    parser.add_argument(
        "--players", type=_counts, help="counts to play, e.g. 2,3,4,6 (default: as trained)"
    )
    args = parser.parse_args()
    try:
        export(args.source, args.margin, args.to, args.players)
    except ValueError as error:
        parser.error(str(error))
    print(f"{args.to}: {QNetwork.load(args.to).meta}")


if __name__ == "__main__":
    main()
