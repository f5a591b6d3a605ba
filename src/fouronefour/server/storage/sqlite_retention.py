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
(:mod:`.pgretention`); :func:`tidy` runs either through :class:`OldTables`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

import orjson

log = logging.getLogger(__name__)

DAY = 86_400.0
#: Tables deleted per hand-off to the worker thread (each in a transaction of its own).
BATCH = 20
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


def pass_interval(keep_days: float) -> float:
    """Seconds between passes: a tenth of the keeping time, at most an hour."""
    return min(3600.0, keep_days * DAY / 10)


class OldTables(Protocol):
    """The database side of the passes, as :func:`tidy` uses it."""

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


class Retention:
    """The database side in a SQLite file: notes, deletions, archived matches. Thread-safe
    (one lock); :class:`ThreadedRetention` runs it off the event loop."""

    def __init__(
        self,
        path: str,
        keep_days: float,
        keep_replay_days: float = 0.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.keep_days = keep_days
        self.keep_replay_days = keep_replay_days
        self._clock = clock
        self._conn = sqlite3.connect(
            path, timeout=5.0, check_same_thread=False, isolation_level=None
        )
        self._lock = threading.Lock()
        self._conn.executescript(_SCHEMA)
        columns = {row[1] for row in self._conn.execute("PRAGMA table_info(archived_matches)")}
        if "invite_hash" not in columns:  # (archives made before private tables)
            self._conn.execute("ALTER TABLE archived_matches ADD COLUMN invite_hash TEXT")
        names = {name for (name,) in self._conn.execute("SELECT name FROM sqlite_master")}
        #: Rows of a table that go with it, where the database has them.
        self._per_table = [name for name in ("handoffs", "claims") if name in names]
        self._has_chat = "chat" in names
        self._has_analyses = "analyses" in names

    @property
    def interval(self) -> float:
        return pass_interval(self.keep_days)

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
            cutoff = now - self.keep_days * DAY
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
            seats = [
                {"seat": seat, "name": name, "kind": kind}
                for seat, name, kind in conn.execute(
                    "SELECT seat, name, kind FROM seats WHERE code = ? ORDER BY seat", (code,)
                )
            ]
            now = self._clock()
            # A private table's replays stay private: its invite's hash goes with them.
            invite_hash = orjson.loads(row[2]).get("invite_hash")
            conn.execute(
                "INSERT OR REPLACE INTO archived_matches "
                "SELECT code, number, ?, ?, ? FROM matches WHERE code = ? AND over = 1",
                (orjson.dumps(seats).decode(), now, invite_hash, code),
            )
            unfinished = "SELECT number FROM matches WHERE code = ? AND over = 0"
            conn.execute(
                f"DELETE FROM moves WHERE code = ? AND number IN ({unfinished})", (code, code)
            )
            if self._has_chat:  # lines said in the lobby or in no finished match
                conn.execute(
                    "DELETE FROM chat WHERE code = ? AND match_number NOT IN "
                    "(SELECT number FROM matches WHERE code = ? AND over = 1)",
                    (code, code),
                )
            if self._has_analyses:  # (those of its finished matches stay with them)
                conn.execute(
                    f"DELETE FROM analyses WHERE code = ? AND match_number IN ({unfinished})",
                    (code, code),
                )
            conn.execute("DELETE FROM matches WHERE code = ? AND over = 0", (code,))
            for table in (*self._per_table, "seats", "tables", "retention_seen"):
                conn.execute(f"DELETE FROM {table} WHERE code = ?", (code,))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return True

    # ------------------------------------------------------------ archived matches

    def expire_replays(self) -> int:
        """Delete archived matches older than ``keep_replay_days`` (0: keep them); returns
        how many, at most ``BATCH`` a call."""
        if self.keep_replay_days <= 0:
            return 0
        cutoff = self._clock() - self.keep_replay_days * DAY
        with self._lock:
            conn = self._conn
            old = conn.execute(
                "SELECT code, number FROM archived_matches WHERE archived_at <= ? LIMIT ?",
                (cutoff, BATCH),
            ).fetchall()
            for code, number in old:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    conn.execute("DELETE FROM moves WHERE code = ? AND number = ?", (code, number))
                    if self._has_chat:
                        conn.execute(
                            "DELETE FROM chat WHERE code = ? AND match_number = ?", (code, number)
                        )
                    if self._has_analyses:
                        conn.execute(
                            "DELETE FROM analyses WHERE code = ? AND match_number = ?",
                            (code, number),
                        )
                    for table in ("matches", "archived_matches"):
                        conn.execute(
                            f"DELETE FROM {table} WHERE code = ? AND number = ?", (code, number)
                        )
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
        return len(old)

    def archived(self, code: str) -> tuple[dict[int, list[dict[str, Any]]], str | None]:
        """The archived matches of a deleted table: number -> its seats (seat, name, kind);
        and its invite's hash if it was private (invites.py)."""
        matches: dict[int, list[dict[str, Any]]] = {}
        invite_hash = None
        with self._lock, contextlib.suppress(sqlite3.Error):  # (unreadable: none)
            for number, seats, hashed in self._conn.execute(
                "SELECT number, seats, invite_hash FROM archived_matches WHERE code = ? "
                "ORDER BY number",
                (code,),
            ):
                matches[number] = orjson.loads(seats)
                invite_hash = hashed  # (the same in every match of one table)
        return matches, invite_hash


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
