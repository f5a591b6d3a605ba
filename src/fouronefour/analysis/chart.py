"""The win-chance graph of analysed rounds as a PNG, drawn with matplotlib when it is
installed (the ``charts`` extra)."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import graph

#: What to tell a user who has no matplotlib.
INSTALL_HINT = "pip install 'fouronefour[charts]'"

#: Marker colour of each marked label.
_COLOURS = {"inaccuracy": "#e0b000", "mistake": "#e07000", "blunder": "#c00000"}
#: Team A's colour (the browser's graph draws the same line).
_TEAM_A = "#3b7dd8"
#: Panels per row when several rounds are drawn.
_COLUMNS = 4


def available() -> bool:
    """Whether matplotlib can be imported (it is imported only when a chart is drawn)."""
    try:
        return importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        return False


def write_win_chart(
    rounds: Sequence[tuple[int, Sequence[dict[str, Any]]]],
    path: Path,
    title: str,
    team_names: Sequence[str] = ("Team A", "Team B"),
) -> None:
    """The round's graph, as the browser draws it, for ``rounds`` ((number, analysis)
    pairs): a panel per round, one line of Team A's chance to win the round before each
    decision (each decision's ``graph_chance``: the mean of every seat's latest own
    estimate, analysis/graph.py), with the marked moves on it. It does not swing with who
    decides, as a line through the deciders' own estimates would."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = min(len(rounds), _COLUMNS)
    rows = -(-len(rounds) // columns)
    single = len(rounds) == 1
    figure, grid = plt.subplots(
        rows,
        columns,
        figsize=(8.6, 4.6) if single else (3.6 * columns, 2.3 * rows + 1.0),
        sharey=True,
        squeeze=False,
    )
    for position, (number, decisions) in enumerate(rounds):
        axes = grid[position // columns][position % columns]
        values = [d["graph_chance"] for d in decisions]
        axes.plot(
            range(len(values)),
            values,
            color=_TEAM_A,
            linewidth=1.5 if single else 1.1,
            drawstyle="steps-post",
            label=f"{team_names[0]}'s chance",
        )
        axes.fill_between(
            range(len(values)), values, graph.EVEN, step="post", color=_TEAM_A, alpha=0.12
        )
        for label, colour in _COLOURS.items():
            marked = [x for x, d in enumerate(decisions) if d["label"] == label]
            axes.scatter(
                marked,
                [values[x] for x in marked],
                color=colour,
                edgecolors="black",
                linewidths=0.5,
                s=36 if single else 20,
                zorder=3,
                label=label,
            )
        axes.axhline(graph.EVEN, color="grey", linewidth=0.6, linestyle="--")
        axes.set_ylim(-0.03, 1.03)
        axes.set_xlim(-0.5, max(0.5, len(decisions) - 0.5))
        axes.set_yticks([0, 0.25, 0.5, 0.75, 1], ["0%", "25%", "50%", "75%", "100%"])
        if single:
            axes.set_xlabel("decision")
            axes.set_ylabel(f"{team_names[0]}'s chance to win the round")
        else:
            axes.set_title(f"round {number}", fontsize=9)
            axes.tick_params(labelsize=7)
    for position in range(len(rounds), rows * columns):
        grid[position // columns][position % columns].axis("off")
    figure.suptitle(title)
    handles, labels = grid[0][0].get_legend_handles_labels()
    # Below the panels, where it hides no line.
    figure.legend(handles, labels, loc="lower center", fontsize=8, ncols=4)
    figure.tight_layout(rect=(0, 0.065 if single else 0.9 / (2.3 * rows + 1.0), 1, 1))
    figure.savefig(path, dpi=100)
    plt.close(figure)


__all__ = ["INSTALL_HINT", "available", "write_win_chart"]
