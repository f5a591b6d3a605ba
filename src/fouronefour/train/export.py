"""Ship a run's weights as the package's ``learned`` bot, with the margin it plays with.

    python -m fouronefour.train.export runs/a/learned.npz --margin 0.05

The margin (how much more than the greedy choice another move must be worth to be played;
see :class:`fouronefour.bots.learned.LearnedBot`) is chosen by measuring candidates in the
arena, e.g. ``fouronefour arena learned:weights=runs/a/learned.npz,margin=0.05 greedy``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from fouronefour.bots.learned import WEIGHTS, QNetwork, save_weights


def export(source: Path, margin: float, target: Path = WEIGHTS) -> None:
    """Write ``source``'s weights to ``target`` with ``margin`` in their metadata."""
    QNetwork.load(source)  # refuses weights the bot cannot use
    with np.load(source, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files if name != "meta"}
        meta = json.loads(str(data["meta"]))
    meta["margin"] = margin
    save_weights(target, arrays, meta)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="a run's learned.npz")
    parser.add_argument("--margin", type=float, default=0.0)
    parser.add_argument("--to", type=Path, default=WEIGHTS, help="default: the package's")
    args = parser.parse_args()
    export(args.source, args.margin, args.to)
    print(f"{args.to}: {QNetwork.load(args.to).meta}")


if __name__ == "__main__":
    main()
