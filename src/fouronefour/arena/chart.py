"""The arena's PNG chart, drawn with matplotlib when it is installed (the ``charts`` extra)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

#: What to tell a user who has no matplotlib.
INSTALL_HINT = "pip install 'fouronefour[charts]'"


def available() -> bool:
    """Whether matplotlib can be imported (it is imported only when a chart is drawn)."""
    try:
        return importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        return False


#: One colour per bot, the same in every panel: bot A, bot B.
BOT_COLOURS = ("#3b7dd8", "#d8703b")


def write_chart(summary: dict[str, Any], path: Path, title: str) -> None:
    """A PNG of a run's figures, one panel each: match win rate (matches mode) and round win
    rate with their 95% intervals, levels gained per round, and decision time (bars the
    mean, black marks the p95). Each bot keeps its colour in every panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bots = summary["bots"]
    names = [b["bot"] for b in bots]
    x = list(range(len(bots)))
    rates = [("round_win_rate", "round_win_ci95", "round win rate (95% CI)")]
    if summary["mode"] == "matches":
        rates.insert(0, ("match_win_rate", "match_win_ci95", "match win rate (95% CI)"))
    figure, axes = plt.subplots(1, len(rates) + 2, figsize=(3.7 * (len(rates) + 2), 3.8))
    for axis, (rate, interval, label) in zip(axes, rates, strict=False):
        values = [b[rate] for b in bots]
        errors = [
            [b[rate] - b[interval][0] for b in bots],
            [b[interval][1] - b[rate] for b in bots],
        ]
        axis.bar(x, values, yerr=errors, capsize=6, color=BOT_COLOURS)
        axis.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
        axis.set_ylim(0, 1)
        axis.set_title(label)
    levels, times = axes[-2], axes[-1]
    levels.bar(x, [b["levels_per_round"] for b in bots], color=BOT_COLOURS)
    levels.set_title("levels gained per round")
    times.bar(x, [b["decision_ms_mean"] for b in bots], color=BOT_COLOURS)
    times.scatter(x, [b["decision_ms_p95"] for b in bots], marker="_", s=900, color="black")
    times.set_ylim(bottom=0)
    times.set_title("decision ms (bar: mean, line: p95)")
    for axis in axes:
        axis.set_xticks(x, names)
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
