"""SQLite storage: the embedded default (one process, one file).

Each :class:`~.values.Change` is written in one transaction before the update it belongs to
is sent to anybody. A database made by an older version is brought up to date when opened
(:meth:`SqliteStorage._migrate`).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import orjson

from .interface import DurableWaiters, WrittenLater
from .reads import (
    CHAT_COLUMNS,
    RECENT_CHAT,
    TABLE_COLUMNS,
    TABLE_READS,
    chat_line,
    sqlite_query,
    stored_table,
)
from .values import (
    Change,
    ChangeExtra,
    CodeTaken,
    MatchSummary,
    StorageError,
    StoredAnalysis,
    StoredChat,
    StoredMatch,
    StoredSeat,
    StoredTable,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

#: SQLite's answers for a lock another connection holds (the players' store's thread writes
#: to the same file): worth trying again, unlike a full disk or a read-only file.
_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}


_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    code TEXT PRIMARY KEY, options TEXT NOT NULL, host_seat INTEGER NOT NULL,
    status TEXT NOT NULL, version INTEGER NOT NULL, match_number INTEGER NOT NULL,
    settings TEXT NOT NULL DEFAULT '{}', paused INTEGER NOT NULL DEFAULT 0,
    round_end INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS seats (
    code TEXT NOT NULL, seat INTEGER NOT NULL, name TEXT, kind TEXT NOT NULL, token_hash TEXT,
    profile TEXT, PRIMARY KEY (code, seat));
CREATE TABLE IF NOT EXISTS matches (
    code TEXT NOT NULL, number INTEGER NOT NULL, seed INTEGER NOT NULL, rules TEXT NOT NULL,
    over INTEGER NOT NULL DEFAULT 0, winning_team INTEGER, rounds INTEGER,
    PRIMARY KEY (code, number));
-- WITHOUT ROWID: the rows are kept in their key's b-tree, so a move writes one page rather
-- than a row page and an index page (databases made before keep their rowid table).
CREATE TABLE IF NOT EXISTS moves (
    code TEXT NOT NULL, number INTEGER NOT NULL, idx INTEGER NOT NULL, move TEXT NOT NULL,
    version INTEGER NOT NULL, PRIMARY KEY (code, number, idx)) WITHOUT ROWID;
-- A chat line is a version of its own: the version is its key.
CREATE TABLE IF NOT EXISTS chat (
    code TEXT NOT NULL, version INTEGER NOT NULL, match_number INTEGER NOT NULL,
    step INTEGER NOT NULL, at INTEGER NOT NULL, seat INTEGER, name TEXT NOT NULL,
    spectator INTEGER NOT NULL, text TEXT, phrase TEXT,
    PRIMARY KEY (code, version)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS claims (
    code TEXT NOT NULL, match_number INTEGER NOT NULL, idx INTEGER NOT NULL,
    seat INTEGER NOT NULL, answer TEXT NOT NULL, PRIMARY KEY (code, match_number, idx, seat))
    WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS handoffs (
    code TEXT NOT NULL, seat INTEGER NOT NULL, secret_hash TEXT NOT NULL,
    expires_at INTEGER NOT NULL, PRIMARY KEY (code, seat));
-- A round's analysis: a row as the round ends (due), its decisions once made (analysis.py).
CREATE TABLE IF NOT EXISTS analyses (
    code TEXT NOT NULL, match_number INTEGER NOT NULL, round_number INTEGER NOT NULL,
    worlds INTEGER, decisions TEXT, error TEXT, PRIMARY KEY (code, match_number, round_number));
CREATE INDEX IF NOT EXISTS analyses_due ON analyses (code)
    WHERE decisions IS NULL AND error IS NULL;
-- A finished match's record for the players' store, written with its result and kept until
-- the players' store has recorded it (so a rating change is never lost, nor made twice).
CREATE TABLE IF NOT EXISTS match_records (
    code TEXT NOT NULL, number INTEGER NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (code, number));
"""

#: Columns added since the first schema, for databases made before them: (table, column,
#: its definition). ``CREATE TABLE IF NOT EXISTS`` leaves an existing table as it was.
_ADDED_COLUMNS = (
    ("tables", "settings", "TEXT NOT NULL DEFAULT '{}'"),
    ("tables", "paused", "INTEGER NOT NULL DEFAULT 0"),
    ("tables", "round_end", "INTEGER NOT NULL DEFAULT 0"),
    ("matches", "winning_team", "INTEGER"),
    ("matches", "rounds", "INTEGER"),
    ("seats", "profile", "TEXT"),
)
#: Chat lines a table keeps at hand for snapshots (docs/protocol.md: the last 50).


class SqliteStorage:
    """One SQLite file in WAL mode with ``synchronous=NORMAL``: a commit costs well under a
    millisecond (no sync) and survives the process being killed at any moment (the WAL is in
    the operating system's hands once the commit returns); only a power cut may lose the
    last commits. Used from the event loop and, for replays, from worker threads.

    Everything here is written or read before the call returns: what
    :class:`GroupCommitStorage` (the server's :class:`Storage`) writes through, and how the
    tests look at the file. Raises :class:`sqlite3.Error`."""

    #: True while writes fail (only a group-commit storage keeps going in that state).
    failed = False
    #: Changes committed (each is written when its commit returns).
    staged_seq = 0
    durable_seq = 0

    def __init__(self, path: str, busy_timeout: float = 5.0) -> None:
        self.path = path
        self._conn = sqlite3.connect(
            path, timeout=busy_timeout, check_same_thread=False, isolation_level=None
        )
        self._lock = threading.Lock()
        if path != ":memory:":
            self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.executescript(_SCHEMA)
        self._migrate()

    def _migrate(self) -> None:
        """Add the columns a database made by an older version lacks (their defaults are what
        those tables had: default settings, no pause, no recorded winner)."""
        for table, column, definition in _ADDED_COLUMNS:
            columns = {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}
            if column not in columns:
                self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")

    @property
    def all_written(self) -> bool:
        return True  # each commit is written before it returns

    def when_durable(self, seq: int, callback: Callable[[], None]) -> None:
        callback()  # written already

    def writable(self) -> bool:
        """Whether a write would succeed now: rewrites the header's user_version in a
        transaction that is rolled back, so a read-only file is known before any change."""
        with self._lock:
            try:
                version = self._conn.execute("PRAGMA user_version").fetchone()[0]
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    self._conn.execute(f"PRAGMA user_version = {int(version)}")
                finally:
                    self._conn.execute("ROLLBACK")
            except sqlite3.Error:
                return False
        return True

    def create_table(self, table: StoredTable) -> None:
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                conn.execute(
                    "INSERT INTO tables (code, options, host_seat, status, version, match_number,"
                    " settings) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        table.code,
                        orjson.dumps(table.options).decode(),
                        table.host_seat,
                        table.status,
                        table.version,
                        table.match_number,
                        orjson.dumps(table.settings).decode(),
                    ),
                )
                self._upsert_seats(table.code, table.seats)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _upsert_seats(self, code: str, seats: list[StoredSeat] | tuple[StoredSeat, ...]) -> None:
        self._conn.executemany(
            "INSERT OR REPLACE INTO seats (code, seat, name, kind, token_hash, profile)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [(code, s.seat, s.name, s.kind, s.token_hash, s.profile) for s in seats],
        )

    def commit(self, change: Change) -> int:
        with self._lock:
            self._write([change])
        self.staged_seq = self.durable_seq = self.staged_seq + 1
        return self.staged_seq

    def _write(self, changes: list[Change]) -> None:
        """Write ``changes`` atomically (under :attr:`_lock`)."""
        if len(changes) == 1:
            change = changes[0]
            if len(change.moves) == 1 and not (
                change.table_row
                or change.seats
                or change.new_match
                or change.match_over
                or change.extra
            ):
                # The common case, one move: one statement is one transaction in autocommit
                # mode (no BEGIN and COMMIT to run).
                self._conn.execute(
                    "INSERT INTO moves VALUES (?, ?, ?, ?, ?)", self._move_rows(change)[0]
                )
                return
        self._transaction(changes)

    @staticmethod
    def _move_rows(change: Change) -> list[tuple[str, int, int, str, int]]:
        return [
            (change.code, change.match_number, change.first_move_index + i, move, change.version)
            for i, move in enumerate(change.moves)
        ]

    def _transaction(self, changes: list[Change]) -> None:
        """Write ``changes`` in one transaction, with one statement per kind of row."""
        conn = self._conn
        moves: list[tuple[str, int, int, str, int]] = []
        table_rows: dict[str, tuple[str, int, int, str]] = {}
        conn.execute("BEGIN")
        try:
            for change in changes:
                rows = self._move_rows(change)
                moves.extend(rows)
                if change.table_row or not rows:
                    table_rows[change.code] = (
                        change.status,
                        change.version,
                        change.match_number,
                        change.code,
                    )
                if change.seats:
                    self._upsert_seats(change.code, change.seats)
                if change.new_match is not None:
                    new = change.new_match
                    conn.execute(
                        "INSERT INTO matches (code, number, seed, rules) VALUES (?, ?, ?, ?)",
                        (change.code, new.number, new.seed, orjson.dumps(new.rules).decode()),
                    )
                if change.match_over:
                    conn.execute(
                        "UPDATE matches SET over = 1 WHERE code = ? AND number = ?",
                        (change.code, change.match_number),
                    )
                if change.extra is not None:
                    self._write_extra(change, change.extra)
            if moves:
                conn.executemany("INSERT INTO moves VALUES (?, ?, ?, ?, ?)", moves)
            if table_rows:
                conn.executemany(
                    "UPDATE tables SET status = ?, version = ?, match_number = ? WHERE code = ?",
                    list(table_rows.values()),
                )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _write_extra(self, change: Change, extra: ChangeExtra) -> None:
        conn = self._conn
        code = change.code
        if extra.row is not None:
            row = extra.row
            conn.execute(
                "UPDATE tables SET host_seat = ?, settings = ?, paused = ?, round_end = ?"
                " WHERE code = ?",
                (
                    row.host_seat,
                    orjson.dumps(row.settings).decode(),
                    int(row.paused),
                    row.round_end,
                    code,
                ),
            )
        if extra.chat is not None:
            line = extra.chat
            conn.execute(
                "INSERT INTO chat VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    code,
                    line.version,
                    line.match_number,
                    line.step,
                    line.at,
                    line.seat,
                    line.name,
                    int(line.spectator),
                    line.text,
                    line.phrase,
                ),
            )
        if extra.claims_done is not None:
            conn.execute(
                "DELETE FROM claims WHERE code = ? AND (match_number, idx) < (?, ?)",
                (code, *extra.claims_done),
            )
        for claim in extra.claims:
            conn.execute(
                "INSERT OR IGNORE INTO claims VALUES (?, ?, ?, ?, ?)",
                (code, claim.match_number, claim.idx, claim.seat, claim.answer),
            )
        for handoff in extra.handoffs:
            if handoff.secret_hash is None:
                conn.execute(
                    "DELETE FROM handoffs WHERE code = ? AND seat = ?", (code, handoff.seat)
                )
            else:
                conn.execute(
                    "INSERT OR REPLACE INTO handoffs VALUES (?, ?, ?, ?)",
                    (code, handoff.seat, handoff.secret_hash, handoff.expires_at),
                )
        if extra.result is not None:
            winning_team, rounds = extra.result
            conn.execute(
                "UPDATE matches SET winning_team = ?, rounds = ? WHERE code = ? AND number = ?",
                (winning_team, rounds, code, change.match_number),
            )
        if extra.analysis is not None:
            conn.execute(
                "INSERT OR IGNORE INTO analyses (code, match_number, round_number)"
                " VALUES (?, ?, ?)",
                (code, *extra.analysis),
            )
        if extra.record is not None:
            conn.execute(
                "INSERT OR IGNORE INTO match_records VALUES (?, ?, ?)",
                (code, change.match_number, extra.record),
            )

    def load_tables(self, status: str | None = None) -> list[StoredTable]:
        """Every stored table, or those in ``status``."""
        with self._lock:
            if status is None:
                rows = self._conn.execute(TABLE_COLUMNS).fetchall()
            else:
                rows = self._conn.execute(TABLE_COLUMNS + " WHERE status = ?", (status,)).fetchall()
            return [self._stored_table(row) for row in rows]

    def load_table(self, code: str) -> StoredTable | None:
        with self._lock:
            row = self._conn.execute(TABLE_COLUMNS + " WHERE code = ?", (code,)).fetchone()
            return None if row is None else self._stored_table(row)

    def table_exists(self, code: str) -> bool:
        with self._lock:
            # (A deleted table's code stays taken while its finished matches are kept as
            # replays: retention.py.)
            found = self._conn.execute(
                "SELECT 1 FROM tables WHERE code = ? UNION ALL "
                "SELECT 1 FROM matches WHERE code = ? LIMIT 1",
                (code, code),
            ).fetchone()
            return found is not None

    def _stored_table(self, row: tuple[Any, ...]) -> StoredTable:
        code = row[0]

        def read(query: str, *more: Any) -> list[Any]:
            return self._conn.execute(sqlite_query(query), (code, *more)).fetchall()

        table = stored_table(
            row,
            read(TABLE_READS.seats),
            read(TABLE_READS.finished),
            read(TABLE_READS.moved)[0][0],
            read(TABLE_READS.chat, RECENT_CHAT),
            read(TABLE_READS.claims),
            read(TABLE_READS.handoffs),
        )
        if table.match_number:
            table.match = self._load_match(code, table.match_number)
        return table

    def load_match(self, code: str, number: int) -> StoredMatch | None:
        with self._lock:
            return self._load_match(code, number)

    def list_matches(self, code: str) -> list[MatchSummary]:
        """The finished matches of a table, in order."""
        with self._lock:
            return [
                MatchSummary(*row)
                for row in self._conn.execute(
                    "SELECT number, (SELECT COUNT(*) FROM moves WHERE moves.code = matches.code"
                    " AND moves.number = matches.number), winning_team, rounds FROM matches"
                    " WHERE code = ? AND over = 1 ORDER BY number",
                    (code,),
                )
            ]

    def load_chat(self, code: str, match_number: int) -> list[StoredChat]:
        """The chat lines said while ``match_number`` was the table's current match."""
        with self._lock:
            return [
                chat_line(row)
                for row in self._conn.execute(
                    f"SELECT {CHAT_COLUMNS} FROM chat WHERE code = ? AND match_number = ?"
                    " ORDER BY version",
                    (code, match_number),
                )
            ]

    def save_analysis(self, code: str, analysis: StoredAnalysis) -> None:
        decisions = None if analysis.decisions is None else orjson.dumps(analysis.decisions)
        # (A round made due again leaves its row as it is: it may be made already.)
        made = (
            ""
            if analysis.due
            else (
                " ON CONFLICT (code, match_number, round_number) DO UPDATE SET"
                " worlds = excluded.worlds, decisions = excluded.decisions, error = excluded.error"
            )
        )
        with self._lock:
            self._conn.execute(
                f"INSERT {'OR IGNORE ' if analysis.due else ''}INTO analyses"
                f" VALUES (?, ?, ?, ?, ?, ?){made}",
                (
                    code,
                    analysis.match_number,
                    analysis.round_number,
                    analysis.worlds,
                    None if decisions is None else decisions.decode(),
                    analysis.error,
                ),
            )

    def load_analysis(
        self, code: str, match_number: int, round_number: int
    ) -> StoredAnalysis | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT worlds, decisions, error FROM analyses"
                " WHERE code = ? AND match_number = ? AND round_number = ?",
                (code, match_number, round_number),
            ).fetchone()
        if row is None:
            return None
        worlds, decisions, error = row
        return StoredAnalysis(
            match_number,
            round_number,
            worlds,
            None if decisions is None else orjson.loads(decisions),
            error,
        )

    def list_due_analyses(self, limit: int) -> list[tuple[str, int, int]]:
        with self._lock:
            return [
                (code, match_number, round_number)
                for code, match_number, round_number in self._conn.execute(
                    "SELECT code, match_number, round_number FROM analyses"
                    " WHERE decisions IS NULL AND error IS NULL"
                    " ORDER BY rowid LIMIT ?",
                    (limit,),
                )
            ]

    def _load_match(self, code: str, number: int) -> StoredMatch | None:
        row = self._conn.execute(
            "SELECT seed, rules, over FROM matches WHERE code = ? AND number = ?", (code, number)
        ).fetchone()
        if row is None:
            return None
        moves = [
            move
            for (move,) in self._conn.execute(
                "SELECT move FROM moves WHERE code = ? AND number = ? ORDER BY idx", (code, number)
            )
        ]
        seed, rules, over = row
        return StoredMatch(number, int(seed), orjson.loads(rules), moves, bool(over))

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class GroupCommitStorage(WrittenLater, SqliteStorage):
    """SQLite with group commit, for a server on an event loop.

    The changes staged during one pass of the loop are written together, in one transaction,
    at the start of the next pass (or at once, :meth:`flush`, when a reader task has an
    answer ready), on the loop's own thread, and the acknowledgements it releases go out in
    that same pass: a WAL commit without a sync costs less than handing it to a writer thread
    and back (two hand-offs, each waiting for the GIL). The slow part of SQLite's WAL,
    copying it back into the database file with a sync, is done beside the loop by
    :class:`_Checkpointer`.

    Nothing may be sent before the change it follows is written: every outgoing update or
    ack notes :attr:`staged_seq` when queued and its writer awaits :meth:`wait_durable`.
    Until :meth:`bind` is called, commits are immediate.

    When a write fails (a full disk, a read-only file, a lock held by another process for
    longer than :data:`BUSY_TIMEOUT`) the batch is kept and tried again every
    :data:`RETRY_SECONDS`; meanwhile :attr:`failed` is true, so that tables refuse new
    changes, and nothing that follows the unwritten batch is sent.
    """

    RETRY_SECONDS = 0.5
    #: How long a write waits for a lock held by another process: the loop waits with it.
    BUSY_TIMEOUT = 0.05
    #: How often the checkpointer copies the WAL back into the database file.
    CHECKPOINT_SECONDS = 0.1
    #: How long a write outside the batches (a new table, an analysis) tries again while
    #: another connection holds the lock, before it is refused.
    WRITE_NOW_SECONDS = 10.0

    def __init__(self, path: str) -> None:
        super().__init__(path, busy_timeout=self.BUSY_TIMEOUT)
        on_disk = path != ":memory:"  # (an in-memory database is one connection's own)
        # Replays read from worker threads: their own connection, so that a long read never
        # holds the lock the loop's writes take.
        self._reader = SqliteStorage(path) if on_disk else None
        self._checkpointer = _Checkpointer(path, self.CHECKPOINT_SECONDS) if on_disk else None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._staged: list[Change] = []
        self._kicked = False
        self._waiters = DurableWaiters()
        self._retry: asyncio.TimerHandle | None = None
        self.staged_seq = 0
        self.durable_seq = 0

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._probe()

    def _probe(self) -> None:
        """Refuse changes from the start while the file cannot be written (a read-only
        database), rather than accepting one in memory that never reaches the disk; look
        again every :data:`RETRY_SECONDS` until it can."""
        self._retry = None
        if self.writable():
            if self.failed:
                log.warning("%s is writable again", self.path)
                self.failed = False
            return
        if not self.failed:
            log.error("cannot write %s: refusing changes until it can", self.path)
        self.failed = True
        assert self._loop is not None
        self._retry = self._loop.call_later(self.RETRY_SECONDS, self._probe)

    def load_match(self, code: str, number: int) -> StoredMatch | None:
        if self._reader is None:
            return super().load_match(code, number)
        return self._reader.load_match(code, number)

    def list_matches(self, code: str) -> list[MatchSummary]:
        if self._reader is None:
            return super().list_matches(code)
        return self._reader.list_matches(code)

    def load_chat(self, code: str, match_number: int) -> list[StoredChat]:
        if self._reader is None:
            return super().load_chat(code, match_number)
        return self._reader.load_chat(code, match_number)

    def load_analysis(
        self, code: str, match_number: int, round_number: int
    ) -> StoredAnalysis | None:
        if self._reader is None:
            return super().load_analysis(code, match_number, round_number)
        return self._reader.load_analysis(code, match_number, round_number)

    def commit(self, change: Change) -> int:
        if self._loop is None:
            return super().commit(change)
        self._staged.append(change)
        self.staged_seq += 1
        if not self._kicked and not self.failed:
            # Write after this pass of the loop: what the pass still changes joins the
            # batch (fewer, larger transactions: less CPU per decision flat out).
            self._kicked = True
            self._loop.call_soon(self._write_next)
        return self.staged_seq

    @property
    def all_written(self) -> bool:
        return not self._staged and not self.failed

    def flush(self) -> None:
        """Write what is staged now rather than at the next pass of the loop (for an answer
        that can go out at once once it is written)."""
        if self._staged and not self.failed and self._loop is not None:
            self._write_next()

    def _write_next(self) -> None:
        """Write everything staged in one transaction; on success release its waiters."""
        self._retry = None
        self._kicked = False
        if not self._staged:
            return
        batch, self._staged = self._staged, []
        written_seq = self.staged_seq
        try:
            with self._lock:
                self._write(batch)
        except Exception as error:  # sqlite3.Error mostly; anything else must not lose it
            if not self.failed:
                log.error("cannot write %s (%s): refusing changes until it can", self.path, error)
            self.failed = True
            self._staged = batch + self._staged  # in order, before what comes meanwhile
            assert self._loop is not None
            self._retry = self._loop.call_later(self.RETRY_SECONDS, self._write_next)
            return
        if self.failed:
            log.warning("%s is written again", self.path)
            self.failed = False
        self.durable_seq = written_seq
        self._waiters.release(written_seq)

    async def open(self) -> None:
        self.bind(asyncio.get_running_loop())

    # -- the Storage reads and the new table: the file is local, so they run on the loop,
    # except replays (a whole match), read by a worker thread from their own connection.

    async def _write_now(self, write: Callable[[], T]) -> T:
        """``write()`` on the loop's connection, tried again while another connection holds
        the file's lock: the loop waits :data:`BUSY_TIMEOUT` at a time, and in between
        serves the rest (a loaded machine's players' store held it longer than that, and a
        new table was refused with ``storage_error``)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.WRITE_NOW_SECONDS
        pause = self.BUSY_TIMEOUT
        while True:
            try:
                return write()
            except sqlite3.OperationalError as error:
                if error.sqlite_errorcode not in _BUSY or loop.time() + pause > deadline:
                    raise
            await asyncio.sleep(pause)
            pause = min(pause * 2, self.RETRY_SECONDS)  # (as long as a batch's retry at most)

    async def insert_table(self, table: StoredTable) -> None:
        try:
            await self._write_now(lambda: self.create_table(table))
        except sqlite3.IntegrityError:
            raise CodeTaken(f"a table {table.code} exists already") from None
        except sqlite3.Error as error:
            raise StorageError(f"cannot write {self.path} ({error})") from None

    # -- ownership: a SQLite file is one process's (and each table this process's own)

    async def own(self, code: str) -> bool:
        return True

    async def disown(self, code: str) -> None:
        pass

    def on_lost(self, callback: Callable[[list[str]], None]) -> None:
        pass

    async def orphans(self) -> list[str]:
        try:
            with self._lock:
                rows = self._conn.execute("SELECT code FROM tables WHERE status = 'playing'")
                return [code for (code,) in rows]
        except sqlite3.Error as error:
            raise StorageError(f"cannot read {self.path} ({error})") from None

    async def fetch_tables(self, status: str | None = None) -> list[StoredTable]:
        try:
            return self.load_tables(status)
        except sqlite3.Error as error:
            raise StorageError(f"cannot read {self.path} ({error})") from None

    async def fetch_table(self, code: str) -> StoredTable | None:
        try:
            return self.load_table(code)
        except sqlite3.Error as error:
            raise StorageError(f"cannot read {self.path} ({error})") from None

    async def code_taken(self, code: str) -> bool:
        try:
            return self.table_exists(code)
        except sqlite3.Error as error:
            raise StorageError(f"cannot read {self.path} ({error})") from None

    async def fetch_match(self, code: str, number: int) -> StoredMatch | None:
        try:
            return await asyncio.to_thread(self.load_match, code, number)
        except sqlite3.Error as error:
            raise StorageError(f"cannot read {self.path} ({error})") from None

    async def fetch_matches(self, code: str) -> list[MatchSummary]:
        try:
            return await asyncio.to_thread(self.list_matches, code)
        except sqlite3.Error as error:
            raise StorageError(f"cannot read {self.path} ({error})") from None

    async def fetch_chat(self, code: str, match_number: int) -> list[StoredChat]:
        try:
            return await asyncio.to_thread(self.load_chat, code, match_number)
        except sqlite3.Error as error:
            raise StorageError(f"cannot read {self.path} ({error})") from None

    async def store_analysis(self, code: str, analysis: StoredAnalysis) -> None:
        # On the loop, through the writer's connection (one row of some kilobytes, well
        # under a millisecond): a second writing connection would make the loop's own
        # writes wait for its lock.
        try:
            await self._write_now(lambda: self.save_analysis(code, analysis))
        except sqlite3.Error as error:
            raise StorageError(f"cannot write {self.path} ({error})") from None

    async def fetch_analysis(
        self, code: str, match_number: int, round_number: int
    ) -> StoredAnalysis | None:
        try:
            return await asyncio.to_thread(self.load_analysis, code, match_number, round_number)
        except sqlite3.Error as error:
            raise StorageError(f"cannot read {self.path} ({error})") from None

    async def due_analyses(self, limit: int) -> list[tuple[str, int, int]]:
        try:
            return self.list_due_analyses(limit)
        except sqlite3.Error as error:
            raise StorageError(f"cannot read {self.path} ({error})") from None

    async def pending_records(self, limit: int) -> list[tuple[str, int, str]]:
        try:
            with self._lock:
                rows = self._conn.execute(
                    "SELECT code, number, record FROM match_records ORDER BY rowid LIMIT ?",
                    (limit,),
                ).fetchall()
        except sqlite3.Error as error:
            raise StorageError(f"cannot read {self.path} ({error})") from None
        return [(code, number, record) for code, number, record in rows]

    async def records_done(self, keys: list[tuple[str, int]]) -> None:
        # (On the loop, through the writer's connection, as store_analysis: a few rows.)
        def delete() -> None:
            with self._lock:
                self._conn.executemany(
                    "DELETE FROM match_records WHERE code = ? AND number = ?", keys
                )

        try:
            await self._write_now(delete)
        except sqlite3.Error as error:
            raise StorageError(f"cannot write {self.path} ({error})") from None

    async def shutdown(self) -> None:
        self.close()

    def close(self) -> None:
        """Write what is left (at shutdown, from the loop's thread) and close."""
        if self._retry is not None:
            self._retry.cancel()
        if self._checkpointer is not None:
            self._checkpointer.close()
        if self._staged:
            try:
                with self._lock:
                    self._transaction(self._staged)
                self._staged = []
            except sqlite3.Error as error:
                log.error("could not write the last changes to %s: %s", self.path, error)
        if self._reader is not None:
            self._reader.close()
        super().close()


class _Checkpointer:
    """Copies the WAL back into the database file, from its own connection and thread.

    SQLite's automatic checkpoint runs inside the commit that crosses 1,000 WAL pages: it
    writes those pages back and syncs the file, and whatever waited for that commit waits
    for the sync too (docs/operations.md, "WAL checkpoints"). A passive checkpoint every
    :attr:`interval` from another connection does that work beside the writer, a little at a
    time (it never blocks a writer: SQLite's "wal_checkpoint"); the writer's automatic
    checkpoint stays on as the bound on the WAL's size, and then finds next to nothing left
    to copy."""

    def __init__(self, path: str, interval: float) -> None:
        self.interval = interval
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sqlite-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            except sqlite3.Error as error:  # a read-only file or a full disk: the writer says so
                log.debug("checkpoint of %s failed: %s", self._conn, error)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._conn.close()
