"""The storage interfaces a server's tables are written through: :class:`Storage` (writes
staged in order, written in batches, and reads) and :class:`Ownership` (which process
writes which table, in a cluster). SQLite (:mod:`.sqlite`) and PostgreSQL (:mod:`.postgres`)
implement both; tests/server/contract holds the suite every implementation passes. Beside
them, :class:`OldTables`: the retention of old tables in either database.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol, runtime_checkable

from .values import (
    Change,
    MatchSummary,
    StoredAnalysis,
    StoredChat,
    StoredMatch,
    StoredTable,
)


class DurableWaiters:
    """What waits for changes to be written: callbacks, each with the sequence number it
    waits for, called once the storage has written that far."""

    __slots__ = ("_pending",)

    def __init__(self) -> None:
        self._pending: list[tuple[int, Callable[[], None]]] = []

    def add(self, seq: int, callback: Callable[[], None]) -> None:
        self._pending.append((seq, callback))

    def release(self, durable_seq: int) -> None:
        """Call (in order) every callback waiting for ``durable_seq`` or less."""
        pending = self._pending
        if not pending:
            return
        if pending[-1][0] <= durable_seq:  # the usual case: a batch wrote all that waited
            self._pending = []
            due = pending
        else:
            due = [w for w in pending if w[0] <= durable_seq]
            self._pending = [w for w in pending if w[0] > durable_seq]
        for _, callback in due:
            callback()


class WrittenLater:
    """What a storage that writes its staged changes later (SQLite's group commit,
    PostgreSQL) tells of them: how far it has written, and whom that wakes."""

    durable_seq: int
    _waiters: DurableWaiters

    def when_durable(self, seq: int, callback: Callable[[], None]) -> None:
        if seq <= self.durable_seq:
            callback()
        else:
            self._waiters.add(seq, callback)

    async def wait_durable(self, seq: int) -> None:
        await wait_durable(self, seq)


async def wait_durable(storage: Storage | WrittenLater, seq: int) -> None:
    """Return once ``storage`` has written every change up to ``seq``."""
    if storage.durable_seq >= seq:
        return
    written: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def done() -> None:
        if not written.done():  # (cancelled if the waiter was)
            written.set_result(None)

    storage.when_durable(seq, done)
    await written


async def written_unless_failing(storage: Storage, seq: int, seconds: float) -> bool:
    """Wait for ``storage`` to write every change up to ``seq``, but only while it can:
    False at once if it cannot write (or after ``seconds``). For an answer that shows
    those changes and changes nothing itself: it is refused then, not held until the
    database is back."""
    if storage.durable_seq >= seq:
        return True
    if storage.failed:
        return False
    written = asyncio.ensure_future(wait_durable(storage, seq))
    deadline = asyncio.get_running_loop().time() + seconds
    try:
        while not written.done():
            left = deadline - asyncio.get_running_loop().time()
            if storage.failed or left <= 0:
                return False
            await asyncio.wait((written,), timeout=min(0.05, left))
        return True
    finally:
        written.cancel()


class Storage(Protocol):
    """Where a server's tables are kept: SQLite (:class:`GroupCommitStorage`) or PostgreSQL
    (:class:`~fouronefour.server.storage.postgres.PostgresStorage`); tests/server/contract holds the
    suite every implementation passes.

    Writes are staged in order and written in batches: :meth:`commit` returns the change's
    sequence number at once, and nothing that follows a change may leave the server before
    :meth:`wait_durable` for its number has returned (:attr:`durable_seq` has reached it).
    Reads are coroutines: they may wait on the network."""

    #: The last sequence number handed out, and the last one written.
    staged_seq: int
    durable_seq: int

    async def open(self) -> None:
        """Connect (creating or migrating the schema) and write from the running loop; raises
        :class:`StorageError` if the storage cannot be reached."""
        ...

    def commit(self, change: Change) -> int:
        """Stage ``change``; returns its sequence number."""
        ...

    def flush(self) -> None:
        """Start writing what is staged now rather than after this pass of the loop."""
        ...

    def when_durable(self, seq: int, callback: Callable[[], None]) -> None:
        """Call ``callback`` once every change up to ``seq`` is written (from the loop, after
        the write; at once if it is written already)."""
        ...

    async def wait_durable(self, seq: int) -> None:
        """Return once every change up to ``seq`` is written."""
        ...

    async def insert_table(self, table: StoredTable) -> None:
        """Write a new table at once (raises :class:`StorageError`, having written nothing,
        when it cannot, and when its code is taken)."""
        ...

    async def fetch_tables(self, status: str | None = None) -> list[StoredTable]: ...

    async def fetch_table(self, code: str) -> StoredTable | None: ...

    async def code_taken(self, code: str) -> bool: ...

    async def fetch_match(self, code: str, number: int) -> StoredMatch | None: ...

    async def fetch_matches(self, code: str) -> list[MatchSummary]:
        """The finished matches of a table, in order."""
        ...

    async def fetch_chat(self, code: str, match_number: int) -> list[StoredChat]:
        """The chat lines said while ``match_number`` was the table's current match."""
        ...

    async def store_analysis(self, code: str, analysis: StoredAnalysis) -> None:
        """Keep a round's analysis at once; one that is ``due`` only where the round has
        no row yet. Raises :class:`StorageError` when it cannot."""
        ...

    async def fetch_analysis(
        self, code: str, match_number: int, round_number: int
    ) -> StoredAnalysis | None:
        """A round's analysis, due or made; None if it was never due."""
        ...

    async def due_analyses(self, limit: int) -> list[tuple[str, int, int]]:
        """Up to ``limit`` analyses due, oldest rounds first: (code, match, round)."""
        ...

    async def pending_records(self, limit: int) -> list[tuple[str, int, str]]:
        """Up to ``limit`` finished matches' records (``ChangeExtra.record``) the players'
        store has not recorded yet, oldest first: (code, match number, record)."""
        ...

    async def records_done(self, keys: list[tuple[str, int]]) -> None:
        """The players' store has recorded these matches (code, match number)."""
        ...

    async def shutdown(self) -> None:
        """Write what is staged, as far as possible, and close."""
        ...

    @property
    def failed(self) -> bool:
        """True while the storage cannot write: tables refuse changes meanwhile."""
        ...

    @property
    def all_written(self) -> bool:
        """True when every change handed over is written (a table may then be unloaded and
        read back later as it is)."""
        ...


@runtime_checkable
class Ownership(Protocol):
    """Which process writes which table (its owner): in a cluster one process at a time
    (PostgreSQL's locks), in a SQLite file this process, always. Both storages implement it
    beside :class:`Storage`; the registry takes it apart (:func:`ownership_of`)."""

    async def own(self, code: str) -> bool:
        """Become the one process that writes table ``code`` (its owner); False if another
        process is. Only an owner's changes are written."""
        ...

    async def disown(self, code: str) -> None:
        """Stop owning ``code``, once its changes are written."""
        ...

    def on_lost(self, callback: Callable[[list[str]], None]) -> None:
        """Call ``callback`` with the tables this process owned and another took over while
        it could not reach the database: their changes not written are dropped."""
        ...

    async def orphans(self) -> list[str]:
        """The tables being played that no process owns."""
        ...


def ownership_of(storage: Storage) -> Ownership:
    """The table ownership kept by ``storage`` (both storages keep it)."""
    if not isinstance(storage, Ownership):
        raise TypeError(f"{type(storage).__name__} keeps no table ownership")
    return storage


class OldTables(Protocol):
    """Old tables' deletion and the matches it keeps (docs/hosting.md, "Old tables"), as
    :func:`~fouronefour.server.tidying.tidy` and the replay routes use it: SQLite's
    (:mod:`.sqlite_retention`) or PostgreSQL's (:mod:`.postgres_retention`)."""

    keep_days: float

    @property
    def interval(self) -> float: ...

    def turn(self) -> AbstractAsyncContextManager[bool]:
        """Whether this process runs a pass now (in a cluster, one process at a time)."""
        ...

    async def survey(self) -> list[tuple[str, int]]: ...

    async def retire(self, due: Iterable[tuple[str, int]]) -> list[str]: ...

    async def expire_replays(self) -> int: ...

    async def archived(self, code: str) -> tuple[dict[int, list[dict[str, Any]]], str | None]: ...

    async def close(self) -> None: ...
