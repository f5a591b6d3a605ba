"""The players' store in the cluster's PostgreSQL database (:func:`postgres_players`).

The players' tables live beside the tables' own, made or brought up to date by the server
itself (:data:`MIGRATIONS`, numbered in ``player_schema_version``, applied under an advisory
lock of their own so that processes starting together do not race); the tables' own schema
(storage/postgres.py) is never touched. The store has its own small pool of connections.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import AsyncIterator, Coroutine, Sequence
from typing import Any, TypeVar

import asyncpg

from ..storage.postgres import migrate_in_place
from ..storage.values import StorageError
from .schema import (
    CLUBS_STEP,
    FRIENDS_STEP,
    PUSH_STEP,
    TOURNAMENT_FINALS_STEP,
    TOURNAMENTS_STEP,
)
from .sqlstore import BOARD_INDEX_STEP, TALLIES_STEP, Row, SqlPlayerStore, Statement

R = TypeVar("R")

#: The advisory lock held while the players' schema is migrated (the tables' is 414_016).
MIGRATION_LOCK = 414_024
#: What a lost or unreachable database raises.
_FAILURES = (OSError, asyncpg.PostgresError, TimeoutError, asyncpg.InterfaceError)

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE player_profiles (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, avatar TEXT NOT NULL, language TEXT NOT NULL,
        created_at BIGINT NOT NULL, last_seen BIGINT NOT NULL, username TEXT UNIQUE,
        password_hash TEXT, mu DOUBLE PRECISION NOT NULL, sigma DOUBLE PRECISION NOT NULL,
        ordinal DOUBLE PRECISION NOT NULL, rated_matches INTEGER NOT NULL DEFAULT 0,
        deleted INTEGER NOT NULL DEFAULT 0, board_bucket INTEGER);
    CREATE INDEX player_top ON player_profiles (ordinal DESC, id)
        WHERE board_bucket IS NOT NULL;
    CREATE INDEX player_bucket ON player_profiles (board_bucket, ordinal, id)
        WHERE board_bucket IS NOT NULL;
    CREATE TABLE player_board (bucket INTEGER PRIMARY KEY, players INTEGER NOT NULL);
    CREATE INDEX player_guests ON player_profiles (last_seen)
        WHERE username IS NULL AND deleted = 0;
    CREATE TABLE player_sessions (
        token_hash TEXT PRIMARY KEY, profile_id TEXT NOT NULL, created_at BIGINT NOT NULL,
        last_used BIGINT NOT NULL, expires_at BIGINT NOT NULL, how TEXT NOT NULL);
    CREATE INDEX player_sessions_profile ON player_sessions (profile_id);
    CREATE INDEX player_sessions_expiry ON player_sessions (expires_at);
    CREATE TABLE player_device_codes (
        code_hash TEXT PRIMARY KEY, profile_id TEXT NOT NULL, expires_at BIGINT NOT NULL,
        used INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE player_matches (
        code TEXT NOT NULL, number INTEGER NOT NULL, finished_at BIGINT NOT NULL,
        rated INTEGER NOT NULL, rounds INTEGER NOT NULL, PRIMARY KEY (code, number));
    CREATE TABLE player_match_seats (
        code TEXT NOT NULL, number INTEGER NOT NULL, seat INTEGER NOT NULL,
        team INTEGER NOT NULL, name TEXT, rank INTEGER NOT NULL, place INTEGER,
        profile_id TEXT, bot_level TEXT, finished_at BIGINT NOT NULL,
        mu_before DOUBLE PRECISION, sigma_before DOUBLE PRECISION,
        mu_after DOUBLE PRECISION, sigma_after DOUBLE PRECISION,
        PRIMARY KEY (code, number, seat));
    CREATE INDEX player_history ON player_match_seats
        (profile_id, finished_at DESC, code DESC, number DESC) WHERE profile_id IS NOT NULL;
    """,
    # Passkeys (WebAuthn), and the challenges a browser's session was given for them.
    """
    CREATE TABLE player_passkeys (
        credential_id TEXT PRIMARY KEY, profile_id TEXT NOT NULL, public_key TEXT NOT NULL,
        sign_count BIGINT NOT NULL, created_at BIGINT NOT NULL, last_used BIGINT NOT NULL);
    CREATE INDEX player_passkeys_profile ON player_passkeys (profile_id);
    CREATE TABLE player_challenges (
        token_hash TEXT NOT NULL, purpose TEXT NOT NULL, challenge TEXT NOT NULL,
        expires_at BIGINT NOT NULL, PRIMARY KEY (token_hash, purpose));
    """,
    TALLIES_STEP,
    CLUBS_STEP,
    PUSH_STEP,
    TOURNAMENTS_STEP,
    FRIENDS_STEP,
    BOARD_INDEX_STEP,
    TOURNAMENT_FINALS_STEP,
)


@functools.lru_cache(maxsize=256)
def dollar(sql: str) -> str:
    """``sql`` with its ``?`` placeholders numbered as PostgreSQL's ``$1, $2, ...``."""
    count = iter(range(1, 10_000))
    return re.sub(r"\?", lambda _: f"${next(count)}", sql)


class _PgConn:
    def __init__(self, conn: asyncpg.Connection, seconds: float | None = None) -> None:
        self._conn = conn
        #: Each statement's limit (None: the pool's, PostgresDb.STATEMENT_SECONDS).
        self._seconds = seconds

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        try:
            rows = await self._conn.fetch(dollar(sql), *args, timeout=self._seconds)
            return [tuple(r) for r in rows]
        except asyncpg.UniqueViolationError:
            raise
        except _FAILURES as error:
            raise StorageError(f"the players' database: {error}") from None

    async def execute(self, sql: str, *args: Any) -> int:
        try:
            status = await self._conn.execute(dollar(sql), *args, timeout=self._seconds)
        except asyncpg.UniqueViolationError:
            raise
        except _FAILURES as error:
            raise StorageError(f"the players' database: {error}") from None
        tail = status.rsplit(" ", 1)[-1]
        return int(tail) if tail.isdigit() else 0

    async def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        try:
            await self._conn.executemany(dollar(sql), rows, timeout=self._seconds)
        except _FAILURES as error:
            raise StorageError(f"the players' database: {error}") from None

    async def write_all(self, statements: Sequence[Statement]) -> None:
        # The data-modifying parts of one statement, which PostgreSQL runs each to its end
        # whether or not the query reads them.
        if len(statements) == 1:
            await self.execute(statements[0][0], *statements[0][1])
        elif statements:
            parts = ", ".join(f"w{i} AS ({sql})" for i, (sql, _) in enumerate(statements))
            await self.execute(
                f"WITH {parts} SELECT 1", *(value for _, values in statements for value in values)
            )


class PostgresDb:
    for_update = " FOR UPDATE"
    truncate = "trunc({})::integer"
    READERS = 4
    STATEMENT_SECONDS = 5.0
    #: A bulk transaction's statements (rebuilding the leaderboard of a million profiles
    #: took over 5 s on a loaded 2-core machine).
    BULK_SECONDS = 3600.0

    def __init__(self, url: str) -> None:
        self.url = url
        self._pool: asyncpg.Pool | None = None

    async def open(self) -> None:
        try:
            conn = await asyncpg.connect(self.url, timeout=self.STATEMENT_SECONDS)
            try:
                await migrate(conn)
            finally:
                await conn.close()
            self._pool = await asyncpg.create_pool(
                self.url,
                min_size=0,
                max_size=self.READERS,
                command_timeout=self.STATEMENT_SECONDS,
                timeout=self.STATEMENT_SECONDS,
            )
        except _FAILURES as error:
            raise StorageError(f"cannot open the players' database ({error})") from None

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    @contextlib.asynccontextmanager
    async def _acquire(self) -> AsyncIterator[Any]:
        if self._pool is None:
            raise StorageError("the players' database is not open")
        try:
            conn = await self._pool.acquire()
        except _FAILURES as error:
            raise StorageError(f"the players' database: {error}") from None
        try:
            yield conn
        finally:
            with contextlib.suppress(*_FAILURES):
                await self._pool.release(conn)

    @contextlib.asynccontextmanager
    async def write(self, bulk: bool = False) -> AsyncIterator[_PgConn]:
        async with self._acquire() as conn:
            try:
                async with conn.transaction():
                    yield _PgConn(conn, self.BULK_SECONDS if bulk else None)
            except (OSError, TimeoutError, asyncpg.InterfaceError) as error:
                raise StorageError(f"the players' database: {error}") from None

    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[_PgConn]:
        async with self._acquire() as conn:
            yield _PgConn(conn)

    def is_unique_violation(self, error: BaseException) -> bool:
        return isinstance(error, asyncpg.UniqueViolationError)

    async def run(self, work: Coroutine[Any, Any, R]) -> R:
        return await work


async def migrate(conn: asyncpg.Connection) -> int:
    """Bring the players' tables to the last of :data:`MIGRATIONS`; returns the version they
    were at."""
    return await migrate_in_place(
        conn, MIGRATIONS, "player_schema_version", MIGRATION_LOCK, "the players' schema"
    )


def postgres_players(url: str) -> SqlPlayerStore:
    """The players' store in the PostgreSQL database at ``url`` (the server's ``--db``)."""
    return SqlPlayerStore(PostgresDb(url))
