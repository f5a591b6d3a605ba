"""Where the quick-match queue is kept: :class:`LocalQueue` in this process (one server),
:class:`~.redisqueue.RedisQueue` in a cluster's Redis. Both keep one entry a profile, send
whoever leaves and comes back to the back after a cooldown, and hand each matched person
their seat once the table is made."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import MatchCode, MatchError
from .pairing import Entry

#: The most people waiting at once (a stranger cannot grow the queue without end: each
#: entry is a profile's, and profiles are made at a limited rate per address).
MAX_WAITING = 20_000
#: Seconds a matched seat waits for its page to fetch it.
RESULT_SECONDS = 300.0
#: What a claimed person's seat is while their table is being made: their page keeps
#: waiting (it would otherwise find them neither in the queue nor seated, and give up).
MAKING: dict[str, Any] = {"making": True}
#: Seconds that mark lasts if the matching process dies before the table is made.
MAKING_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class QueueRules:
    #: Seconds after leaving the queue before the same profile may join again.
    cooldown_seconds: float = 5.0
    max_waiting: int = MAX_WAITING


def full() -> MatchError:
    return MatchError(MatchCode.QUEUE_FULL, "the quick-match queue is full: try again soon")


def already() -> MatchError:
    return MatchError(MatchCode.ALREADY_QUEUED, "you are in the quick-match queue already")


def cooling(seconds: float) -> MatchError:
    return MatchError(
        MatchCode.COOLING_DOWN,
        "you left the queue a moment ago: join again in a few seconds (at its back)",
        retry_after=seconds,
    )


class QueueStore(Protocol):
    async def join(self, profile: str, name: str, ordinal: float, now: float) -> Entry:
        """A new entry at the queue's back; refused while the profile is in the queue, was
        just seated, or left less than the cooldown ago."""
        ...

    async def leave(self, profile: str, now: float) -> bool:
        """Out of the queue (its cooldown starts); False if it was not in it."""
        ...

    async def waiting(self) -> list[Entry]: ...

    async def count(self) -> int:
        """How many wait (cheap: every waiting page asks it)."""
        ...

    async def entry(self, profile: str) -> Entry | None: ...

    async def entries(self, profiles: Iterable[str]) -> list[Entry]:
        """The entries of those of ``profiles`` who wait now (one read: play again looks
        for the players' friends among them)."""
        ...

    async def claim(self, profiles: Iterable[str], now: float) -> list[Entry] | None:
        """Take these people out of the queue together, if every one is still in it; their
        seat is :data:`MAKING` until :meth:`seated` (or :meth:`put_back`)."""
        ...

    async def put_back(self, entries: Iterable[Entry]) -> None:
        """Entries taken by :meth:`claim` whose table could not be made: back in their places."""
        ...

    async def seated(self, profile: str, seat: dict[str, Any], now: float) -> None:
        """The profile's seat at its new table, kept for its page to fetch."""
        ...

    async def seat_of(self, profile: str, now: float) -> dict[str, Any] | None: ...

    async def forget(self, profile: str) -> None:
        """Everything of the profile (a deleted profile, a page that took its seat)."""
        ...

    async def lock(self, holder: str, seconds: float) -> bool:
        """Whether ``holder`` matches now (nobody else does until it unlocks, or until
        ``seconds`` have passed if it dies meanwhile)."""
        ...

    async def unlock(self, holder: str) -> None: ...


class LocalQueue:
    """The queue of a single server, in its memory (a restart empties it: people's pages
    join again)."""

    def __init__(
        self, rules: QueueRules | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        self.rules = rules or QueueRules()
        self._entries: dict[str, Entry] = {}
        self._cooldown: dict[str, float] = {}
        self._seats: dict[str, tuple[float, dict[str, Any]]] = {}
        self._seq = 0
        self._clock = clock
        self._lock: tuple[str, float] | None = None

    async def join(self, profile: str, name: str, ordinal: float, now: float) -> Entry:
        if profile in self._entries:
            raise already()
        until = self._cooldown.get(profile, 0.0)
        if until > now:
            raise cooling(until - now)
        if len(self._entries) >= self.rules.max_waiting:
            raise full()
        self._seats.pop(profile, None)
        self._seq += 1
        entry = Entry(profile, name, ordinal, now, self._seq)
        self._entries[profile] = entry
        if len(self._cooldown) > self.rules.max_waiting:  # (old cooldowns go)
            self._cooldown = {p: t for p, t in self._cooldown.items() if t > now}
        return entry

    async def leave(self, profile: str, now: float) -> bool:
        if self._entries.pop(profile, None) is None:
            return False
        self._cooldown[profile] = now + self.rules.cooldown_seconds
        return True

    async def waiting(self) -> list[Entry]:
        return list(self._entries.values())

    async def count(self) -> int:
        return len(self._entries)

    async def entry(self, profile: str) -> Entry | None:
        return self._entries.get(profile)

    async def entries(self, profiles: Iterable[str]) -> list[Entry]:
        return [e for e in map(self._entries.get, profiles) if e is not None]

    async def claim(self, profiles: Iterable[str], now: float) -> list[Entry] | None:
        wanted = list(profiles)
        if not all(p in self._entries for p in wanted):
            return None
        for profile in wanted:
            self._seats[profile] = (now + MAKING_SECONDS, MAKING)
        return [self._entries.pop(p) for p in wanted]

    async def put_back(self, entries: Iterable[Entry]) -> None:
        for entry in entries:
            self._seats.pop(entry.profile, None)
            self._entries.setdefault(entry.profile, entry)

    async def seated(self, profile: str, seat: dict[str, Any], now: float) -> None:
        self._seats[profile] = (now + RESULT_SECONDS, seat)
        if len(self._seats) > self.rules.max_waiting:
            self._seats = {p: s for p, s in self._seats.items() if s[0] > now}

    async def seat_of(self, profile: str, now: float) -> dict[str, Any] | None:
        found = self._seats.get(profile)
        if found is None or found[0] <= now:
            return None
        return found[1]

    async def forget(self, profile: str) -> None:
        self._entries.pop(profile, None)
        self._seats.pop(profile, None)

    async def lock(self, holder: str, seconds: float) -> bool:
        now = self._clock()
        if self._lock is not None and self._lock[0] != holder and self._lock[1] > now:
            return False
        self._lock = (holder, now + seconds)
        return True

    async def unlock(self, holder: str) -> None:
        if self._lock is not None and self._lock[0] == holder:
            self._lock = None
