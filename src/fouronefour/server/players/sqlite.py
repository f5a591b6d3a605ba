"""The players' store in the tables' SQLite file (:func:`sqlite_players`).

The players' tables live beside the tables' own in the one file, made or brought up to date
in place when opened (:data:`MIGRATIONS`, numbered in ``player_schema``); the tables' own are
never touched. The store has connections of its own and a thread they are used from
(:class:`SqliteDb`). Its write transactions are a few rows each, run start to end on that
thread: the tables' group commit waits at most ``GroupCommitStorage.BUSY_TIMEOUT`` (50 ms)
for the file's write lock before it retries, and never has to.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from typing import Any, TypeVar

from ..storage.values import StorageError
from .schema import (
    CLUBS_STEP,
    FRIENDS_STEP,
    PUSH_STEP,
    TOURNAMENT_FINALS_STEP,
    TOURNAMENTS_STEP,
)
from .sqlstore import BOARD_INDEX_STEP, TALLIES_STEP, Row, SqlPlayerStore, Statement

T = TypeVar("T")

#: Each brings the players' schema from its index to the next version.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE player_profiles (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, avatar TEXT NOT NULL, language TEXT NOT NULL,
        created_at INTEGER NOT NULL, last_seen INTEGER NOT NULL, username TEXT UNIQUE,
        password_hash TEXT, mu REAL NOT NULL, sigma REAL NOT NULL, ordinal REAL NOT NULL,
        rated_matches INTEGER NOT NULL DEFAULT 0, deleted INTEGER NOT NULL DEFAULT 0,
        board_bucket INTEGER);
    CREATE INDEX player_top ON player_profiles (ordinal DESC, id)
        WHERE board_bucket IS NOT NULL;
    CREATE INDEX player_bucket ON player_profiles (board_bucket, ordinal, id)
        WHERE board_bucket IS NOT NULL;
    -- How many profiles each leaderboard bucket holds (sqlstore.py, board_bucket).
    CREATE TABLE player_board (bucket INTEGER PRIMARY KEY, players INTEGER NOT NULL);
    CREATE INDEX player_guests ON player_profiles (last_seen)
        WHERE username IS NULL AND deleted = 0;
    CREATE TABLE player_sessions (
        token_hash TEXT PRIMARY KEY, profile_id TEXT NOT NULL, created_at INTEGER NOT NULL,
        last_used INTEGER NOT NULL, expires_at INTEGER NOT NULL, how TEXT NOT NULL);
    CREATE INDEX player_sessions_profile ON player_sessions (profile_id);
    CREATE INDEX player_sessions_expiry ON player_sessions (expires_at);
    CREATE TABLE player_device_codes (
        code_hash TEXT PRIMARY KEY, profile_id TEXT NOT NULL, expires_at INTEGER NOT NULL,
        used INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE player_matches (
        code TEXT NOT NULL, number INTEGER NOT NULL, finished_at INTEGER NOT NULL,
        rated INTEGER NOT NULL, rounds INTEGER NOT NULL, PRIMARY KEY (code, number));
    CREATE TABLE player_match_seats (
        code TEXT NOT NULL, number INTEGER NOT NULL, seat INTEGER NOT NULL,
        team INTEGER NOT NULL, name TEXT, rank INTEGER NOT NULL, place INTEGER,
        profile_id TEXT, bot_level TEXT, finished_at INTEGER NOT NULL,
        mu_before REAL, sigma_before REAL, mu_after REAL, sigma_after REAL,
        PRIMARY KEY (code, number, seat)) WITHOUT ROWID;
    CREATE INDEX player_history ON player_match_seats
        (profile_id, finished_at DESC, code DESC, number DESC) WHERE profile_id IS NOT NULL;
    """,
    # Passkeys (WebAuthn), and the challenges a browser's session was given for them.
    """
    CREATE TABLE player_passkeys (
        credential_id TEXT PRIMARY KEY, profile_id TEXT NOT NULL, public_key TEXT NOT NULL,
        sign_count INTEGER NOT NULL, created_at INTEGER NOT NULL, last_used INTEGER NOT NULL);
    CREATE INDEX player_passkeys_profile ON player_passkeys (profile_id);
    CREATE TABLE player_challenges (
        token_hash TEXT NOT NULL, purpose TEXT NOT NULL, challenge TEXT NOT NULL,
        expires_at INTEGER NOT NULL, PRIMARY KEY (token_hash, purpose));
    """,
    TALLIES_STEP,
    CLUBS_STEP,
    PUSH_STEP,
    TOURNAMENTS_STEP,
    FRIENDS_STEP,
    BOARD_INDEX_STEP,
    TOURNAMENT_FINALS_STEP,
)


class _SqliteConn:
    """A connection, used from the database's own thread only."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def _run(self, work: Callable[[], T]) -> T:
        try:
            return work()
        except sqlite3.IntegrityError:
            raise
        except sqlite3.Error as error:
            raise StorageError(f"the players' database: {error}") from None

    # (Coroutines that never wait: an operation runs start to end on the database's thread.)
    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        return self._run(lambda: self._conn.execute(sql, args).fetchall())

    async def execute(self, sql: str, *args: Any) -> int:
        return self._run(lambda: self._conn.execute(sql, args).rowcount)

    async def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        self._run(lambda: self._conn.executemany(sql, rows))

    async def write_all(self, statements: Sequence[Statement]) -> None:
        for sql, values in statements:
            await self.execute(sql, *values)


class SqliteDb:
    """The players' connections to one SQLite file (a writer and a reader, WAL mode), and
    the thread they are used from: each operation of the store runs there whole, on that
    thread's own event loop, so the server's loop never waits for the file and a write
    transaction never waits for the server's loop while it holds the file's write lock
    (which the tables' group commit, on the server's loop, waits for 50 ms at most).

    The writer does not checkpoint the WAL itself (SQLite's automatic checkpoint runs inside
    the commit that crosses 1,000 pages and syncs the file there: a match end took 70 ms at
    p99 against 1.9 ms without, bench/players.py's scale of 30,000 profiles): a passive
    checkpoint every :attr:`CHECKPOINT_SECONDS` from a connection and thread of its own
    copies the WAL back beside it, as the tables' storage does (storage/sqlite.py)."""

    for_update = ""
    truncate = "CAST({} AS INTEGER)"
    CHECKPOINT_SECONDS = 0.5

    def __init__(self, path: str, busy_timeout: float = 5.0, checkpoints: bool = True) -> None:
        self.path = path
        self._busy_timeout = busy_timeout
        #: Checkpoint the file from a thread of our own; False where another does it for
        #: the whole file already (the tables' storage in a server: storage/sqlite.py).
        self._own_checkpoints = checkpoints
        self._writer: _SqliteConn | None = None
        self._reader: _SqliteConn | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._checkpoints: threading.Thread | None = None
        self._stop = threading.Event()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, timeout=self._busy_timeout, check_same_thread=False, isolation_level=None
        )
        if self.path != ":memory:":
            conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    async def open(self) -> None:
        loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=loop.run_forever, name="players-sqlite", daemon=True)
        self._thread.start()
        self._loop = loop

        async def connect() -> None:
            writer = self._connect()
            migrate(writer)
            if self.path != ":memory:":
                writer.execute("PRAGMA wal_autocheckpoint = 0")
            if self.path != ":memory:" and self._own_checkpoints:
                self._checkpoints = threading.Thread(
                    target=self._checkpoint, name="players-checkpoint", daemon=True
                )
                self._checkpoints.start()
            self._writer = _SqliteConn(writer)
            # (An in-memory database is one connection's own: the reader is the writer.)
            self._reader = self._writer if self.path == ":memory:" else _SqliteConn(self._connect())

        try:
            await self.run(connect())
        except sqlite3.Error as error:
            await self.close()
            raise StorageError(f"cannot open the players' database ({error})") from None

    async def close(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return

        async def disconnect() -> None:
            for conn in {id(c): c for c in (self._writer, self._reader) if c}.values():
                conn._conn.close()
            self._writer = self._reader = None

        await self.run(disconnect())
        self._stop.set()
        if self._checkpoints is not None:
            await asyncio.to_thread(self._checkpoints.join)
            self._checkpoints = None
        loop.call_soon_threadsafe(loop.stop)
        await asyncio.to_thread(thread.join)
        loop.close()
        self._loop = self._thread = None

    def _checkpoint(self) -> None:
        conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            while not self._stop.wait(self.CHECKPOINT_SECONDS):
                # (A read-only file or a full disk: the writer's own statements say so.)
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        finally:
            conn.close()

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        loop = self._loop
        if loop is None:
            work.close()
            raise StorageError("the players' database is not open")
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            return await work
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, loop))

    @contextlib.asynccontextmanager
    async def write(self, bulk: bool = False) -> AsyncIterator[_SqliteConn]:
        # (``bulk`` changes nothing here: SQLite's statements have no time limit.)
        conn = self._writer
        if conn is None:
            raise StorageError("the players' database is not open")
        await conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            with contextlib.suppress(StorageError):
                await conn.execute("ROLLBACK")
            raise
        await conn.execute("COMMIT")

    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[_SqliteConn]:
        conn = self._reader
        if conn is None:
            raise StorageError("the players' database is not open")
        yield conn

    def is_unique_violation(self, error: BaseException) -> bool:
        return isinstance(error, sqlite3.IntegrityError) and "UNIQUE" in str(error)


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the players' tables to the last of :data:`MIGRATIONS` (in one transaction;
    the tables' own are left as they are); returns the version they were at."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS player_schema (version INTEGER NOT NULL)")
        row = conn.execute("SELECT version FROM player_schema").fetchone()
        found = 0 if row is None else int(row[0])
        if row is None:
            conn.execute("INSERT INTO player_schema VALUES (0)")
        if found > len(MIGRATIONS):
            raise StorageError(
                f"the players' schema is version {found}, newer than this server's "
                f"({len(MIGRATIONS)}): upgrade the server"
            )
        for step in MIGRATIONS[found:]:
            for statement in step.split(";"):
                if statement.strip():
                    conn.execute(statement)
        conn.execute("UPDATE player_schema SET version = ?", (len(MIGRATIONS),))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return found


def sqlite_players(path: str, checkpoints: bool = True) -> SqlPlayerStore:
    """The players' store in the SQLite file at ``path`` (the server's ``--db`` file);
    ``checkpoints``: False where the tables' storage checkpoints the file already."""
    return SqlPlayerStore(SqliteDb(path, checkpoints=checkpoints))
