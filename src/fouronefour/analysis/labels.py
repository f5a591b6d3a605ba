"""What a decision is called, from the win chance it lost.

The loss is ``best_win_chance - played_win_chance``. A loss counts only when it is larger
than :data:`CONFIDENCE` standard errors: the estimates come from sampled worlds, and a
move whose loss is within their noise is called ``good``, not marked. docs/analysis.md
says how the thresholds were chosen.
"""

from __future__ import annotations

#: Every label, from no choice at all to the worst.
LABELS = ("forced", "best", "good", "inaccuracy", "mistake", "blunder")

#: Marked labels and the loss of win chance at which each begins.
THRESHOLDS = {"inaccuracy": 0.05, "mistake": 0.10, "blunder": 0.20}

#: A loss is marked only if it exceeds this many standard errors of its estimate.
CONFIDENCE = 2.0

#: The labels shown to a player as marked moves.
MARKED = ("inaccuracy", "mistake", "blunder")


def label(loss: float, error: float) -> str:
    """The label of a decision with a choice, from its loss and the loss's standard error."""
    if loss <= 0.0:
        return "best"
    if loss <= CONFIDENCE * error:
        return "good"
    name = "good"
    for marked in MARKED:
        if loss >= THRESHOLDS[marked]:
            name = marked
    return name


__all__ = ["CONFIDENCE", "LABELS", "MARKED", "THRESHOLDS", "label"]
