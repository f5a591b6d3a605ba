"""The learning curve: ``curve.csv`` (one row per evaluation) drawn as ``curve.png``, the
win rate against ``greedy`` and ``random`` over training time and over samples."""

from __future__ import annotations

import csv
from pathlib import Path

CSV_FIELDS = (
    "seconds",
    "samples",
    "rounds",
    "updates",
    "cpu_hours",
    "loss",
    "greedy_win",
    "greedy_low",
    "greedy_high",
    "greedy_rounds",
    "random_win",
    "random_low",
    "random_high",
    "random_rounds",
)


def read_curve(path: Path) -> list[dict[str, float]]:
    with path.open(newline="") as handle:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(handle)]


def draw_curve(csv_path: Path, png_path: Path) -> None:
    """Two panels, against hours of training and against samples; a band for each 95%
    interval, and the 50% line (even with the opponent)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    rows = read_curve(csv_path)
    if not rows:
        return
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for axis, key, label in (
        (axes[0], "seconds", "training time (hours, wall clock)"),
        (axes[1], "samples", "samples (millions)"),
    ):
        scale = 3600.0 if key == "seconds" else 1e6
        xs = [row[key] / scale for row in rows]
        for opponent, colour in (("greedy", "tab:blue"), ("random", "tab:green")):
            ys = [row[f"{opponent}_win"] for row in rows]
            axis.plot(xs, ys, marker="o", markersize=3, color=colour, label=f"vs {opponent}")
            axis.fill_between(
                xs,
                [row[f"{opponent}_low"] for row in rows],
                [row[f"{opponent}_high"] for row in rows],
                color=colour,
                alpha=0.15,
            )
        axis.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
        axis.set_xlabel(label)
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("rounds won (paired deals, 95% interval)")
    axes[0].set_ylim(0, 1)
    axes[0].legend(loc="lower right")
    last = rows[-1]
    figure.suptitle(
        f"learned bot: {last['samples'] / 1e6:.2f} M samples, {last['cpu_hours']:.2f} CPU-hours"
    )
    figure.tight_layout()
    partial = png_path.with_suffix(".partial.png")
    figure.savefig(partial, dpi=100)
    plt.close(figure)
    partial.replace(png_path)


__all__ = ["CSV_FIELDS", "draw_curve", "read_curve"]
