"""Quick match: people join the public queue, a pass now and then seats them at rated
tables (pairing.py decides who with whom), and each page learns its seat when it asks.

In a cluster the queue is in Redis and any process takes a page's calls; the pass is made
by one process at a time (the queue's lock), which creates the tables (it owns them) and
leaves each person's seat in the queue for their page to fetch, wherever it asks.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ErrorCode
from ..outage import Outage
from ..players.throttle import Attempt, LocalThrottle, Throttle
from ..storage import StorageError
from .errors import MatchCode, MatchError
from .pairing import SEATS, Spread, Table, tables
from .queue import MAKING, QueueStore
from .tablemaker import Seated, Sitter

log = logging.getLogger(__name__)

#: How long the matching process may hold the lock before another may take over.
LOCK_SECONDS = 10.0
#: Makes a table with these seats (None: a bot) and options; each person's seat.
TableMaker = Callable[[Sequence[Sitter | None], dict[str, Any]], Awaitable[dict[int, Seated]]]
#: Whether a profile is still there (not deleted since it joined).
Present = Callable[[str], Awaitable[bool]]


async def _everyone(profile: str) -> bool:
    return True


class ChangeLimit:
    """The joins and leaves one profile may make (the players' throttle: this process's
    buckets, or in a cluster Redis's, shared by every process); a flood is refused,
    ``rate_limited``, and changes nothing."""

    def __init__(self, throttle: Throttle | None = None) -> None:
        self._throttle = throttle or LocalThrottle()

    async def check(self, profile: str) -> None:
        wait = await self._throttle.take(Attempt.QUICKMATCH_PROFILE, profile)
        if wait > 0:
            raise MatchError(
                ErrorCode.RATE_LIMITED, "too many quick-match changes: wait a moment", wait
            )


@dataclass(frozen=True, slots=True)
class Person:
    """Who asks: the session's profile, its name and rating."""

    profile: str
    name: str
    ordinal: float


class QuickMatch:
    def __init__(
        self,
        queue: QueueStore,
        make: TableMaker,
        spread: Spread | None = None,
        clock: Callable[[], float] = time.time,
        limit: ChangeLimit | None = None,
        present: Present = _everyone,
    ) -> None:
        self.queue = queue
        self._present = present
        self.spread = spread or Spread()
        self._make = make
        self._clock = clock
        self._limit = limit or ChangeLimit()
        self.holder = secrets.token_hex(8)

    async def join(self, person: Person) -> dict[str, Any]:
        await self._limit.check(person.profile)
        now = self._clock()
        entry = await self.queue.join(person.profile, person.name, person.ordinal, now)
        return {"state": "waiting", "waited_ms": 0, "joined_at": entry.joined_at}

    async def leave(self, person: Person) -> dict[str, Any]:
        await self._limit.check(person.profile)
        if not await self.queue.leave(person.profile, self._clock()):
            raise MatchError(MatchCode.NOT_QUEUED, "you are not in the quick-match queue")
        return {"state": "idle"}

    async def status(self, person: Person) -> dict[str, Any]:
        """Waiting (and for how long), seated (the seat and its token), or neither.

        The entry is read before the seat: a claim takes the entry and marks the seat in one
        step, so a person being seated between the two reads is found either way."""
        now = self._clock()
        entry = await self.queue.entry(person.profile)
        if entry is not None:
            spread = self.spread
            return {
                "state": "waiting",
                "waited_ms": round(entry.waited(now) * 1000),
                "bots_after_ms": round(
                    max(0.0, spread.bot_fill_seconds - entry.waited(now)) * 1000
                ),
                "waiting": await self.queue.count(),
            }
        seat = await self.queue.seat_of(person.profile, now)
        if seat == MAKING:  # (matched: the table is being made)
            return {"state": "waiting", "waited_ms": 0, "bots_after_ms": 0, "found": True}
        if seat is not None:
            return {"state": "seated", **seat}
        return {"state": "idle"}

    # ------------------------------------------------------------ the profile's data

    #: Under this name in a profile's export (players' ``ProfileData``).
    name = "quickmatch"

    async def export(self, profile: str) -> dict[str, Any]:
        """What the queue holds of the profile now: its entry, and the table it was seated
        at (the seat's token is left out: a secret, already in the page that took it)."""
        try:
            entry = await self.queue.entry(profile)
            seat = await self.queue.seat_of(profile, self._clock())
        except MatchError:
            return {"unavailable": "the queue did not answer"}
        body: dict[str, Any] = {"waiting": None, "seated": None}
        if entry is not None:
            body["waiting"] = {"joined_at": entry.joined_at, "rating": entry.ordinal}
        if seat is not None and seat != MAKING:
            body["seated"] = {"code": seat.get("code"), "seat": seat.get("seat")}
        return body

    async def forget(self, profile: str) -> None:
        """A deleted profile leaves the queue (were Redis away, the next pass drops it)."""
        try:
            await self.queue.forget(profile)
        except MatchError as error:
            log.warning("quick match kept a deleted profile for a pass: %s", error.message)

    async def match_once(self) -> list[Table]:
        """One pass: the tables due now made, their people told; returns them. Only one
        process of a cluster makes a pass at a time."""
        if not await self.queue.lock(self.holder, LOCK_SECONDS):
            return []
        try:
            now = self._clock()
            made = []
            waiting = await self.queue.waiting()
            # (off the event loop: a crowded queue takes a moment to pair, pairing.py)
            for table in await asyncio.to_thread(tables, waiting, now, self.spread):
                if await self._seat(table, now):
                    made.append(table)
            return made
        finally:
            await self.queue.unlock(self.holder)

    async def _seat(self, table: Table, now: float) -> bool:
        gone = [e.profile for e in table.people if not await self._present(e.profile)]
        if gone:  # (deleted since they joined: out of the queue; the rest wait a pass)
            for profile in gone:
                await self.queue.forget(profile)
            return False
        claimed = await self.queue.claim((e.profile for e in table.people), now)
        if claimed is None:  # (someone left meanwhile: the rest wait for the next pass)
            return False
        sitters: list[Sitter | None] = [Sitter(e.name, e.profile) for e in table.people]
        sitters += [None] * (SEATS - len(sitters))
        options = {"rated": True, "bot": table.bot_level}
        try:
            seated = await self._make(sitters, options)
        except MatchError as error:
            if error.code is not ErrorCode.STORAGE_ERROR:  # (the storage tells its outage)
                log.warning("a quick-match table could not be made: %s", error.message)
            await self.queue.put_back(claimed)
            return False
        for seat, entry in enumerate(table.people):
            await self.queue.seated(entry.profile, seated[seat].to_dict(), now)
        return True

    async def keep_matching(self, seconds: float = 1.0) -> None:
        """A pass about every ``seconds``, for good (cancel to stop). Redis or the database
        away is told by the broker or the storage (one line each way); the pass waits
        quietly meanwhile and logs only what else goes wrong, once each way (outage.py)."""
        outage = Outage(log, "the quick-match pass")
        while True:
            await asyncio.sleep(seconds)
            try:
                await self.match_once()
            except (MatchError, StorageError) as error:
                if isinstance(error, MatchError) and error.code is not ErrorCode.BROKER_UNAVAILABLE:
                    outage.failed(error.message, "the queue waits; tried again every second")
            except Exception as error:
                outage.failed(error, "the queue waits; tried again every second")
            else:
                outage.back()
