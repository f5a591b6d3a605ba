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


def write_chart(summary: dict[str, Any], path: Path, title: str) -> None:
    """A PNG: round win rate with its 95% interval, and levels gained per round."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bots = summary["bots"]
    labels = [b["bot"] for b in bots]
    rates = [b["round_win_rate"] for b in bots]
    errors = [
        [b["round_win_rate"] - b["round_win_ci95"][0] for b in bots],
        [b["round_win_ci95"][1] - b["round_win_rate"] for b in bots],
    ]
    figure, (left, middle, right) = plt.subplots(1, 3, figsize=(11, 3.6))
    left.bar(labels, rates, yerr=errors, capsize=6, color=["#3b7dd8", "#d8703b"])
    left.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    left.set_ylim(0, 1)
    left.set_title("round win rate (95% CI)")
    middle.bar(labels, [b["levels_per_round"] for b in bots], color=["#3b7dd8", "#d8703b"])
    middle.set_title("levels gained per round")
    x = range(len(bots))
    right.bar([i - 0.2 for i in x], [b["decision_ms_mean"] for b in bots], 0.4, label="mean")
    right.bar([i + 0.2 for i in x], [b["decision_ms_p95"] for b in bots], 0.4, label="p95")
    right.set_xticks(list(x), labels)
    right.set_title("decision time (ms)")
    right.legend()
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
