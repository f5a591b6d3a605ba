"""Time and delayed calls, injected into a Table so tests can drive timers by hand."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


class Scheduler(Protocol):
    """Wall-clock time and callbacks after a delay, all on the table's own thread."""

    def now(self) -> float:
        """Seconds since the Unix epoch."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle: ...


class AsyncioScheduler:
    """The running event loop's timers; deadlines are wall-clock so clients can show them."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def now(self) -> float:
        return time.time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        return self._loop.call_later(max(0.0, delay), callback)


class _ManualHandle:
    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualScheduler:
    """A clock that only moves when told to: :meth:`advance` runs the callbacks that fall due,
    in time order (ties in the order they were scheduled)."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start
        self._queue: list[tuple[float, int, _ManualHandle, Callable[[], None]]] = []
        self._counter = itertools.count()

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        handle = _ManualHandle()
        heapq.heappush(
            self._queue, (self._now + max(0.0, delay), next(self._counter), handle, callback)
        )
        return handle

    def advance(self, seconds: float = 0.0) -> int:
        """Move the clock forward, running what falls due; returns how many callbacks ran."""
        target = self._now + seconds
        ran = 0
        while self._queue and self._queue[0][0] <= target:
            when, _, handle, callback = heapq.heappop(self._queue)
            self._now = max(self._now, when)
            if not handle.cancelled:
                callback()
                ran += 1
        self._now = target
        return ran

    def run_until_idle(self, limit: int = 100_000, step: float = 3600.0) -> int:
        """Run every pending callback, moving the clock as far as needed."""
        ran = 0
        while self.pending() and ran < limit:
            ran += self.advance(0.0) or self.advance(min(step, self._queue[0][0] - self._now))
        return ran

    def pending(self) -> int:
        return sum(1 for entry in self._queue if not entry[2].cancelled)
