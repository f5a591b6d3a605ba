"""Old tables leave a cluster's PostgreSQL database; their finished matches stay as replays.

The same rules as :mod:`.sqlite_retention` (what both keep alike: :mod:`.retention`): a
table not being played and unchanged for ``keep_days`` is deleted, its finished matches
archived with its seats' names; archived matches go ``keep_replay_days`` after their table
did (0: never). Two things differ in a cluster:

- **One process at a time.** Every process runs passes; a pass starts only if its process
  takes the retention's advisory lock (:data:`RETENTION_LOCK`, on the pass's own
  connection), so two processes never survey or delete together, and a process that dies
  mid-pass lets go with its connection.
- **Never a table somebody owns.** A table is deleted in a transaction that first takes the
  table's owner lock (:func:`~.postgres.lock_key`, as a transaction lock): if any process
  owns the table (holds it in memory), it is left for a later pass; while the deletion runs,
  no process can take the table, and once it is committed there is nothing left to take.
  Each process's own passes let go of its own idle tables first (``TableRegistry.unload``),
  so a table left in the memory of one process is deleted by that process's next pass.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from .postgres import OWNER_LOCKS, lock_key
from .retention import (
    BATCH,
    MATCH_ROWS,
    TABLE_ROWS,
    Terms,
    archived_seats,
    invite_hash_of,
    positional,
    read_archive,
)

#: The key of the advisory lock a process holds while it runs a pass (any fixed number).
RETENTION_LOCK = 414_017

_NOTE = """
INSERT INTO retention_seen (code, status, version, seen_at)
SELECT code, status, version, $1 FROM tables WHERE status != 'playing'
ON CONFLICT (code) DO UPDATE
SET status = excluded.status, version = excluded.version, seen_at = excluded.seen_at
WHERE (retention_seen.status, retention_seen.version)
    IS DISTINCT FROM (excluded.status, excluded.version)
"""
_FORGET = """
DELETE FROM retention_seen r WHERE NOT EXISTS
    (SELECT 1 FROM tables t WHERE t.code = r.code AND t.status != 'playing')
"""
_DUE = """
SELECT r.code, r.version FROM retention_seen r JOIN tables t USING (code)
WHERE t.status = r.status AND t.version = r.version AND r.seen_at <= $1
"""


#: What goes with a deleted table and with an expired archived match (all of it: a
#: cluster's schema has every table).
_TABLE_ROWS = [positional(sql) for _, sql in TABLE_ROWS]
_MATCH_ROWS = [positional(sql) for _, sql in MATCH_ROWS]


class PostgresRetention(Terms):
    """The database side of old tables' deletion, on a connection of its own."""

    def __init__(
        self,
        url: str,
        keep_days: float,
        keep_replay_days: float = 0.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(keep_days, keep_replay_days, clock)
        self.url = url
        self._pool: asyncpg.Pool | None = None
        #: The connection of the pass being run (:meth:`turn`).
        self._conn: PoolConnectionProxy[Any] | None = None

    async def _connections(self) -> asyncpg.Pool:
        """Two connections at most: a pass's, and one for :meth:`archived`."""
        if self._pool is None:
            self._pool = await asyncpg.create_pool(
                self.url,
                min_size=0,
                max_size=2,
                timeout=5.0,
                command_timeout=30.0,
                server_settings={"application_name": f"fouronefour {os.getpid()} retention"},
            )
        return self._pool

    async def close(self) -> None:
        if self._pool is not None:
            with contextlib.suppress(Exception):
                await self._pool.close()
            self._pool = None

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[bool]:
        """Whether this process runs a pass now (no other process does): the pass's
        connection holds the retention's lock to the end of the block."""
        pool = await self._connections()
        async with pool.acquire() as conn:
            taken = bool(await conn.fetchval("SELECT pg_try_advisory_lock($1)", RETENTION_LOCK))
            if taken:
                self._conn = conn
            try:
                yield taken
            finally:
                self._conn = None
                if taken and not conn.is_closed():
                    with contextlib.suppress(Exception):
                        await conn.execute("SELECT pg_advisory_unlock($1)", RETENTION_LOCK)

    def _pass(self) -> PoolConnectionProxy[Any]:
        if self._conn is None:
            raise RuntimeError("a pass runs in a turn (PostgresRetention.turn)")
        return self._conn

    # ------------------------------------------------------------ tables

    async def survey(self) -> list[tuple[str, int]]:
        """Note every table not being played; return those unchanged for ``keep_days``
        (code and the version they were noted at)."""
        conn = self._pass()
        now = self._clock()
        async with conn.transaction():
            due = await conn.fetch(_DUE, self.table_cutoff(now))
            await conn.execute(_NOTE, now)
            await conn.execute(_FORGET)
        return [(r["code"], int(r["version"])) for r in due]

    async def retire(self, due: Iterable[tuple[str, int]]) -> list[str]:
        """Delete each table of ``due`` that is still as it was noted and that no process
        owns, keeping its finished matches; returns the codes deleted."""
        deleted = []
        conn = self._pass()
        for code, version in due:
            async with conn.transaction():
                if await self._retire(conn, code, version):
                    deleted.append(code)
        return deleted

    async def _retire(self, conn: PoolConnectionProxy[Any], code: str, version: int) -> bool:
        if not await conn.fetchval(
            "SELECT pg_try_advisory_xact_lock($1, $2)", OWNER_LOCKS, lock_key(code)
        ):
            return False  # a process holds it: its own pass lets go of it first
        row = await conn.fetchrow(
            "SELECT status, version, options FROM tables WHERE code = $1 FOR UPDATE", code
        )
        if row is None or row["status"] == "playing" or row["version"] != version:
            return False  # played again meanwhile: a later pass decides
        seats = await conn.fetch(
            "SELECT seat, name, kind FROM seats WHERE code = $1 ORDER BY seat", code
        )
        await conn.execute(
            "INSERT INTO archived_matches (code, number, seats, archived_at, invite_hash)"
            " SELECT code, number, $2, $3, $4 FROM matches WHERE code = $1 AND over"
            " ON CONFLICT (code, number) DO UPDATE SET seats = excluded.seats,"
            " archived_at = excluded.archived_at, invite_hash = excluded.invite_hash",
            code,
            archived_seats(seats),
            self._clock(),
            invite_hash_of(row["options"]),
        )
        for statement in _TABLE_ROWS:
            await conn.execute(statement, code)
        return True

    # ------------------------------------------------------------ archived matches

    async def expire_replays(self) -> int:
        """Delete archived matches older than ``keep_replay_days`` (0: keep them); returns
        how many, at most ``BATCH`` a call."""
        cutoff = self.replay_cutoff()
        if cutoff is None:
            return 0
        conn = self._pass()
        old = await conn.fetch(
            "SELECT code, number FROM archived_matches WHERE archived_at <= $1 LIMIT $2",
            cutoff,
            BATCH,
        )
        for r in old:
            async with conn.transaction():
                for statement in _MATCH_ROWS:
                    await conn.execute(statement, r["code"], r["number"])
        return len(old)

    async def archived(self, code: str) -> tuple[dict[int, list[dict[str, Any]]], str | None]:
        """The archived matches of a deleted table: number -> its seats (seat, name, kind);
        and its invite's hash if it was private (invites.py)."""
        pool = await self._connections()
        return read_archive(
            await pool.fetch(
                "SELECT number, seats, invite_hash FROM archived_matches WHERE code = $1"
                " ORDER BY number",
                code,
            )
        )
