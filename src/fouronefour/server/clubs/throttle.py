"""The clubs' flood limits: token buckets per key, in this process or, in a cluster, in
Redis for every process (as the players' throttle, players/throttle.py)."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..players.throttle import Budget
from ..ratelimit import AddressBuckets
from ..tables.chat import CHAT_LINES, CHAT_SECONDS

if TYPE_CHECKING:
    from ..cluster.broker import Broker


class Flood(enum.StrEnum):
    #: Chat wall lines per speaker in a club: a table chat's limit (tables/chat.py).
    CHAT = "chat"
    #: Chat wall lines of a whole club: many members together cannot drown it either.
    CLUB_CHAT = "club-chat"
    #: Clubs made, joined, renamed, members changed: per profile.
    CHANGE = "change"
    #: Club table links opened (each may make a table): per profile.
    TABLE = "table"


BUDGETS: dict[Flood, Budget] = {
    Flood.CHAT: Budget(CHAT_LINES, CHAT_LINES / CHAT_SECONDS),
    Flood.CLUB_CHAT: Budget(30, 1.0),
    Flood.CHANGE: Budget(20, 1 / 3),
    Flood.TABLE: Budget(10, 1 / 6),
}


class ClubThrottle:
    """Buckets per (flood, key): this process's, or the cluster's when ``broker`` is given
    (each process falls back to its own while Redis is away, as every shared limit)."""

    def __init__(
        self,
        broker: Broker | None = None,
        budgets: dict[Flood, Budget] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        chosen = budgets or BUDGETS
        self._local = {
            flood: AddressBuckets(b.per_second, b.burst)
            if clock is None
            else AddressBuckets(b.per_second, b.burst, clock)
            for flood, b in chosen.items()
        }
        self._shared = None
        if broker is not None:
            from ..cluster.shared import SharedBuckets

            self._shared = {
                flood: SharedBuckets(broker, f"clubs:{flood}", b.per_second, b.burst)
                for flood, b in chosen.items()
            }

    async def take(self, flood: Flood, key: str) -> float:
        """0.0 if ``key`` had a token (taken), else the seconds until it has one."""
        if self._shared is not None:
            return await self._shared[flood].take(key)
        return self._local[flood].take(key)
