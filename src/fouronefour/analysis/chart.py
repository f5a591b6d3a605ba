"""The win-chance graph of analysed rounds as a PNG, drawn with matplotlib when it is
installed (the ``charts`` extra)."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: What to tell a user who has no matplotlib.
INSTALL_HINT = "pip install 'fouronefour[charts]'"

#: Marker colour of each marked label.
_COLOURS = {"inaccuracy": "#e0b000", "mistake": "#e07000", "blunder": "#c00000"}
_TEAM_COLOURS = ("#3b7dd8", "#d8703b")
#: Partners share their team's colour and differ by line style.
_STYLES = ("-", "--", ":", "-.")
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
    team_names: Sequence[str] = ("team 0", "team 1"),
    seat_names: Sequence[str] | None = None,
) -> None:
    """Each player's chance that their team wins the round, as they judged it before each
    of their decisions, for ``rounds`` ((number, analysis) pairs): a panel per round, a
    line per player in their team's colour, marked moves on it. Partners' lines differ
    where their hands tell them different things: each line is its player's own view."""
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
    seats = sorted({d["seat"] for _, decisions in rounds for d in decisions})
    names = {s: seat_names[s] if seat_names is not None else f"seat {s}" for s in seats}
    for position, (number, decisions) in enumerate(rounds):
        axes = grid[position // columns][position % columns]
        for seat in seats:
            own = [(x, d) for x, d in enumerate(decisions) if d["seat"] == seat]
            axes.plot(
                [x for x, _ in own],
                [d["win_chance"] for _, d in own],
                color=_TEAM_COLOURS[seat % 2],
                linestyle=_STYLES[(seat // 2) % len(_STYLES)],
                linewidth=1.3 if single else 1.0,
                drawstyle="steps-post",
                label=f"{names[seat]} ({team_names[seat % 2]})",
            )
        for label, colour in _COLOURS.items():
            marked = [(x, d) for x, d in enumerate(decisions) if d["label"] == label]
            axes.scatter(
                [x for x, _ in marked],
                [d["win_chance"] for _, d in marked],
                color=colour,
                edgecolors="black",
                linewidths=0.5,
                s=36 if single else 20,
                zorder=3,
                label=label,
            )
        axes.axhline(0.5, color="grey", linewidth=0.6, linestyle="--")
        axes.set_ylim(-0.03, 1.03)
        axes.set_xlim(-0.5, max(0.5, len(decisions) - 0.5))
        axes.set_yticks([0, 0.25, 0.5, 0.75, 1], ["0%", "25%", "50%", "75%", "100%"])
        if single:
            axes.set_xlabel("decision")
            axes.set_ylabel("chance to win the round")
        else:
            axes.set_title(f"round {number}", fontsize=9)
            axes.tick_params(labelsize=7)
    for position in range(len(rounds), rows * columns):
        grid[position // columns][position % columns].axis("off")
    figure.suptitle(title)
    handles, labels = grid[0][0].get_legend_handles_labels()
    # Below the panels, where it hides no line.
    figure.legend(handles, labels, loc="lower center", fontsize=8, ncols=4)
    figure.tight_layout(rect=(0, 0.12 if single else 0.9 / (2.3 * rows + 1.0), 1, 1))
    figure.savefig(path, dpi=100)
    plt.close(figure)


__all__ = ["INSTALL_HINT", "available", "write_win_chart"]
