"""What a table needs from the server around it, passed as one typed object."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..background.analyst import Analyst
from ..background.botrunner import BotRunner
from ..clock import Scheduler
from ..storage import Storage
from .fanout import Fanout


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
