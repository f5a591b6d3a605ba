"""Post-game analysis: where a round was won and lost.

>>> from fouronefour.analysis import analyse_round

``analyse_round(start, moves, worlds=64, seed=0)`` judges every decision of a round as its
seat could judge it before moving: the chance that the seat's team wins, estimated by
playing the round out in worlds where the cards the seat cannot see are dealt at random
consistently with what it has seen and with how each seat plays; the best move among a
few candidates; and a label (``forced``, ``best``, ``good``, ``inaccuracy``, ``mistake``,
``blunder``).
docs/analysis.md describes the method, its cost and how honest its estimates are.
Depends on the bots and the engine only.
"""

from .decision import DecisionAnalysis
from .labels import CONFIDENCE, LABELS, MARKED, THRESHOLDS
from .rollouts import RolloutPolicy, bot_policy, greedy_policy
from .rounds import (
    analyse_match_round,
    analyse_round,
    analyse_round_details,
    match_rounds,
)

__all__ = [
    "CONFIDENCE",
    "LABELS",
    "MARKED",
    "THRESHOLDS",
    "DecisionAnalysis",
    "RolloutPolicy",
    "analyse_match_round",
    "analyse_round",
    "analyse_round_details",
    "bot_policy",
    "greedy_policy",
    "match_rounds",
]
