"""What a table needs from the server around it, passed as one typed object."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..background.analyst import Analyst
from ..background.botrunner import BotRunner
from ..clock import Scheduler
from ..storage import Storage
from .fanout import Fanout


class TurnWatcher(Protocol):
    def turn(self, code: str, seat: int, profile: str, turn: tuple[int, int]) -> None:
        """A turn fell to ``seat``, held by signed-in ``profile``: ``turn`` is the match's
        number and its decisions taken so far (the same pair: the same turn, again)."""
        ...


@dataclass(frozen=True, slots=True)
class TableServices:
    """Shared by every table of a server (tests give each table its own)."""

    storage: Storage
    fanout: Fanout
    scheduler: Scheduler
    bots: BotRunner
    #: The seed of each new match (from the OS, or a fixed stream in tests).
    seeds: Callable[[], int]
    #: Seconds a bot waits before acting, so people can follow.
    bot_delay: float = 0.8
    #: Analyses the rounds that end (analysis.py); None: none are.
    analyst: Analyst | None = None
    #: Told when a turn falls to a signed-in player (Web Push's "your turn"); None: nobody.
    turns: TurnWatcher | None = None
