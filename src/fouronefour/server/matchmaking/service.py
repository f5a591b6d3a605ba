"""Quick match and play again as one server holds them (built by routes/quickmatch.py,
``build_matchmaking``): in this process alone, or (a cluster) with the queue and the
limits in Redis."""

from __future__ import annotations

from dataclasses import dataclass

from .again import PlayAgain
from .quickmatch import QuickMatch


@dataclass(eq=False)
class Matchmaking:
    quick: QuickMatch
    again: PlayAgain
