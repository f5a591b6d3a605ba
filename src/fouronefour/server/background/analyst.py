"""Rounds analysed in the background, in worker processes (docs/analysis.md, "For a
server"; the endpoint that shows them: analysisview.py).

A round that ends is due: the change that ended it writes a row saying so (storage.py,
``ChangeExtra.analysis``), and once that change is written the table's owner queues the
round here. A few worker processes, spawned on first use and niced to the lowest priority,
each analyse one round at a time (:func:`fouronefour.analysis.analyse_match_round`) from
the match as stored; the result is stored with the table and never made again. Nothing of
it runs on the event loop but a read of the match and a write of the result.

A round is also analysed while it is played, in parts of at least
:data:`PART_DECISIONS` decisions, whenever the workers have no ended round to analyse: each
decision's analysis depends on the round before it alone, so the parts give what the round
gives whole, and when it ends only its last decisions are left (ready within the pause
after a round). The parts live in memory only: after a restart or a failover the round is
analysed whole.

Bounded: at most ``queue_limit`` rounds wait in memory, as keys, and as many rounds being
played keep their parts. A round that finds the
queue full stays due in the database, and the sweep (every :data:`SWEEP_SECONDS`, and at
start) queues it once there is room; the sweep also finds what was due when the server
stopped, and in a cluster takes only the rounds of tables this process owns.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from ...analysis import analyse_match_round
from ...analysis.graph import fill_graph
from ..outage import Outage
from ..storage import Storage, StorageError, StoredAnalysis, StoredMatch
from .workers import worker_init

log = logging.getLogger(__name__)

#: (table code, match number, round number)
RoundKey = tuple[str, int, int]

#: How often the database is asked for rounds due that are not queued.
SWEEP_SECONDS = 30.0
#: A first guess of one analysis's seconds at 64 worlds, before any was timed.
FIRST_GUESS_SECONDS = 10.0
#: A round being played is analysed in parts of at least this many decisions (a part is
#: asked for when the workers are idle; small parts would spend more on reading the match).
PART_DECISIONS = 12


class Analyst:
    """The queue of rounds to analyse and the worker processes that analyse them.

    ``processes`` 0: nothing is analysed (and no round is made due). ``owns(code)`` says
    whether this process analyses the rounds of table ``code`` (its owner; set by the app
    before :meth:`start`)."""

    def __init__(
        self, storage: Storage, processes: int, worlds: int = 64, queue_limit: int = 256
    ) -> None:
        if worlds < 2:
            raise ValueError(f"analysis worlds must be at least 2, not {worlds}")
        self.storage = storage
        #: The database away: told once, not for each round (they stay due).
        self._outage = Outage(log, "the database, for round analyses")
        self.processes = max(0, processes)
        self.worlds = worlds
        self.queue_limit = queue_limit
        self.owns: Callable[[str], Awaitable[bool]] = _everything
        self._queue: deque[RoundKey] = deque()
        #: Rounds queued or being analysed (never queued twice).
        self._known: set[RoundKey] = set()
        self._running: set[RoundKey] = set()
        self._ready = asyncio.Event()
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._tasks: list[asyncio.Task[None]] = []
        #: Rounds being played: how many moves their match had, as last written.
        self._played: dict[RoundKey, int] = {}
        #: Rounds being played: their decisions analysed so far, and the match's moves then.
        self._parts: dict[RoundKey, tuple[list[dict[str, object]], int]] = {}
        #: One analysis of a round at a time (a part and the round's end).
        self._locks: dict[RoundKey, asyncio.Lock] = {}
        #: Seconds the last analysis took (for the hint of when to ask again).
        self._seconds = FIRST_GUESS_SECONDS * worlds / 64
        #: Rounds analysed here since start, and parts of rounds being played (tests, logs).
        self.analysed = 0
        self.parts_analysed = 0

    @property
    def enabled(self) -> bool:
        return self.processes > 0

    # ------------------------------------------------------------ running

    def start(self) -> None:
        if not self.enabled:
            return
        self._ready = asyncio.Event()  # (of the running loop)
        self._tasks = [asyncio.create_task(self._work()) for _ in range(self.processes)]
        self._tasks.append(asyncio.create_task(self._sweep_forever()))

    async def shutdown(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        self._stop_pool()

    def _stop_pool(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # A round being analysed is not waited for (seconds of CPU): it is still due in the
        # database and analysed again after the restart. The executor has no public way to
        # stop a running worker before Python 3.14 (terminate_workers).
        workers = list(getattr(pool, "_processes", {}).values())
        for worker in workers:
            with contextlib.suppress(Exception):
                worker.terminate()
        for worker in workers:  # (then the pool can be shut down and its queues closed:
            with contextlib.suppress(Exception):  # left open, they leaked semaphores)
                worker.join(1)
        pool.shutdown(wait=True, cancel_futures=True)

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            # Spawned (the server has threads: forking it is unsafe) and niced: analysis is
            # the least urgent work of the machine. They end with the server (workers.py).
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=worker_init,
                initargs=(os.getpid(), 19),
            )
        return self._pool

    # ------------------------------------------------------------ queueing

    def round_ended(self, code: str, match_number: int, round_number: int, seq: int) -> None:
        """Round ``round_number`` of ``code``'s match ended with change ``seq``, which made
        it due: queue it once that change is written."""
        if self.enabled:
            key = (code, match_number, round_number)

            def written() -> None:
                self.queue(key)  # (a full queue: the sweep finds it due)

            self.storage.when_durable(seq, written)

    def round_progressed(
        self, code: str, match_number: int, round_number: int, moves: int, seq: int
    ) -> None:
        """Round ``round_number`` of ``code``'s match goes on: its match has ``moves`` moves
        once change ``seq`` is written; a part of it is analysed when the workers are idle."""
        if not self.enabled:
            return
        key = (code, match_number, round_number)

        def written() -> None:
            if key not in self._played and len(self._played) >= self.queue_limit:
                oldest = next(iter(self._played))  # a round nobody plays on any more, likely
                self._forget_parts(oldest)
            self._played[key] = max(moves, self._played.get(key, 0))
            self._ready.set()

        self.storage.when_durable(seq, written)

    def _forget_parts(self, key: RoundKey) -> None:
        self._played.pop(key, None)
        self._parts.pop(key, None)

    def _part_due(self) -> RoundKey | None:
        """A round being played with enough decisions not analysed yet, if any."""
        for key, moves in self._played.items():
            analysed = self._parts.get(key, ([], 0))[1]
            if moves - analysed >= PART_DECISIONS and key not in self._running:
                return key
        return None

    def _lock(self, key: RoundKey) -> asyncio.Lock:
        return self._locks.setdefault(key, asyncio.Lock())

    def queue(self, key: RoundKey, asked: bool = False) -> bool:
        """Analyse ``key`` when its turn comes; False if the queue is full (a round due in
        the database is queued later by the sweep). ``asked``: somebody is waiting for it,
        so it goes before the rounds nobody asked for yet."""
        if not self.enabled:
            return False
        if key in self._known:
            if asked and key in self._queue:
                self._queue.remove(key)
                self._queue.appendleft(key)
            return True
        if len(self._queue) >= self.queue_limit:
            return False
        self._known.add(key)
        if asked:
            self._queue.appendleft(key)
        else:
            self._queue.append(key)
        self._ready.set()
        return True

    def retry_after(self, key: RoundKey) -> float:
        """Seconds after which the analysis of ``key`` may be ready (a guess)."""
        ahead = len(self._queue)
        with contextlib.suppress(ValueError):
            ahead = self._queue.index(key)
        rounds = ahead + (0 if key in self._running else 1) + len(self._running)
        return max(1.0, self._seconds * rounds / max(1, self.processes))

    async def _sweep_forever(self) -> None:
        while True:
            try:
                await self.sweep()
            except StorageError as error:
                self._outage.failed(error, "rounds stay due, analysed once it is back")
            await asyncio.sleep(SWEEP_SECONDS)

    async def sweep(self) -> int:
        """Queue the rounds due in the database that this process analyses and that are not
        queued yet, as far as there is room; returns how many were queued."""
        room = self.queue_limit - len(self._queue)
        if room <= 0:
            return 0
        queued = 0
        for key in await self.storage.due_analyses(room + len(self._known)):
            if key in self._known or not await self.owns(key[0]):
                continue
            if not self.queue(key):
                break
            queued += 1
        return queued

    # ------------------------------------------------------------ analysing

    async def _work(self) -> None:
        while True:
            if self._queue:
                key = self._queue.popleft()
                self._running.add(key)
                try:
                    async with self._lock(key):
                        await self._analyse(key)
                except StorageError as error:  # still due: the sweep queues it again
                    self._outage.failed(error, "rounds stay due, analysed once it is back")
                except Exception:
                    log.exception("analysis of %s failed", key)
                else:
                    self._outage.back()
                finally:
                    self._running.discard(key)
                    self._known.discard(key)
                    self._locks.pop(key, None)
                continue
            part = self._part_due()
            if part is None:
                self._ready.clear()
                await self._ready.wait()
                continue
            self._running.add(part)
            try:
                async with self._lock(part):
                    await self._analyse_part(part)
            except (StorageError, ValueError, concurrent.futures.BrokenExecutor) as error:
                # the round is analysed whole when it ends
                log.info("part of the analysis of %s not made: %s", part, error)
                self._forget_parts(part)
                if isinstance(error, concurrent.futures.BrokenExecutor):
                    self._stop_pool()  # a worker died: a new pool for what comes next
            except Exception:
                log.exception("part of the analysis of %s failed", part)
                self._forget_parts(part)
            finally:
                self._running.discard(part)

    def _rest_of(
        self, key: RoundKey, match: StoredMatch
    ) -> tuple[list[dict[str, object]], Callable[[], list[dict[str, Any]]]]:
        """Round ``key``'s decisions analysed so far, and the job that analyses the rest of
        what ``match`` holds of it (in a worker)."""
        done, _ = self._parts.get(key, ([], 0))
        job = functools.partial(
            analyse_match_round,
            match.rules,
            match.seed,
            match.moves,
            key[2],
            worlds=self.worlds,
            first=len(done),
        )
        return done, job

    async def _analyse_part(self, key: RoundKey) -> None:
        """Analyse the decisions of round ``key`` played since its last part."""
        code, match_number, _ = key
        match = await self.storage.fetch_match(code, match_number)
        if match is None:
            self._forget_parts(key)
            return
        done, job = self._rest_of(key, match)
        decisions = await asyncio.get_running_loop().run_in_executor(self._executor(), job)
        if key in self._played:  # (not forgotten meanwhile)
            self._parts[key] = (done + decisions, len(match.moves))
        self.parts_analysed += 1

    async def _analyse(self, key: RoundKey) -> None:
        code, match_number, round_number = key
        stored = await self.storage.fetch_analysis(code, match_number, round_number)
        if stored is not None and not stored.due:
            self._forget_parts(key)
            return  # made already (before a restart, or by the table's previous owner)
        match = await self.storage.fetch_match(code, match_number)
        if match is None:
            return  # the table was deleted meanwhile
        done, job = self._rest_of(key, match)
        warm = self._pool is not None  # (a new pool spends its first seconds starting)
        started = time.monotonic()
        decisions = None
        error = None
        try:
            decisions = await asyncio.get_running_loop().run_in_executor(self._executor(), job)
        except concurrent.futures.BrokenExecutor:
            # A worker died (killed, out of memory): a new pool for the next round; this one
            # is not tried again, in case it is what kills them.
            self._stop_pool()
            error = "the worker analysing this round died"
        except ValueError as problem:  # moves the engine refuses: a damaged match
            error = str(problem)
        if decisions is not None:
            decisions = fill_graph(done + decisions)
        self._forget_parts(key)
        if warm and error is None and not done:  # (a round's last part is no whole round)
            self._seconds = time.monotonic() - started
        if error is not None:
            log.error("cannot analyse round %d of match %d of %s: %s", *key[::-1], error)
        await self.storage.store_analysis(
            code, StoredAnalysis(match_number, round_number, self.worlds, decisions, error)
        )
        self.analysed += 1


async def _everything(code: str) -> bool:
    return True


__all__ = ["SWEEP_SECONDS", "Analyst", "RoundKey"]
