"""PostgreSQL storage: the :class:`~fouronefour.server.storage.Storage` of a cluster.

Several server processes share one PostgreSQL database; the schema is created and brought
up to date by the server itself (:data:`MIGRATIONS`, applied under an advisory lock so that
processes starting together do not race).

Writes are group commits, as with SQLite: changes staged while a batch is being written
are written together as the next batch, so a batch grows with the database's latency
instead of the latency adding up. A batch is one SQL statement (data-modifying CTEs over
arrays), so one round trip and atomic; its inserts ignore rows that exist already, which
makes a batch safe to write again after a connection that broke before its answer arrived.

The driver is asyncpg: writing a batch costs it about a third of the client CPU psycopg 3
spends, and the client's CPU is the server's (bench/results/server_load.md has the timings).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import asyncpg
import orjson

from ..codes import CODE_ALPHABET, CODE_LENGTH
from ..outage import Outage
from .interface import DurableWaiters, WrittenLater
from .reads import CHAT_COLUMNS, RECENT_CHAT, TABLE_COLUMNS, TABLE_READS, chat_line, stored_table
from .values import (
    Change,
    ChangeExtra,
    CodeTaken,
    MatchSummary,
    StorageError,
    StoredAnalysis,
    StoredChat,
    StoredHandoff,
    StoredMatch,
    StoredSeat,
    StoredTable,
)

log = logging.getLogger(__name__)

#: Each migration brings the schema from its index to the next version, in one transaction.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE tables (
        code TEXT PRIMARY KEY, options TEXT NOT NULL, host_seat INTEGER NOT NULL,
        status TEXT NOT NULL, version BIGINT NOT NULL, match_number INTEGER NOT NULL);
    CREATE TABLE seats (
        code TEXT NOT NULL, seat INTEGER NOT NULL, name TEXT, kind TEXT NOT NULL,
        token_hash TEXT, PRIMARY KEY (code, seat));
    CREATE TABLE matches (
        code TEXT NOT NULL, number INTEGER NOT NULL, seed BIGINT NOT NULL, rules TEXT NOT NULL,
        over BOOLEAN NOT NULL DEFAULT false, PRIMARY KEY (code, number));
    CREATE TABLE moves (
        code TEXT NOT NULL, number INTEGER NOT NULL, idx INTEGER NOT NULL, move TEXT NOT NULL,
        version BIGINT NOT NULL, PRIMARY KEY (code, number, idx));
    CREATE INDEX tables_status ON tables (status);
    """,
    # Protocol 3: settings, the host's pause and the end-of-round pause, chat, handoffs, and
    # each finished match's result.
    """
    ALTER TABLE tables ADD COLUMN settings TEXT NOT NULL DEFAULT '{}',
        ADD COLUMN paused BOOLEAN NOT NULL DEFAULT false,
        ADD COLUMN round_end INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE matches ADD COLUMN winning_team INTEGER, ADD COLUMN rounds INTEGER;
    CREATE TABLE chat (
        code TEXT NOT NULL, version BIGINT NOT NULL, match_number INTEGER NOT NULL,
        step INTEGER NOT NULL, at BIGINT NOT NULL, seat INTEGER, name TEXT NOT NULL,
        spectator BOOLEAN NOT NULL, text TEXT, phrase TEXT, PRIMARY KEY (code, version));
    CREATE TABLE handoffs (
        code TEXT NOT NULL, seat INTEGER NOT NULL, secret_hash TEXT NOT NULL,
        expires_at BIGINT NOT NULL, PRIMARY KEY (code, seat));
    """,
    # Answers to an open claim window, kept from their ack until the window's moves are.
    """
    CREATE TABLE claims (
        code TEXT NOT NULL, match_number INTEGER NOT NULL, idx INTEGER NOT NULL,
        seat INTEGER NOT NULL, answer TEXT NOT NULL, PRIMARY KEY (code, match_number, idx, seat));
    """,
    # Old tables' deletion (postgres_retention.py): what each table was last seen as, and the
    # finished matches of tables deleted since.
    """
    CREATE TABLE retention_seen (
        code TEXT PRIMARY KEY, status TEXT NOT NULL, version BIGINT NOT NULL,
        seen_at DOUBLE PRECISION NOT NULL);
    CREATE TABLE archived_matches (
        code TEXT NOT NULL, number INTEGER NOT NULL, seats TEXT NOT NULL,
        archived_at DOUBLE PRECISION NOT NULL, invite_hash TEXT, PRIMARY KEY (code, number));
    CREATE INDEX archived_matches_at ON archived_matches (archived_at);
    """,
    # Each ended round's analysis: due from the change that ended it, then made (analysis.py).
    """
    CREATE TABLE analyses (
        code TEXT NOT NULL, match_number INTEGER NOT NULL, round_number INTEGER NOT NULL,
        worlds INTEGER, decisions TEXT, error TEXT, due_since BIGSERIAL,
        PRIMARY KEY (code, match_number, round_number));
    CREATE INDEX analyses_due ON analyses (due_since) WHERE decisions IS NULL AND error IS NULL;
    """,
    # Each writer session's lease (PostgresStorage, "Leases"): renewed by its process while
    # it runs, on the database's clock. A session is its backend pid and start (a pid may be
    # reused by another session once its own ended).
    """
    CREATE TABLE leases (
        backend INTEGER PRIMARY KEY, started TIMESTAMPTZ NOT NULL, renewed TIMESTAMPTZ NOT NULL);
    """,
    # A seat's player's profile (players/), and a finished match's record for the players'
    # store, kept with its result until recorded (storage/sqlite.py's schema says why).
    """
    ALTER TABLE seats ADD COLUMN profile TEXT;
    CREATE TABLE match_records (
        code TEXT NOT NULL, number INTEGER NOT NULL, record TEXT NOT NULL,
        added BIGSERIAL, PRIMARY KEY (code, number));
    """,
)
#: The key of the advisory lock held while the schema is migrated (any fixed number).
MIGRATION_LOCK = 414_016
#: The first key of every table's advisory lock (its owner holds it; the second key is
#: :func:`lock_key`).
OWNER_LOCKS = 414
#: What a lost or unreachable database raises (and a connection left in the middle of a
#: statement that timed out: it is replaced).
_FAILURES = (
    OSError,
    asyncpg.PostgresError,
    TimeoutError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
)


def lock_key(code: str) -> int:
    """The second key of table ``code``'s advisory lock: an invite code read as a number in
    base 31 (six of its letters are below 2**31, so no two codes share a lock); any other
    code, a negative number from its checksum."""
    if len(code) == CODE_LENGTH and all(c in CODE_ALPHABET for c in code):
        key = 0
        for c in code:
            key = key * len(CODE_ALPHABET) + CODE_ALPHABET.index(c)
        return key
    return -1 - (zlib.crc32(code.encode()) & 0x7FFFFFFF)


@functools.cache
def _orphans_query() -> str:
    """The tables being played whose owner lock nobody holds; ``invite`` false for a code
    that is no invite code, whose lock (:func:`lock_key`) the caller looks up itself."""
    base = len(CODE_ALPHABET)
    key = " + ".join(  # lock_key in SQL
        f"(strpos('{CODE_ALPHABET}', substr(t.code, {i + 1}, 1)) - 1)::bigint"
        f" * {base ** (CODE_LENGTH - 1 - i)}"
        for i in range(CODE_LENGTH)
    )
    return f"""
WITH held AS MATERIALIZED (
    SELECT objid::bigint AS key FROM pg_locks
    WHERE locktype = 'advisory' AND classid = $1 AND objsubid = 2 AND granted
), playing AS (
    SELECT t.code, t.code ~ '^[{CODE_ALPHABET}]{{{CODE_LENGTH}}}$' AS invite FROM tables t
    WHERE t.status = 'playing'
)
SELECT t.code, t.invite FROM playing t
WHERE NOT t.invite OR NOT EXISTS (SELECT 1 FROM held WHERE held.key = {key})
"""


#: One batch of changes, one statement: every array is a column of rows (possibly none). A
#: row is changed once at most in a statement (PostgreSQL does not order two changes of one
#: row), so what a batch does to one row is merged into one set of values first.
_WRITE_BATCH = """
WITH new_matches AS (
    INSERT INTO matches (code, number, seed, rules, over, winning_team, rounds)
    SELECT * FROM unnest(
        $1::text[], $2::int[], $3::bigint[], $4::text[], $5::bool[], $6::int[], $7::int[])
    ON CONFLICT (code, number) DO NOTHING
), ended AS (
    UPDATE matches SET over = true, winning_team = e.winning_team, rounds = e.rounds
    FROM unnest($8::text[], $9::int[], $10::int[], $11::int[])
        AS e(code, number, winning_team, rounds)
    WHERE matches.code = e.code AND matches.number = e.number
), new_moves AS (
    INSERT INTO moves (code, number, idx, move, version)
    SELECT * FROM unnest($12::text[], $13::int[], $14::int[], $15::text[], $16::bigint[])
    ON CONFLICT (code, number, idx) DO NOTHING
), new_seats AS (
    INSERT INTO seats (code, seat, name, kind, token_hash, profile)
    SELECT * FROM unnest($17::text[], $18::int[], $19::text[], $20::text[], $21::text[],
                         $57::text[])
    ON CONFLICT (code, seat) DO UPDATE
    SET name = excluded.name, kind = excluded.kind, token_hash = excluded.token_hash,
        profile = excluded.profile
), table_rows AS (
    UPDATE tables SET status = t.status, version = t.version, match_number = t.match_number,
        host_seat = COALESCE(t.host_seat, tables.host_seat),
        settings = COALESCE(t.settings, tables.settings),
        paused = COALESCE(t.paused, tables.paused),
        round_end = COALESCE(t.round_end, tables.round_end)
    FROM unnest($22::text[], $23::text[], $24::bigint[], $25::int[], $26::int[], $27::text[],
                $28::bool[], $29::int[])
        AS t(code, status, version, match_number, host_seat, settings, paused, round_end)
    WHERE tables.code = t.code
), new_chat AS (
    INSERT INTO chat (code, version, match_number, step, at, seat, name, spectator, text, phrase)
    SELECT * FROM unnest($30::text[], $31::bigint[], $32::int[], $33::int[], $34::bigint[],
                         $35::int[], $36::text[], $37::bool[], $38::text[], $39::text[])
    ON CONFLICT (code, version) DO NOTHING
), new_handoffs AS (
    INSERT INTO handoffs (code, seat, secret_hash, expires_at)
    SELECT * FROM unnest($40::text[], $41::int[], $42::text[], $43::bigint[])
    ON CONFLICT (code, seat) DO UPDATE
    SET secret_hash = excluded.secret_hash, expires_at = excluded.expires_at
), void_handoffs AS (
    DELETE FROM handoffs USING unnest($44::text[], $45::int[]) AS v(code, seat)
    WHERE handoffs.code = v.code AND handoffs.seat = v.seat
), new_claims AS (
    INSERT INTO claims (code, match_number, idx, seat, answer)
    SELECT * FROM unnest($46::text[], $47::int[], $48::int[], $49::int[], $50::text[])
    ON CONFLICT (code, match_number, idx, seat) DO NOTHING
), done_claims AS (
    DELETE FROM claims USING unnest($51::text[], $52::int[], $53::int[]) AS d(code, number, idx)
    WHERE claims.code = d.code AND (claims.match_number, claims.idx) < (d.number, d.idx)
), due_analyses AS (
    INSERT INTO analyses (code, match_number, round_number)
    SELECT * FROM unnest($54::text[], $55::int[], $56::int[])
    ON CONFLICT (code, match_number, round_number) DO NOTHING
), new_records AS (
    INSERT INTO match_records (code, number, record)
    SELECT * FROM unnest($58::text[], $59::int[], $60::text[])
    ON CONFLICT (code, number) DO NOTHING
)
SELECT 1
"""


def batch_arguments(changes: list[Change]) -> list[list[Any]]:
    """The 60 column arrays of :data:`_WRITE_BATCH` for ``changes`` (in order: a later
    change to a seat, a table row or a handoff wins)."""
    batch = _Batch()
    for change in changes:
        batch.add(change)
    return batch.columns()


@dataclass(eq=False)
class _Batch:
    """The rows of a batch of changes, by the table they go to."""

    new_matches: dict[tuple[str, int], list[Any]] = field(default_factory=dict)
    ended: dict[tuple[str, int], list[Any]] = field(default_factory=dict)
    moves: list[tuple[str, int, int, str, int]] = field(default_factory=list)
    seats: dict[tuple[str, int], StoredSeat] = field(default_factory=dict)
    rows: dict[str, list[Any]] = field(default_factory=dict)
    chat: list[tuple[Any, ...]] = field(default_factory=list)
    handoffs: dict[tuple[str, int], StoredHandoff] = field(default_factory=dict)
    claims: list[tuple[str, int, int, int, str]] = field(default_factory=list)
    #: table -> its windows before this are closed
    done: dict[str, tuple[int, int]] = field(default_factory=dict)
    analyses: list[tuple[str, int, int]] = field(default_factory=list)
    records: list[tuple[str, int, str]] = field(default_factory=list)

    def add(self, change: Change) -> None:
        code = change.code
        self._match(change)
        for i, move in enumerate(change.moves):
            self.moves.append(
                (code, change.match_number, change.first_move_index + i, move, change.version)
            )
        for seat in change.seats:
            self.seats[(code, seat.seat)] = seat
        self._row(change)
        if change.extra is not None:
            self._extra(change, change.extra)

    def _match(self, change: Change) -> None:
        code, extra = change.code, change.extra
        if change.new_match is not None:
            new = change.new_match
            rules = orjson.dumps(new.rules).decode()
            self.new_matches[(code, new.number)] = [
                code, new.number, new.seed, rules, False, None, None
            ]  # fmt: skip
        if change.match_over:
            key = (code, change.match_number)
            result = (None, None) if extra is None or extra.result is None else extra.result
            started = self.new_matches.get(key)
            if started is not None:  # (the statement's parts see the rows as before it)
                started[4:] = [True, *result]
            else:
                self.ended[key] = [*key, *result]

    def _row(self, change: Change) -> None:
        row = None if change.extra is None else change.extra.row
        if not (change.table_row or not change.moves or row is not None):
            return
        earlier = self.rows.get(change.code, [None] * 7)[3:]  # the seldom-changing columns
        if row is not None:
            earlier = [row.host_seat, orjson.dumps(row.settings).decode(), row.paused,
                       row.round_end]  # fmt: skip
        self.rows[change.code] = [change.status, change.version, change.match_number, *earlier]

    def _extra(self, change: Change, extra: ChangeExtra) -> None:
        code = change.code
        if extra.chat is not None:
            line = extra.chat
            self.chat.append(
                (code, line.version, line.match_number, line.step, line.at, line.seat,
                 line.name, line.spectator, line.text, line.phrase)
            )  # fmt: skip
        for handoff in extra.handoffs:
            self.handoffs[(code, handoff.seat)] = handoff
        if extra.claims_done is not None:
            self.done[code] = extra.claims_done
        for claim in extra.claims:
            self.claims.append((code, claim.match_number, claim.idx, claim.seat, claim.answer))
        if extra.analysis is not None:
            self.analyses.append((code, *extra.analysis))
        if extra.record is not None:
            self.records.append((code, change.match_number, extra.record))

    def columns(self) -> list[list[Any]]:
        """The statement's arrays, in its parameters' order."""
        columns: list[list[Any]] = []
        columns += _columns(list(self.new_matches.values()), 7)
        columns += _columns(list(self.ended.values()), 4)
        columns += _columns(self.moves, 5)
        seats = self.seats.items()
        columns += _columns([(c, s.seat, s.name, s.kind, s.token_hash) for (c, _), s in seats], 5)
        columns += _columns([(code, *row) for code, row in self.rows.items()], 8)
        columns += _columns(self.chat, 10)
        handoffs = self.handoffs.items()
        kept = [
            (c, h.seat, h.secret_hash, h.expires_at)
            for (c, _), h in handoffs
            if h.secret_hash is not None
        ]
        columns += _columns(kept, 4)
        columns += _columns([(c, h.seat) for (c, _), h in handoffs if h.secret_hash is None], 2)
        # (Answers to a window that closed in this same batch are not written at all.)
        done = self.done
        claims = [c for c in self.claims if c[0] not in done or (c[1], c[2]) >= done[c[0]]]
        columns += _columns(claims, 5)
        columns += _columns([(c, *before) for c, before in done.items()], 3)
        columns += _columns(self.analyses, 3)
        columns.append([s.profile for s in self.seats.values()])  # ($57: added after the rest)
        columns += _columns(self.records, 3)
        return columns


def _columns(rows: list[Any], width: int) -> list[list[Any]]:
    if not rows:
        return [[] for _ in range(width)]
    return [list(column) for column in zip(*rows, strict=True)]


class PostgresStorage(WrittenLater):
    """Tables in a PostgreSQL database, shared by every server process of a cluster.

    **Ownership.** A table is written by one process at a time, its owner: the process that
    holds the table's advisory lock (:meth:`own`) on its writer connection, the very
    connection its writes go through. A lock lives as long as the session that took it, so a
    write that reaches the database comes from the owner, whatever happened meanwhile: that
    is the fencing. If the writer connection breaks, its locks go with it; the next session
    takes them again before writing anything, and the tables whose locks another process took
    meanwhile are lost (:meth:`on_lost`): their changes not yet written are dropped, none of
    them having been acknowledged to anybody. A process that dies (SIGKILL) lets go at once,
    its connection being closed by its kernel; a machine that vanishes, once the database's
    TCP keepalives (:data:`KEEPALIVE`) find it gone.

    **Leases.** A process that hangs (stopped, swapping, a loop stuck) keeps its session and
    so its locks: its tables would stay frozen as long as it hangs. So each writer session
    has a lease (a row of ``leases``), renewed every :data:`RENEW_SECONDS` from a connection
    of its own; the look for tables without an owner (:meth:`orphans`) first ends the
    sessions whose lease is older than :data:`LEASE_SECONDS` (``pg_terminate_backend``):
    their locks go with them, and the tables are taken over as a dead owner's are. When the
    hung process wakes, its session is gone: the fencing above holds (its next session
    cannot take the locks back, and its changes not written are dropped)."""

    RETRY_SECONDS = 0.5
    #: A statement that takes longer has failed (the database is unreachable or stuck).
    STATEMENT_SECONDS = 5.0
    CONNECT_SECONDS = 2.0
    #: How often an idle writer connection is checked (an outage is noticed before a write).
    PROBE_SECONDS = 1.0
    #: Connections for reads (a table loaded, a replay) beside the writer's own.
    READERS = 4
    #: A writer session whose lease was not renewed for this long is ended by another
    #: process (its tables are taken over); the lease is renewed every RENEW_SECONDS.
    LEASE_SECONDS = 2.0
    RENEW_SECONDS = 0.4
    #: The database drops a silent client after about idle + interval x count seconds.
    KEEPALIVE: ClassVar[dict[str, str]] = {
        "tcp_keepalives_idle": "2",
        "tcp_keepalives_interval": "1",
        "tcp_keepalives_count": "2",
    }

    def __init__(self, url: str) -> None:
        self.url = url
        self.staged_seq = 0
        self.durable_seq = 0
        self.failed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._writer: asyncpg.Connection | None = None
        #: One user of the writer connection at a time (a batch, a lock taken or let go).
        self._writer_busy = asyncio.Lock()
        self._readers: asyncpg.Pool | None = None
        self._staged: list[Change] = []
        self._writing: asyncio.Task[None] | None = None
        self._probing: asyncio.Task[None] | None = None
        self._renewing: asyncio.Task[None] | None = None
        #: The writer session's backend (its lease's key), and the lease's own connection.
        self._writer_pid: int | None = None
        self._writer_started: Any = None
        self._leaser: asyncpg.Connection | None = None
        self._told_privilege = False
        self._kicked = False
        self._waiters = DurableWaiters()
        self._closed = False
        self.outage = Outage(log, "PostgreSQL")
        #: The tables this process owns (their locks are held by the writer's session).
        self._owned: set[str] = set()
        self._lost_callbacks: list[Callable[[list[str]], None]] = []

    # ------------------------------------------------------------ opening

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    async def open(self) -> None:
        """Connect, create or migrate the schema, and write from the running loop."""
        self.bind(asyncio.get_running_loop())
        try:
            self._writer = await self._connect()
            await migrate(self._writer)
            await self._lease(self._writer)
            self._readers = await asyncpg.create_pool(
                self.url,
                # (No floor: asyncpg restores one with a traceback a second while the
                # database is away.)
                min_size=0,
                max_size=self.READERS,
                command_timeout=self.STATEMENT_SECONDS,
                timeout=self.CONNECT_SECONDS,
            )
        except (OSError, asyncpg.PostgresError, TimeoutError) as error:
            raise StorageError(f"cannot open the database ({error})") from None
        self._probing = asyncio.get_running_loop().create_task(self._probe())
        self._renewing = asyncio.get_running_loop().create_task(self._renew())

    async def _connect(self) -> asyncpg.Connection:
        # (Named after this process, so that pg_stat_activity beside pg_locks says which
        # process owns which table.)
        return await asyncpg.connect(
            self.url,
            timeout=self.CONNECT_SECONDS,
            command_timeout=self.STATEMENT_SECONDS,
            server_settings={**self.KEEPALIVE, "application_name": f"fouronefour {os.getpid()}"},
        )

    # ------------------------------------------------------------ owning

    async def own(self, code: str) -> bool:
        if code in self._owned:
            return True
        try:
            async with self._writer_busy:
                conn = await self._session()
                taken = await conn.fetchval(
                    "SELECT pg_try_advisory_lock($1, $2)", OWNER_LOCKS, lock_key(code)
                )
        except _FAILURES as error:
            await self._drop_writer()
            raise StorageError(f"the database did not answer ({error})") from None
        if taken:
            self._owned.add(code)
        return bool(taken)

    async def disown(self, code: str) -> None:
        if code not in self._owned:
            return
        await self.wait_durable(self.staged_seq)  # its changes are written first
        self._owned.discard(code)
        with contextlib.suppress(*_FAILURES):  # (a broken session has let go already)
            async with self._writer_busy:
                if self._writer is not None and not self._writer.is_closed():
                    await self._writer.execute(
                        "SELECT pg_advisory_unlock($1, $2)", OWNER_LOCKS, lock_key(code)
                    )

    def on_lost(self, callback: Callable[[list[str]], None]) -> None:
        self._lost_callbacks.append(callback)

    async def orphans(self) -> list[str]:
        # (Worked out by the database: every process asks every second, and reading every
        # table being played to compare here cost its event loop ~10 ms at 1,000 tables.)
        async with self._reader() as conn:
            await self._end_lapsed(conn)  # (a hung owner owns nothing)
            found = await conn.fetch(_orphans_query(), OWNER_LOCKS)
            other = [r["code"] for r in found if not r["invite"]]
            held: set[int] = set()
            if other:  # (codes that are no invite code: tests' own)
                held = {
                    int(r["objid"])
                    for r in await conn.fetch(
                        "SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND classid = $1"
                        " AND objsubid = 2 AND granted",
                        OWNER_LOCKS,
                    )
                }
        return [
            r["code"]
            for r in found
            if r["invite"] or lock_key(r["code"]) & 0xFFFFFFFF not in held  # (objid: unsigned)
        ]

    async def _session(self) -> asyncpg.Connection:
        """The writer connection (under :attr:`_writer_busy`); a new one takes again the
        locks of the tables owned here, and those it cannot take are lost."""
        if self._writer is not None and not self._writer.is_closed():
            return self._writer
        conn = await self._connect()
        self._writer = conn
        await self._lease(conn)  # (before any lock: a session holding locks has a lease)
        if self._owned:
            codes = sorted(self._owned)
            lost = [
                r["code"]
                for r in await conn.fetch(
                    "SELECT code FROM unnest($2::text[], $3::int[]) AS t(code, key)"
                    " WHERE NOT pg_try_advisory_lock($1, key)",
                    OWNER_LOCKS,
                    codes,
                    [lock_key(c) for c in codes],
                )
            ]
            if lost:
                self._lose(lost)
        return conn

    async def _lease(self, conn: asyncpg.Connection) -> None:
        self._writer_started = await conn.fetchval(
            "INSERT INTO leases SELECT pid, backend_start, clock_timestamp()"
            " FROM pg_stat_activity WHERE pid = pg_backend_pid()"
            " ON CONFLICT (backend) DO UPDATE"
            " SET started = excluded.started, renewed = excluded.renewed RETURNING started"
        )
        self._writer_pid = conn.get_server_pid()

    async def _renew(self) -> None:
        """Renew the writer session's lease, from a connection of its own (a long batch on
        the writer must not let it lapse)."""
        while not self._closed:
            await asyncio.sleep(self.RENEW_SECONDS)
            backend, started = self._writer_pid, self._writer_started
            if backend is None:
                continue
            try:
                if self._leaser is None or self._leaser.is_closed():
                    self._leaser = None
                    self._leaser = await self._connect()
                # (An update only: the lease of a session ended meanwhile is not made again.)
                await self._leaser.execute(
                    "UPDATE leases SET renewed = clock_timestamp()"
                    " WHERE backend = $1 AND started = $2",
                    backend,
                    started,
                )
            except _FAILURES:  # (the writer's failures are told by the writer)
                leaser, self._leaser = self._leaser, None
                if leaser is not None:
                    leaser.terminate()

    async def _end_lapsed(self, conn: asyncpg.Connection) -> None:
        """End the writer sessions whose lease lapsed (their process hangs): their locks,
        and so their tables, are free then. (A role not allowed to end another's session is
        told once; the look for tables without an owner goes on without it.)"""
        try:
            ended = await conn.fetch(
                "SELECT l.backend, extract(epoch FROM clock_timestamp() - l.renewed) AS late,"
                " pg_terminate_backend(l.backend, 1000) AS ended"
                " FROM leases l"
                " JOIN pg_stat_activity a ON a.pid = l.backend AND a.backend_start = l.started"
                " WHERE l.renewed < clock_timestamp() - make_interval(secs => $1)",
                self.LEASE_SECONDS,
            )
        except asyncpg.InsufficientPrivilegeError as error:
            if not self._told_privilege:
                self._told_privilege = True
                log.error("cannot end the sessions of hung processes: %s", error)
            return
        await conn.execute(
            "DELETE FROM leases l WHERE NOT EXISTS"
            " (SELECT 1 FROM pg_stat_activity a"
            " WHERE a.pid = l.backend AND a.backend_start = l.started)"
        )
        for row in ended:
            log.warning(
                "the PostgreSQL session %d of a server process was not renewed for %.1f s:"
                " it is ended, and its tables are taken over",
                row["backend"],
                float(row["late"]),
            )

    def _lose(self, codes: list[str]) -> None:
        log.warning("tables %s were taken over by another process", ", ".join(codes))
        gone = set(codes)
        self._owned -= gone
        self._staged = [c for c in self._staged if c.code not in gone]
        for callback in self._lost_callbacks:
            callback(codes)

    # ------------------------------------------------------------ writing

    def commit(self, change: Change) -> int:
        self._staged.append(change)
        self.staged_seq += 1
        if not self._kicked and self._writing is None and not self.failed:
            # Write after this pass of the loop: what the pass still changes joins the batch.
            self._kicked = True
            assert self._loop is not None, "open() the storage before committing"
            self._loop.call_soon(self.flush)
        return self.staged_seq

    def flush(self) -> None:
        self._kicked = False
        if self._staged and self._writing is None and not self.failed and not self._closed:
            assert self._loop is not None
            self._writing = self._loop.create_task(self._write_batches())

    async def _write_batches(self) -> None:
        """Write batches until nothing is staged; on a failure, keep the batch, refuse
        changes (:attr:`failed`) and try again every :data:`RETRY_SECONDS`."""
        again = True
        try:
            while self._staged:
                try:
                    async with self._writer_busy:
                        conn = await self._session()  # (may drop a lost table's changes)
                        batch, self._staged = self._staged, []
                        written_seq = self.staged_seq
                        # Only an owner writes (the others' changes are a lost table's).
                        batch = [c for c in batch if c.code in self._owned]
                        try:
                            if batch:
                                await conn.execute(_WRITE_BATCH, *batch_arguments(batch))
                        except BaseException:
                            self._staged = batch + self._staged
                            raise
                except _FAILURES as error:
                    ended = self._writer is not None and self._writer.is_closed()
                    await self._drop_writer()
                    if self._closed:
                        return
                    if ended and again:
                        # The session was ended under it (its lease lapsed while this process
                        # was slow, a restart of the database): a new one at once, before
                        # refusing anything. (A batch written twice changes nothing.)
                        again = False
                        continue
                    self.outage.failed(error, "refusing changes")
                    self.failed = True
                    await asyncio.sleep(self.RETRY_SECONDS)
                    continue
                again = True
                self._written_up_to(written_seq)
        finally:
            self._writing = None

    def _written_up_to(self, seq: int) -> None:
        if self.failed:
            self.outage.back("changes are written again")
            self.failed = False
        self.durable_seq = seq
        self._waiters.release(seq)

    async def _probe(self) -> None:
        """Check the idle writer connection every :data:`PROBE_SECONDS`: an outage refuses
        changes before anybody makes one, a new session takes the locks again, and the
        tables lost meanwhile are known."""
        while not self._closed:
            await asyncio.sleep(self.PROBE_SECONDS)
            if self._writing is not None or self._staged:
                continue  # (the writer finds out, and tries again itself)
            try:
                try:
                    async with self._writer_busy:
                        conn = await self._session()
                        await conn.execute("SELECT 1")
                except _FAILURES:
                    # A session ended under it (its lease lapsed while this process hung, a
                    # restart of the database): a new one at once, before refusing anything.
                    await self._drop_writer()
                    async with self._writer_busy:
                        conn = await self._session()
                        await conn.execute("SELECT 1")
            except _FAILURES as error:
                self.outage.failed(error, "refusing changes")
                self.failed = True
                await self._drop_writer()
                continue
            if self.failed and not self._staged and self._writing is None:
                self._written_up_to(self.staged_seq)

    async def _drop_writer(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.terminate()

    @property
    def all_written(self) -> bool:
        return not self._staged and self._writing is None and not self.failed

    async def insert_table(self, table: StoredTable) -> None:
        try:
            async with self._reader() as conn, conn.transaction():
                await conn.execute(
                    "INSERT INTO tables (code, options, host_seat, status, version,"
                    " match_number, settings) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    table.code,
                    orjson.dumps(table.options).decode(),
                    table.host_seat,
                    table.status,
                    table.version,
                    table.match_number,
                    orjson.dumps(table.settings).decode(),
                )
                await conn.executemany(
                    "INSERT INTO seats (code, seat, name, kind, token_hash, profile)"
                    " VALUES ($1, $2, $3, $4, $5, $6)",
                    [
                        (table.code, s.seat, s.name, s.kind, s.token_hash, s.profile)
                        for s in table.seats
                    ],
                )
        except asyncpg.UniqueViolationError:
            raise CodeTaken(f"a table {table.code} exists already") from None

    # ------------------------------------------------------------ reading

    @contextlib.asynccontextmanager
    async def _reader(self) -> Any:
        """A pooled connection; any failure of the database becomes a StorageError."""
        if self._readers is None:
            raise StorageError("the database is not open")
        try:
            async with self._readers.acquire() as conn:
                yield conn
        except (asyncpg.UniqueViolationError, StorageError):
            raise
        except _FAILURES as error:
            raise StorageError(f"the database did not answer ({error})") from None

    async def fetch_tables(self, status: str | None = None) -> list[StoredTable]:
        async with self._reader() as conn:
            if status is None:
                rows = await conn.fetch(TABLE_COLUMNS)
            else:
                rows = await conn.fetch(TABLE_COLUMNS + " WHERE status = $1", status)
            return [await self._stored_table(conn, row) for row in rows]

    async def fetch_table(self, code: str) -> StoredTable | None:
        async with self._reader() as conn:
            row = await conn.fetchrow(TABLE_COLUMNS + " WHERE code = $1", code)
            return None if row is None else await self._stored_table(conn, row)

    async def code_taken(self, code: str) -> bool:
        async with self._reader() as conn:
            # (A code stays taken while matches of a table deleted since are kept.)
            found = await conn.fetchval(
                "SELECT 1 FROM tables WHERE code = $1 UNION ALL"
                " SELECT 1 FROM matches WHERE code = $1 LIMIT 1",
                code,
            )
            return found is not None

    async def fetch_match(self, code: str, number: int) -> StoredMatch | None:
        async with self._reader() as conn:
            return await self._match(conn, code, number)

    async def fetch_matches(self, code: str) -> list[MatchSummary]:
        async with self._reader() as conn:
            return [
                MatchSummary(r["number"], r["moves"], r["winning_team"], r["rounds"])
                for r in await conn.fetch(
                    "SELECT number, (SELECT COUNT(*) FROM moves WHERE moves.code = matches.code"
                    " AND moves.number = matches.number) AS moves, winning_team, rounds"
                    " FROM matches WHERE code = $1 AND over ORDER BY number",
                    code,
                )
            ]

    async def fetch_chat(self, code: str, match_number: int) -> list[StoredChat]:
        async with self._reader() as conn:
            return [
                chat_line(tuple(r))
                for r in await conn.fetch(
                    f"SELECT {CHAT_COLUMNS} FROM chat WHERE code = $1 AND match_number = $2"
                    " ORDER BY version",
                    code,
                    match_number,
                )
            ]

    # An analysis is written by its table's owner, through a pooled connection: storing one
    # twice stores the same (analyses are pure functions of the match), so it needs no fencing.
    async def store_analysis(self, code: str, analysis: StoredAnalysis) -> None:
        decisions = None if analysis.decisions is None else orjson.dumps(analysis.decisions)
        async with self._reader() as conn:
            await conn.execute(
                "INSERT INTO analyses (code, match_number, round_number, worlds, decisions, error)"
                " VALUES ($1, $2, $3, $4, $5, $6)"
                " ON CONFLICT (code, match_number, round_number) DO "
                + (
                    "NOTHING"  # (made due again: it may be made already)
                    if analysis.due
                    else "UPDATE SET worlds = excluded.worlds, decisions = excluded.decisions,"
                    " error = excluded.error"
                ),
                code,
                analysis.match_number,
                analysis.round_number,
                analysis.worlds,
                None if decisions is None else decisions.decode(),
                analysis.error,
            )

    async def fetch_analysis(
        self, code: str, match_number: int, round_number: int
    ) -> StoredAnalysis | None:
        async with self._reader() as conn:
            row = await conn.fetchrow(
                "SELECT worlds, decisions, error FROM analyses"
                " WHERE code = $1 AND match_number = $2 AND round_number = $3",
                code,
                match_number,
                round_number,
            )
        if row is None:
            return None
        decisions = row["decisions"]
        return StoredAnalysis(
            match_number,
            round_number,
            row["worlds"],
            None if decisions is None else orjson.loads(decisions),
            row["error"],
        )

    async def pending_records(self, limit: int) -> list[tuple[str, int, str]]:
        async with self._reader() as conn:
            rows = await conn.fetch(
                "SELECT code, number, record FROM match_records ORDER BY added LIMIT $1", limit
            )
        return [(r["code"], r["number"], r["record"]) for r in rows]

    async def records_done(self, keys: list[tuple[str, int]]) -> None:
        if not keys:
            return
        codes, numbers = zip(*keys, strict=True)
        async with self._reader() as conn:
            await conn.execute(
                "DELETE FROM match_records m USING unnest($1::text[], $2::int[]) AS k(code, number)"
                " WHERE m.code = k.code AND m.number = k.number",
                list(codes),
                list(numbers),
            )

    async def due_analyses(self, limit: int) -> list[tuple[str, int, int]]:
        async with self._reader() as conn:
            return [
                (r["code"], r["match_number"], r["round_number"])
                for r in await conn.fetch(
                    "SELECT code, match_number, round_number FROM analyses"
                    " WHERE decisions IS NULL AND error IS NULL ORDER BY due_since LIMIT $1",
                    limit,
                )
            ]

    async def _stored_table(self, conn: asyncpg.Connection, row: asyncpg.Record) -> StoredTable:
        code = row["code"]

        async def read(query: str, *more: Any) -> list[tuple[Any, ...]]:
            return [tuple(r) for r in await conn.fetch(query, code, *more)]

        table = stored_table(
            tuple(row),
            await read(TABLE_READS.seats),
            await read(TABLE_READS.finished),
            await conn.fetchval(TABLE_READS.moved, code),
            await read(TABLE_READS.chat, RECENT_CHAT),
            await read(TABLE_READS.claims),
            await read(TABLE_READS.handoffs),
        )
        if table.match_number:
            table.match = await self._match(conn, code, table.match_number)
        return table

    @staticmethod
    async def _match(conn: asyncpg.Connection, code: str, number: int) -> StoredMatch | None:
        row = await conn.fetchrow(
            "SELECT seed, rules, over FROM matches WHERE code = $1 AND number = $2", code, number
        )
        if row is None:
            return None
        moves = [
            r["move"]
            for r in await conn.fetch(
                "SELECT move FROM moves WHERE code = $1 AND number = $2 ORDER BY idx", code, number
            )
        ]
        return StoredMatch(number, row["seed"], orjson.loads(row["rules"]), moves, row["over"])

    # ------------------------------------------------------------ closing

    async def shutdown(self) -> None:
        """Write what is staged (for up to :data:`STATEMENT_SECONDS`) and close."""
        if self._staged and not self.failed:
            self.flush()
        if self._writing is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._writing), self.STATEMENT_SECONDS)
        self._closed = True
        for task in (self._writing, self._probing, self._renewing):
            if task is not None:
                task.cancel()
        if self._leaser is not None:
            self._leaser.terminate()
        if self._staged:
            log.error("%d changes could not be written to PostgreSQL", len(self._staged))
        if self._writer is not None:
            with contextlib.suppress(Exception):
                await self._writer.close(timeout=1)
        if self._readers is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._readers.close(), 2)


async def migrate(conn: asyncpg.Connection) -> int:
    """Bring the schema to the last of :data:`MIGRATIONS`; returns the version it was at."""
    return await migrate_in_place(
        conn, MIGRATIONS, "schema_version", MIGRATION_LOCK, "the database's schema"
    )


async def migrate_in_place(
    conn: asyncpg.Connection,
    migrations: tuple[str, ...],
    version_table: str,
    lock: int,
    what: str,
) -> int:
    """Bring a schema whose version ``version_table`` keeps to the last of ``migrations``,
    in one transaction under the advisory lock ``lock`` (processes starting together do not
    race); returns the version it was at. ``what``: the schema, as an error names it."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", lock)
        await conn.execute(f"CREATE TABLE IF NOT EXISTS {version_table} (version INTEGER NOT NULL)")
        found = await conn.fetchval(f"SELECT version FROM {version_table}")
        if found is None:
            await conn.execute(f"INSERT INTO {version_table} VALUES (0)")
            found = 0
        if found > len(migrations):
            raise StorageError(
                f"{what} is version {found}, newer than this server ({len(migrations)}): "
                "upgrade the server"
            )
        for step in migrations[found:]:
            await conn.execute(step)
        await conn.execute(f"UPDATE {version_table} SET version = $1", len(migrations))
    return int(found)


async def check(url: str, timeout: float = 3.0) -> str:
    """A line saying whether the database at ``url`` answers (raises StorageError if not)."""
    try:
        conn = await asyncpg.connect(url, timeout=timeout, command_timeout=timeout)
    except (OSError, asyncpg.PostgresError, TimeoutError) as error:
        raise StorageError(f"PostgreSQL does not answer ({error})") from None
    try:
        version = await conn.fetchval("SHOW server_version")
        has_schema = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
        schema = await conn.fetchval("SELECT version FROM schema_version") if has_schema else None
    finally:
        await conn.close()
    state = "no schema yet (made at start)" if schema is None else f"schema version {schema}"
    return f"PostgreSQL {version} answers: {state} (this server's: {len(MIGRATIONS)})"
