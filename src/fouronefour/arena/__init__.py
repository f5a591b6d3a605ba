"""The arena: two bots measured against each other on paired deals.

Team 0 holds the even seats, team 1 the odd ones. Every deal is played twice with the
teams swapped (a paired comparison: each bot holds each set of hands once), so the luck
of the deal cancels out. Rounds mode plays single rounds from fresh deals (round 1 of a
match: level 2, no tribute); matches mode plays whole matches, each match seed twice.

``fouronefour arena A B`` (:mod:`fouronefour.arena.command`) runs it from the terminal;
the library parts are usable on their own::

    specs = (BotSpec.parse("greedy"), BotSpec.parse("search:budget_ms=50"))
    summary = summarize(specs, run_arena(specs, Rules(), pairs=100, seed=1), matches=False)
"""

from .games import GameRecord, play_pair, run_arena
from .spec import BotSpec
from .stats import percentile, summarize, wilson

__all__ = ["BotSpec", "GameRecord", "percentile", "play_pair", "run_arena", "summarize", "wilson"]
