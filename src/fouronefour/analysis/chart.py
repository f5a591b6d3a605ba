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
    """Each player's chance that their team wins, as they judged it before each of their
    decisions, through ``rounds`` ((number, analysis) pairs, one after the other): a line
    per player in their team's colour, marked moves on it. Partners' lines differ where
    their hands tell them different things: each line is its player's own view."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width = min(20.0, 6.0 + 0.03 * sum(len(d) for _, d in rounds))
    figure, axes = plt.subplots(figsize=(width, 4.6))
    seats = sorted({d["seat"] for _, decisions in rounds for d in decisions})
    names = {s: seat_names[s] if seat_names is not None else f"seat {s}" for s in seats}
    offset = 0
    for position, (number, decisions) in enumerate(rounds):
        xs = list(range(offset, offset + len(decisions)))
        for seat in seats:
            own = [(x, d) for x, d in zip(xs, decisions, strict=True) if d["seat"] == seat]
            axes.plot(
                [x for x, _ in own],
                [d["win_chance"] for _, d in own],
                color=_TEAM_COLOURS[seat % 2],
                linestyle=_STYLES[(seat // 2) % len(_STYLES)],
                linewidth=1.3,
                drawstyle="steps-post",
                label=f"{names[seat]} ({team_names[seat % 2]})" if position == 0 else None,
            )
        for label, colour in _COLOURS.items():
            marked = [(x, d) for x, d in zip(xs, decisions, strict=True) if d["label"] == label]
            axes.scatter(
                [x for x, _ in marked],
                [d["win_chance"] for _, d in marked],
                color=colour,
                edgecolors="black",
                linewidths=0.5,
                s=36,
                zorder=3,
                label=label if position == 0 else None,
            )
        if len(rounds) > 1:
            axes.axvline(offset - 0.5, color="grey", linewidth=0.6, linestyle=":")
            axes.text(offset, 1.02, f"round {number}", fontsize=8, color="grey")
        offset += len(decisions)
    axes.axhline(0.5, color="grey", linewidth=0.6, linestyle="--")
    axes.set_ylim(-0.03, 1.1 if len(rounds) > 1 else 1.03)
    axes.set_xlim(-0.5, max(0.5, offset - 0.5))
    axes.set_yticks([0, 0.25, 0.5, 0.75, 1], ["0%", "25%", "50%", "75%", "100%"])
    axes.set_xlabel("decision" if len(rounds) == 1 else "decision (rounds one after the other)")
    axes.set_ylabel("chance to win the round")
    axes.set_title(title)
    # Below the plot, where it hides no line.
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=8, ncols=4)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


__all__ = ["INSTALL_HINT", "available", "write_win_chart"]
