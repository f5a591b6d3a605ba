"""Old tables leave the database; their finished matches stay as replays (docs/hosting.md,
"Old tables").

A table that is not being played (in the lobby, or finished) and has not changed for
``keep_days`` is deleted: its seats and their tokens, its options, its pending handoffs,
whatever belonged to no finished match. Its finished matches stay (seed, moves, result,
chat) with the names of its seats, so that each replay stays readable at its URL; the code
is never given to another table while they do. With ``keep_replay_days`` those archived
matches go too, that long after their table did.

How a table's age is known without a write on the path of any move: every pass notes each
table's status and version, and a table is due once its note is ``keep_days`` old, i.e.
its version has not moved since. Passes run every tenth of ``keep_days`` (at most hourly)
on a worker thread with their own database connection, and write in small transactions
(one table each, a few hundred notes each): the server's own writes wait for SQLite's lock
for at most 50 ms (storage.py), far longer than any of them holds it. A table held in
memory and used lately (or connected) is left for a later pass, and none is read back
while it is being deleted (``TableRegistry.retiring``).

A cluster's PostgreSQL database has the same passes, one process at a time
(:mod:`.postgres_retention`); what both keep alike is in :mod:`.retention`, and
:func:`~fouronefour.server.tidying.tidy` runs either through
:class:`~.interface.OldTables`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

from .retention import (
    BATCH,
    MATCH_ROWS,
    TABLE_ROWS,
    Terms,
    archived_seats,
    invite_hash_of,
    read_archive,
)

log = logging.getLogger(__name__)

#: Notes written per transaction.
NOTES_PER_TRANSACTION = 500

_SCHEMA = """
CREATE TABLE IF NOT EXISTS retention_seen (
    code TEXT PRIMARY KEY, status TEXT NOT NULL, version INTEGER NOT NULL,
    seen_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS archived_matches (
    code TEXT NOT NULL, number INTEGER NOT NULL, seats TEXT NOT NULL, archived_at REAL NOT NULL,
    invite_hash TEXT, PRIMARY KEY (code, number));
"""


class Retention(Terms):
    """The database side in a SQLite file: notes, deletions, archived matches. Thread-safe
    (one lock); :class:`ThreadedRetention` runs it off the event loop."""

    def __init__(
        self,
        path: str,
        keep_days: float,
        keep_replay_days: float = 0.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(keep_days, keep_replay_days, clock)
        self._conn = sqlite3.connect(
            path, timeout=5.0, check_same_thread=False, isolation_level=None
        )
        self._lock = threading.Lock()
        self._conn.executescript(_SCHEMA)
        columns = {row[1] for row in self._conn.execute("PRAGMA table_info(archived_matches)")}
        if "invite_hash" not in columns:  # (archives made before private tables)
            self._conn.execute("ALTER TABLE archived_matches ADD COLUMN invite_hash TEXT")
        names = {name for (name,) in self._conn.execute("SELECT name FROM sqlite_master")}
        # What goes with a table and with an archived match, where the database has it (a
        # file made before chat, analyses or handoffs has not).
        self._table_rows = [sql for name, sql in TABLE_ROWS if name in names]
        self._match_rows = [sql for name, sql in MATCH_ROWS if name in names]

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # ------------------------------------------------------------ tables

    def survey(self) -> list[tuple[str, int]]:
        """Note every table not being played; return those unchanged for ``keep_days``
        (code and the version they were noted at)."""
        now = self._clock()
        with self._lock:
            conn = self._conn
            current = {
                code: (status, version)
                for code, status, version in conn.execute(
                    "SELECT code, status, version FROM tables WHERE status != 'playing'"
                )
            }
            noted = {
                code: (status, version, seen_at)
                for code, status, version, seen_at in conn.execute(
                    "SELECT code, status, version, seen_at FROM retention_seen"
                )
            }
            changed = [
                (code, status, version, now)
                for code, (status, version) in current.items()
                if noted.get(code, (None, None))[:2] != (status, version)
            ]
            gone = [(code,) for code in noted if code not in current]
            for rows, statement in (
                (changed, "INSERT OR REPLACE INTO retention_seen VALUES (?, ?, ?, ?)"),
                (gone, "DELETE FROM retention_seen WHERE code = ?"),
            ):
                for start in range(0, len(rows), NOTES_PER_TRANSACTION):
                    conn.execute("BEGIN")
                    conn.executemany(statement, rows[start : start + NOTES_PER_TRANSACTION])
                    conn.execute("COMMIT")
            cutoff = self.table_cutoff(now)
            return [
                (code, version)
                for code, (status, version, seen_at) in noted.items()
                if code in current and current[code] == (status, version) and seen_at <= cutoff
            ]

    def retire(self, due: Iterable[tuple[str, int]]) -> list[str]:
        """Delete each table of ``due`` that is still as it was noted, keeping its finished
        matches; returns the codes deleted."""
        deleted = []
        with self._lock:
            for code, version in due:
                if self._retire(code, version):
                    deleted.append(code)
        return deleted

    def _retire(self, code: str, version: int) -> bool:
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute(
                "SELECT status, version, options FROM tables WHERE code = ?", (code,)
            ).fetchone()
            if row is None or row[0] == "playing" or row[1] != version:
                conn.execute("ROLLBACK")
                return False  # played again meanwhile: a later pass decides
            seats = conn.execute(
                "SELECT seat, name, kind FROM seats WHERE code = ? ORDER BY seat", (code,)
            )
            conn.execute(
                "INSERT OR REPLACE INTO archived_matches "
                "SELECT code, number, ?, ?, ? FROM matches WHERE code = ? AND over = 1",
                (archived_seats(seats), self._clock(), invite_hash_of(row[2]), code),
            )
            for statement in self._table_rows:
                conn.execute(statement, {"code": code})
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return True

    # ------------------------------------------------------------ archived matches

    def expire_replays(self) -> int:
        """Delete archived matches older than ``keep_replay_days`` (0: keep them); returns
        how many, at most ``BATCH`` a call."""
        cutoff = self.replay_cutoff()
        if cutoff is None:
            return 0
        with self._lock:
            conn = self._conn
            old = conn.execute(
                "SELECT code, number FROM archived_matches WHERE archived_at <= ? LIMIT ?",
                (cutoff, BATCH),
            ).fetchall()
            for code, number in old:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    for statement in self._match_rows:
                        conn.execute(statement, {"code": code, "number": number})
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
        return len(old)

    def archived(self, code: str) -> tuple[dict[int, list[dict[str, Any]]], str | None]:
        """The archived matches of a deleted table: number -> its seats (seat, name, kind);
        and its invite's hash if it was private (invites.py)."""
        rows: list[Any] = []
        with self._lock, contextlib.suppress(sqlite3.Error):  # (unreadable: none)
            rows = self._conn.execute(
                "SELECT number, seats, invite_hash FROM archived_matches WHERE code = ? "
                "ORDER BY number",
                (code,),
            ).fetchall()
        return read_archive(rows)


class ThreadedRetention:
    """:class:`Retention` as :class:`OldTables`: each call on a worker thread; a SQLite file
    has one server process, whose turn it always is."""

    def __init__(self, retention: Retention) -> None:
        self.retention = retention
        self.keep_days = retention.keep_days

    @property
    def interval(self) -> float:
        return self.retention.interval

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[bool]:
        yield True

    async def survey(self) -> list[tuple[str, int]]:
        return await asyncio.to_thread(self.retention.survey)

    async def retire(self, due: Iterable[tuple[str, int]]) -> list[str]:
        return await asyncio.to_thread(self.retention.retire, list(due))

    async def expire_replays(self) -> int:
        return await asyncio.to_thread(self.retention.expire_replays)

    async def archived(self, code: str) -> tuple[dict[int, list[dict[str, Any]]], str | None]:
        return await asyncio.to_thread(self.retention.archived, code)

    async def close(self) -> None:
        self.retention.close()
