"""The players' store in SQL that SQLite and PostgreSQL both run (:class:`SqlPlayerStore`),
over a small connection interface (:class:`Db`) each of them implements (:mod:`.sqlite`,
:mod:`.postgres`). Statements are written with ``?`` placeholders; PostgreSQL's get ``$n``.

Booleans are integers (0/1) and times milliseconds since the epoch on both, so that one
statement reads the same rows from either.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import replace
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from . import ratings
from .store import UsernameTaken
from .values import (
    FORMER_PLAYER,
    PROVISIONAL_MATCHES,
    Credentials,
    HistoryEntry,
    MatchRecord,
    MatchSeat,
    Passkey,
    Profile,
    Rating,
    RatingChange,
    RatingRow,
    Recorded,
    SeatSummary,
    SessionInfo,
    Stats,
    Tally,
)

Row = Sequence[Any]
#: One SQL statement and its values.
Statement = tuple[str, tuple[Any, ...]]
R = TypeVar("R")
P = ParamSpec("P")

#: A session's expiry is pushed back at most once an hour (a write per request otherwise).
TOUCH_MS = 3_600_000


class Conn(Protocol):
    """One connection, in a transaction (:meth:`Db.write`) or reading (:meth:`Db.read`)."""

    async def fetch(self, sql: str, *args: Any) -> list[Row]: ...

    async def execute(self, sql: str, *args: Any) -> int:
        """Run ``sql``; returns the rows it changed."""
        ...

    async def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None: ...

    async def write_all(self, statements: Sequence[Statement]) -> None:
        """Run ``statements``: writes that return nothing and read none of each other's
        changes. PostgreSQL runs them as one statement (one round trip to the server: a
        match end's eight became five); SQLite, in the process, one after the other."""
        ...


class Db(Protocol):
    #: Appended to a SELECT that reads rows the transaction will change (PostgreSQL locks
    #: them; SQLite's write transactions are one at a time already).
    for_update: str
    #: An SQL expression of ``{}`` truncated to an integer towards zero, as Python's int().
    truncate: str

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    def write(self, bulk: bool = False) -> contextlib.AbstractAsyncContextManager[Conn]:
        """A transaction, committed when the block ends (rolled back if it raises);
        ``bulk``: an operator's pass over every profile (a recomputation), which may take
        longer than a request's statements are allowed."""
        ...

    def read(self) -> contextlib.AbstractAsyncContextManager[Conn]: ...

    def is_unique_violation(self, error: BaseException) -> bool: ...

    async def run(self, work: Coroutine[Any, Any, R]) -> R:
        """Run one of the store's operations (``work``) where its statements run: SQLite's
        on the database's own thread, start to end (a transaction never waits for the
        event loop while it holds the file's write lock); PostgreSQL's here."""
        ...


# The leaderboard's order in one index instead of two (``player_top`` by ordinal for the
# top 100, ``player_bucket`` by bucket for a player's rank): a bucket is a non-decreasing
# function of the ordinal (:func:`board_bucket`), so (bucket DESC, ordinal DESC, id) is the
# top's order too. A match end rewrites each of its profiles' entries in every index that
# holds the ordinal: one index fewer is about a quarter fewer pages a match end writes
# (docs/players.md, "Figures").
BOARD_INDEX_STEP = """
    DROP INDEX player_top;
    DROP INDEX player_bucket;
    CREATE INDEX player_board_order ON player_profiles (board_bucket DESC, ordinal DESC, id)
        WHERE board_bucket IS NOT NULL;
"""

# What each seat did over the match (tables/records.py) and its accuracy, once its
# rounds are analysed (recording.py); the matches whose accuracy is still to be worked out.
# (The same SQL in both databases: a step of both MIGRATIONS, sqlite.py and postgres.py.)
TALLIES_STEP = """
ALTER TABLE player_match_seats ADD COLUMN bombs INTEGER NOT NULL DEFAULT 0;
ALTER TABLE player_match_seats ADD COLUMN four_four_a INTEGER NOT NULL DEFAULT 0;
ALTER TABLE player_match_seats ADD COLUMN hooks_made INTEGER NOT NULL DEFAULT 0;
ALTER TABLE player_match_seats ADD COLUMN hooks_suffered INTEGER NOT NULL DEFAULT 0;
ALTER TABLE player_match_seats ADD COLUMN tribute_paid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE player_match_seats ADD COLUMN tribute_received INTEGER NOT NULL DEFAULT 0;
ALTER TABLE player_match_seats ADD COLUMN levels_climbed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE player_match_seats ADD COLUMN accuracy REAL;
CREATE TABLE player_accuracy_due (
    code TEXT NOT NULL, number INTEGER NOT NULL, rounds INTEGER NOT NULL,
    due_since BIGINT NOT NULL, PRIMARY KEY (code, number));
"""

#: The columns of what a seat did over a match (tables/records.py).
SEAT_TALLIES = (
    "bombs",
    "four_four_a",
    "hooks_made",
    "hooks_suffered",
    "tribute_paid",
    "tribute_received",
    "levels_climbed",
)
_SEAT_TALLIES = ", ".join(SEAT_TALLIES)

_PROFILE = (
    "id, name, avatar, language, created_at, last_seen, username, mu, sigma, rated_matches, deleted"
)


def _profile(row: Row) -> Profile:
    return Profile(
        id=row[0],
        name=row[1],
        avatar=row[2],
        language=row[3],
        created_at=int(row[4]),
        last_seen=int(row[5]),
        username=row[6],
        rating=Rating(float(row[7]), float(row[8]), int(row[9])),
        deleted=bool(row[10]),
    )


def _session(row: Row) -> SessionInfo:
    return SessionInfo(
        id=str(row[0])[:12],
        profile_id=row[1],
        created_at=int(row[2]),
        last_used=int(row[3]),
        expires_at=int(row[4]),
        how=row[5],
    )


_SESSION = "token_hash, profile_id, created_at, last_used, expires_at, how"
_PASSKEY = "k.credential_id, k.profile_id, k.public_key, k.sign_count, k.created_at, k.last_used"


def _passkey(row: Row) -> Passkey:
    return Passkey(row[0], row[1], row[2], int(row[3]), int(row[4]), int(row[5]))


def parse_cursor(cursor: str) -> tuple[int, str, int] | None:
    """A history cursor read back ("finished_at.code.number"), or None if it is not one."""
    head, _, rest = cursor.partition(".")
    code, _, number = rest.rpartition(".")
    if not (head.isdigit() and number.isdigit() and code) or len(cursor) > 80:
        return None
    return int(head), code, int(number)


class OnDb(Protocol):
    """A store whose operations its database runs (:func:`on_db`)."""

    @property
    def db(self) -> Db: ...


S = TypeVar("S", bound=OnDb)


def on_db(
    operation: Callable[Concatenate[S, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, R]]:
    """An operation of a store over a :class:`Db` (the players', and the rooms' that keep
    their tables beside them), run by its database (:meth:`Db.run`: SQLite's on its own
    thread, start to end)."""

    async def run(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await self.db.run(operation(self, *args, **kwargs))

    # (Not functools.wraps: mypy reads what it returns as another type.)
    run.__name__, run.__doc__ = operation.__name__, operation.__doc__
    return run


class SqlPlayerStore:
    """:class:`~.store.PlayerStore` over a :class:`Db`."""

    def __init__(self, db: Db) -> None:
        self.db = db

    async def open(self) -> None:
        await self.db.open()

    async def close(self) -> None:
        await self.db.close()

    # ---------------------------------------------------------------- profiles

    @on_db
    async def create_profile(self, profile: Profile) -> None:
        r = profile.rating
        bucket = board_bucket(r)
        async with self.db.write() as conn:
            await conn.execute(
                "INSERT INTO player_profiles (id, name, avatar, language, created_at, last_seen,"
                " username, mu, sigma, ordinal, rated_matches, deleted, board_bucket)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)",
                profile.id,
                profile.name,
                profile.avatar,
                profile.language,
                profile.created_at,
                profile.last_seen,
                profile.username,
                r.mu,
                r.sigma,
                r.ordinal,
                r.matches,
                bucket,
            )
            if bucket is not None:
                await _count_board(conn, {bucket: 1})

    @on_db
    async def get_profile(self, profile_id: str) -> Profile | None:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                f"SELECT {_PROFILE} FROM player_profiles WHERE id = ?", profile_id
            )
        return _profile(rows[0]) if rows else None

    @on_db
    async def find_profiles(self, query: str, limit: int = 20) -> list[Profile]:
        """Live profiles whose id or username is ``query``, or whose display name holds it
        (any case), newest first: an operator's search."""
        pattern = (
            "%" + query.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        )
        async with self.db.read() as conn:
            rows = await conn.fetch(
                f"SELECT {_PROFILE} FROM player_profiles WHERE deleted = 0"
                " AND (id = ? OR username = ? OR LOWER(name) LIKE ? ESCAPE '\\')"
                " ORDER BY created_at DESC LIMIT ?",
                query,
                query.lower(),
                pattern,
                limit,
            )
        return [_profile(row) for row in rows]

    @on_db
    async def update_profile(
        self,
        profile_id: str,
        name: str | None = None,
        avatar: str | None = None,
        language: str | None = None,
    ) -> Profile | None:
        async with self.db.write() as conn:
            changed = await conn.execute(
                "UPDATE player_profiles SET name = coalesce(?, name),"
                " avatar = coalesce(?, avatar), language = coalesce(?, language)"
                " WHERE id = ? AND deleted = 0",
                name,
                avatar,
                language,
                profile_id,
            )
            if not changed:
                return None
            rows = await conn.fetch(
                f"SELECT {_PROFILE} FROM player_profiles WHERE id = ?", profile_id
            )
        return _profile(rows[0])

    # ---------------------------------------------------------------- sessions

    @on_db
    async def create_session(
        self, token_hash: str, profile_id: str, now: int, expires_at: int, how: str
    ) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                f"INSERT INTO player_sessions ({_SESSION}) VALUES (?, ?, ?, ?, ?, ?)",
                token_hash,
                profile_id,
                now,
                now,
                expires_at,
                how,
            )

    @on_db
    async def session(
        self, token_hash: str, now: int, expires_at: int
    ) -> tuple[Profile, SessionInfo] | None:
        columns = ", ".join(f"s.{c.strip()}" for c in _SESSION.split(","))
        profile = ", ".join(f"p.{c.strip()}" for c in _PROFILE.split(","))
        async with self.db.read() as conn:
            rows = await conn.fetch(
                f"SELECT {columns}, {profile} FROM player_sessions s"
                " JOIN player_profiles p ON p.id = s.profile_id"
                " WHERE s.token_hash = ? AND s.expires_at > ? AND p.deleted = 0",
                token_hash,
                now,
            )
        if not rows:
            return None
        row = rows[0]
        info, found = _session(row[:6]), _profile(row[6:])
        if now - info.last_used >= TOUCH_MS:
            async with self.db.write() as conn:
                await conn.execute(
                    "UPDATE player_sessions SET last_used = ?, expires_at = ? WHERE token_hash = ?",
                    now,
                    expires_at,
                    token_hash,
                )
                await conn.execute(
                    "UPDATE player_profiles SET last_seen = ? WHERE id = ?", now, found.id
                )
        return found, info

    @on_db
    async def sessions(self, profile_id: str) -> list[SessionInfo]:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                f"SELECT {_SESSION} FROM player_sessions WHERE profile_id = ?"
                " ORDER BY created_at, token_hash",
                profile_id,
            )
        return [_session(row) for row in rows]

    @on_db
    async def delete_session(self, token_hash: str) -> None:
        async with self.db.write() as conn:
            await conn.execute("DELETE FROM player_sessions WHERE token_hash = ?", token_hash)

    @on_db
    async def delete_session_by_id(self, profile_id: str, session_id: str) -> bool:
        if len(session_id) != 12 or any(c not in "0123456789abcdef" for c in session_id):
            return False
        async with self.db.write() as conn:
            return bool(
                await conn.execute(
                    "DELETE FROM player_sessions WHERE profile_id = ? AND token_hash >= ?"
                    " AND token_hash < ?",
                    profile_id,
                    session_id,
                    session_id + "g",  # (every hex digit sorts below "g")
                )
            )

    @on_db
    async def delete_sessions(self, profile_id: str, keep: str | None = None) -> int:
        async with self.db.write() as conn:
            return await conn.execute(
                "DELETE FROM player_sessions WHERE profile_id = ? AND token_hash <> ?",
                profile_id,
                keep or "",
            )

    # ---------------------------------------------------------------- sign-in

    @on_db
    async def claim(self, profile_id: str, username: str, password_hash: str) -> None:
        try:
            async with self.db.write() as conn:
                changed = await conn.execute(
                    "UPDATE player_profiles SET username = ?, password_hash = ?"
                    " WHERE id = ? AND username IS NULL AND deleted = 0",
                    username,
                    password_hash,
                    profile_id,
                )
        except Exception as error:
            if self.db.is_unique_violation(error):
                raise UsernameTaken(username) from None
            raise
        if not changed:
            raise UsernameTaken(username)

    @on_db
    async def credentials(self, username: str) -> Credentials | None:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT id, password_hash FROM player_profiles"
                " WHERE username = ? AND deleted = 0 AND password_hash IS NOT NULL",
                username,
            )
        return Credentials(rows[0][0], rows[0][1]) if rows else None

    @on_db
    async def set_password(self, profile_id: str, password_hash: str) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                "UPDATE player_profiles SET password_hash = ? WHERE id = ? AND deleted = 0",
                password_hash,
                profile_id,
            )

    @on_db
    async def create_device_code(self, code_hash: str, profile_id: str, expires_at: int) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                "INSERT INTO player_device_codes (code_hash, profile_id, expires_at, used)"
                " VALUES (?, ?, ?, 0)",
                code_hash,
                profile_id,
                expires_at,
            )

    @on_db
    async def redeem_device_code(self, code_hash: str, now: int) -> str | None:
        async with self.db.write() as conn:
            # One statement: of two redeeming together, one changes the row, one finds it used.
            rows = await conn.fetch(
                "UPDATE player_device_codes SET used = 1"
                " WHERE code_hash = ? AND used = 0 AND expires_at > ? RETURNING profile_id",
                code_hash,
                now,
            )
            if not rows:
                return None
            live = await conn.fetch(
                "SELECT 1 FROM player_profiles WHERE id = ? AND deleted = 0", rows[0][0]
            )
        return str(rows[0][0]) if live else None

    # ---------------------------------------------------------------- passkeys

    @on_db
    async def set_challenge(
        self, token_hash: str, purpose: str, challenge: str, expires_at: int
    ) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                "INSERT INTO player_challenges (token_hash, purpose, challenge, expires_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (token_hash, purpose) DO UPDATE SET"
                " challenge = excluded.challenge, expires_at = excluded.expires_at",
                token_hash,
                purpose,
                challenge,
                expires_at,
            )

    @on_db
    async def take_challenge(self, token_hash: str, purpose: str, now: int) -> str | None:
        async with self.db.write() as conn:
            rows = await conn.fetch(
                "DELETE FROM player_challenges WHERE token_hash = ? AND purpose = ?"
                " RETURNING challenge, expires_at",
                token_hash,
                purpose,
            )
        return str(rows[0][0]) if rows and int(rows[0][1]) > now else None

    @on_db
    async def add_passkey(self, passkey: Passkey) -> bool:
        async with self.db.write() as conn:
            added = await conn.fetch(
                "INSERT INTO player_passkeys (credential_id, profile_id, public_key, sign_count,"
                " created_at, last_used) SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM"
                " player_profiles WHERE id = ? AND deleted = 0)"
                " ON CONFLICT (credential_id) DO NOTHING RETURNING 1",
                passkey.credential_id,
                passkey.profile_id,
                passkey.public_key,
                passkey.sign_count,
                passkey.created_at,
                passkey.last_used,
                passkey.profile_id,
            )
        return bool(added)

    @on_db
    async def passkey(self, credential_id: str) -> Passkey | None:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                f"SELECT {_PASSKEY} FROM player_passkeys k"
                " JOIN player_profiles p ON p.id = k.profile_id"
                " WHERE k.credential_id = ? AND p.deleted = 0",
                credential_id,
            )
        return _passkey(rows[0]) if rows else None

    @on_db
    async def passkeys(self, profile_id: str) -> list[Passkey]:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                f"SELECT {_PASSKEY} FROM player_passkeys k WHERE k.profile_id = ?"
                " ORDER BY k.created_at, k.credential_id",
                profile_id,
            )
        return [_passkey(row) for row in rows]

    @on_db
    async def use_passkey(self, credential_id: str, sign_count: int, now: int) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                "UPDATE player_passkeys SET sign_count = ?, last_used = ? WHERE credential_id = ?",
                sign_count,
                now,
                credential_id,
            )

    # ---------------------------------------------------------------- deletion

    @on_db
    async def delete_profile(self, profile_id: str) -> bool:
        async with self.db.write() as conn:
            return await self._delete(conn, profile_id, self.db.for_update)

    @staticmethod
    async def _delete(conn: Conn, profile_id: str, for_update: str) -> bool:
        found = await conn.fetch(
            f"SELECT board_bucket FROM player_profiles WHERE id = ? AND deleted = 0{for_update}",
            profile_id,
        )
        if not found:
            return False
        await conn.execute(
            "UPDATE player_profiles SET deleted = 1, name = '', avatar = '', language = '',"
            " username = NULL, password_hash = NULL, board_bucket = NULL WHERE id = ?",
            profile_id,
        )
        if found[0][0] is not None:
            await _count_board(conn, {int(found[0][0]): -1})
        await conn.execute("DELETE FROM player_sessions WHERE profile_id = ?", profile_id)
        await conn.execute("DELETE FROM player_device_codes WHERE profile_id = ?", profile_id)
        await conn.execute("DELETE FROM player_passkeys WHERE profile_id = ?", profile_id)
        # Its devices subscribed to Web Push and its choices of notices (push/store.py).
        await conn.execute("DELETE FROM push_subscriptions WHERE profile_id = ?", profile_id)
        await conn.execute("DELETE FROM push_settings WHERE profile_id = ?", profile_id)
        # The matches stay (they are the other players' too), without the name it had.
        await conn.execute(
            "UPDATE player_match_seats SET name = NULL WHERE profile_id = ?", profile_id
        )
        return True

    @on_db
    async def forget_guests(self, seen_before: int, now: int, limit: int) -> int:
        async with self.db.write() as conn:
            rows = await conn.fetch(
                "SELECT id FROM player_profiles WHERE username IS NULL AND deleted = 0"
                " AND last_seen < ? ORDER BY last_seen LIMIT ?",
                seen_before,
                limit,
            )
            for row in rows:
                await self._delete(conn, row[0], self.db.for_update)
            await conn.execute("DELETE FROM player_sessions WHERE expires_at <= ?", now)
            await conn.execute("DELETE FROM player_device_codes WHERE expires_at <= ?", now)
            await conn.execute("DELETE FROM player_challenges WHERE expires_at <= ?", now)
        return len(rows)

    # ---------------------------------------------------------------- matches

    @on_db
    async def record_match(self, record: MatchRecord) -> Recorded:
        async with self.db.write() as conn:
            inserted = await conn.fetch(
                "INSERT INTO player_matches (code, number, finished_at, rated, rounds)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (code, number) DO NOTHING RETURNING 1",
                record.code,
                record.number,
                record.finished_at,
                int(record.rated),
                record.rounds,
            )
            if not inserted:
                return Recorded(False, await self._changes(conn, record.code, record.number))
            current = await self._current_ratings(conn, record)
            # A seat whose profile is gone (deleted during the match) plays as a newcomer
            # and is kept as a former player's.
            gone = {s.seat for s in record.seats if s.profile_id and s.profile_id not in current}
            known = tuple(
                replace(s, profile_id=None) if s.seat in gone else s for s in record.seats
            )
            after = ratings.rate(replace(record, seats=known), current)
            writes = _rating_writes(current, after)
            if seats := _seat_rows(record, known, gone, current, after):
                writes.append(
                    (
                        "INSERT INTO player_match_seats (code, number, seat, team, name, rank,"
                        " place, profile_id, bot_level, finished_at, mu_before, sigma_before,"
                        f" mu_after, sigma_after, {_SEAT_TALLIES}) VALUES "
                        + ", ".join(_values(len(seats[0])) for _ in seats),
                        tuple(value for row in seats for value in row),
                    )
                )
            if any(s.profile_id for s in known) and record.rounds:
                writes.append(
                    (
                        "INSERT INTO player_accuracy_due (code, number, rounds, due_since)"
                        " VALUES (?, ?, ?, ?)",
                        (record.code, record.number, record.rounds, record.finished_at),
                    )
                )
            await conn.write_all(writes)
        return Recorded(
            True,
            tuple(
                RatingChange(pid, current.get(pid, ratings.NEWCOMER), rating)
                for pid, rating in after.items()
            ),
        )

    async def _current_ratings(self, conn: Conn, record: MatchRecord) -> dict[str, Rating]:
        """The ratings of the match's profiles still there, their rows locked (PostgreSQL)
        in one order, so that two match ends sharing a player cannot deadlock."""
        ids = sorted({s.profile_id for s in record.seats if s.profile_id is not None})
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        rows = await conn.fetch(
            "SELECT id, mu, sigma, rated_matches FROM player_profiles"
            f" WHERE id IN ({marks}) AND deleted = 0 ORDER BY id{self.db.for_update}",
            *ids,
        )
        return {r[0]: Rating(float(r[1]), float(r[2]), int(r[3])) for r in rows}

    @staticmethod
    async def _changes(conn: Conn, code: str, number: int) -> tuple[RatingChange, ...]:
        rows = await conn.fetch(
            "SELECT s.profile_id, s.mu_before, s.sigma_before, s.mu_after, s.sigma_after,"
            " p.rated_matches FROM player_match_seats s"
            " JOIN player_profiles p ON p.id = s.profile_id"
            " WHERE s.code = ? AND s.number = ? AND s.mu_after IS NOT NULL ORDER BY s.seat",
            code,
            number,
        )
        return tuple(
            RatingChange(r[0], Rating(float(r[1]), float(r[2])), Rating(float(r[3]), float(r[4])))
            for r in rows
        )

    @on_db
    async def history(
        self, profile_id: str, limit: int, after: str | None = None
    ) -> list[HistoryEntry]:
        start = parse_cursor(after) if after else None
        keyset = ""
        args: list[Any] = [profile_id]
        if start is not None:
            keyset = " AND (me.finished_at, me.code, me.number) < (?, ?, ?)"
            args += list(start)
        args.append(limit)
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "WITH page AS (SELECT me.code, me.number, me.finished_at, me.seat, me.rank,"
                " me.place, me.mu_before, me.sigma_before, me.mu_after, me.sigma_after,"
                " me.accuracy"
                " FROM player_match_seats me WHERE me.profile_id = ?" + keyset +
                " ORDER BY me.finished_at DESC, me.code DESC, me.number DESC LIMIT ?)"
                " SELECT page.code, page.number, page.finished_at, page.seat, page.rank,"
                " page.place, page.mu_before, page.sigma_before, page.mu_after,"
                " page.sigma_after, m.rated, m.rounds, s.seat, s.team, s.name, s.rank, s.place,"
                " s.profile_id, s.bot_level, p.deleted, page.accuracy, s.levels_climbed"
                " FROM page JOIN player_matches m ON m.code = page.code AND m.number = page.number"
                " JOIN player_match_seats s ON s.code = page.code AND s.number = page.number"
                " LEFT JOIN player_profiles p ON p.id = s.profile_id"
                " ORDER BY page.finished_at DESC, page.code DESC, page.number DESC, s.seat",
                *args,
            )  # fmt: skip
        entries: list[HistoryEntry] = []
        seats: list[SeatSummary] = []
        for i, row in enumerate(rows):
            deleted = bool(row[19])
            seats.append(
                SeatSummary(
                    seat=int(row[12]),
                    team=int(row[13]),
                    name=FORMER_PLAYER if deleted or row[14] is None else row[14],
                    rank=int(row[15]),
                    place=row[16],
                    profile_id=None if deleted else row[17],
                    bot_level=row[18],
                    former=deleted,
                    levels_climbed=int(row[21] or 0),
                )
            )
            last = i + 1 == len(rows) or (rows[i + 1][0], rows[i + 1][1]) != (row[0], row[1])
            if last:
                rated = row[8] is not None
                entries.append(
                    HistoryEntry(
                        code=row[0],
                        number=int(row[1]),
                        finished_at=int(row[2]),
                        rated=bool(row[10]),
                        rounds=int(row[11] or 0),
                        seat=int(row[3]),
                        won=int(row[4]) == 1,
                        place=row[5],
                        before=Rating(float(row[6]), float(row[7])) if rated else None,
                        after=Rating(float(row[8]), float(row[9])) if rated else None,
                        seats=tuple(seats),
                        accuracy=None if row[20] is None else float(row[20]),
                    )
                )
                seats = []
        return entries

    @on_db
    async def rating_history(self, profile_id: str, limit: int) -> list[tuple[int, Rating]]:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT finished_at, mu_after, sigma_after FROM player_match_seats"
                " WHERE profile_id = ? AND mu_after IS NOT NULL"
                " ORDER BY finished_at DESC, code DESC, number DESC LIMIT ?",
                profile_id,
                limit,
            )
        return [(int(r[0]), Rating(float(r[1]), float(r[2]))) for r in reversed(rows)]

    @on_db
    async def stats(self, profile_id: str, tallies: int = 20) -> Stats:
        sums = ", ".join(f"coalesce(sum(s.{name}), 0)" for name in SEAT_TALLIES)
        async with self.db.read() as conn:
            totals = await conn.fetch(
                "SELECT count(*), coalesce(sum(CASE WHEN s.rank = 1 THEN 1 ELSE 0 END), 0),"
                " coalesce(sum(m.rated), 0), coalesce(sum(m.rounds), 0), avg(s.place),"
                f" avg(s.accuracy), count(s.accuracy), {sums}"
                " FROM player_match_seats s"
                " JOIN player_matches m ON m.code = s.code AND m.number = s.number"
                " WHERE s.profile_id = ?",
                profile_id,
            )
            lists = []
            for same in (True, False):
                lists.append(
                    await conn.fetch(
                        "SELECT o.profile_id, max(p.name), max(p.deleted), count(*),"
                        " sum(CASE WHEN me.rank = 1 THEN 1 ELSE 0 END)"
                        " FROM player_match_seats me JOIN player_match_seats o"
                        " ON o.code = me.code AND o.number = me.number AND o.seat <> me.seat"
                        " JOIN player_profiles p ON p.id = o.profile_id"
                        f" WHERE me.profile_id = ? AND o.team {'=' if same else '<>'} me.team"
                        " AND o.profile_id <> me.profile_id"
                        " GROUP BY o.profile_id ORDER BY count(*) DESC, o.profile_id LIMIT ?",
                        profile_id,
                        tallies,
                    )
                )
        t = totals[0]

        def tally(row: Row) -> Tally:
            deleted = bool(row[2])
            return Tally(
                "" if deleted else row[0],
                FORMER_PLAYER if deleted else row[1],
                int(row[3]),
                int(row[4]),
                former=deleted,
            )

        return Stats(
            matches=int(t[0]),
            wins=int(t[1]),
            rated_matches=int(t[2]),
            rounds=int(t[3]),
            average_place=None if t[4] is None else float(t[4]),
            partners=tuple(tally(r) for r in lists[0]),
            opponents=tuple(tally(r) for r in lists[1]),
            totals={name: int(value) for name, value in zip(SEAT_TALLIES, t[7:], strict=True)},
            accuracy=None if t[5] is None else float(t[5]),
            analysed_matches=int(t[6]),
        )

    # ---------------------------------------------------------------- accuracy

    @on_db
    async def accuracy_due(self, limit: int) -> list[tuple[str, int, int]]:
        """Up to ``limit`` recorded matches whose accuracy is still to be worked out,
        oldest first: (code, number, rounds)."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT code, number, rounds FROM player_accuracy_due"
                " ORDER BY due_since, code, number LIMIT ?",
                limit,
            )
        return [(row[0], int(row[1]), int(row[2])) for row in rows]

    @on_db
    async def set_accuracy(self, code: str, number: int, by_seat: dict[int, float | None]) -> None:
        """Each seat's accuracy in match ``number`` of ``code`` (None: not measured);
        the match is no longer due."""
        async with self.db.write() as conn:
            if by_seat:
                await conn.executemany(
                    "UPDATE player_match_seats SET accuracy = ?"
                    " WHERE code = ? AND number = ? AND seat = ?",
                    [(value, code, number, seat) for seat, value in by_seat.items()],
                )
            await conn.execute(
                "DELETE FROM player_accuracy_due WHERE code = ? AND number = ?", code, number
            )

    # ---------------------------------------------------------------- leaderboards

    _BOARD = (
        "SELECT id, name, avatar, mu, sigma, rated_matches FROM player_profiles"
        " WHERE board_bucket IS NOT NULL"
    )

    @on_db
    async def top(self, limit: int) -> list[RatingRow]:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                self._BOARD + " ORDER BY board_bucket DESC, ordinal DESC, id LIMIT ?", limit
            )
        return [_row(i + 1, row) for i, row in enumerate(rows)]

    @on_db
    async def rank(self, profile_id: str) -> int | None:
        # Those in higher buckets are counted from the buckets' counts (a few thousand
        # rows), those in the player's own bucket one by one (a few hundred at most).
        async with self.db.read() as conn:
            mine = await conn.fetch(
                "SELECT ordinal, board_bucket FROM player_profiles"
                " WHERE id = ? AND board_bucket IS NOT NULL",
                profile_id,
            )
            if not mine:
                return None
            ordinal, bucket = mine[0]
            higher = await conn.fetch(
                "SELECT coalesce(sum(players), 0) FROM player_board WHERE bucket > ?", bucket
            )
            # (Two ranges, not one OR: each is read from the board's index alone, where
            # PostgreSQL turned the OR into a bitmap scan of the profiles' rows.)
            level = await conn.fetch(
                "SELECT (SELECT count(*) FROM player_profiles"
                " WHERE board_bucket = ? AND ordinal > ?)"
                " + (SELECT count(*) FROM player_profiles"
                " WHERE board_bucket = ? AND ordinal = ? AND id < ?)",
                bucket,
                ordinal,
                bucket,
                ordinal,
                profile_id,
            )
        return int(higher[0][0]) + int(level[0][0]) + 1

    async def recompute_ratings(self, batch: int = 2000) -> int:
        current: dict[str, Rating] = {}
        start: tuple[int, str, int] | None = None
        rated = 0
        while True:
            page = await self._rate_page(current, start, batch)
            if page is None:
                break
            start, count = page
            rated += count
        await self._write_ratings(current)
        await self.rebuild_board()
        return rated

    @on_db
    async def _rate_page(
        self, current: dict[str, Rating], start: tuple[int, str, int] | None, batch: int
    ) -> tuple[tuple[int, str, int], int] | None:
        """Rate the next ``batch`` rated matches after ``start`` from ``current`` (which
        this updates), writing each seat's rating before and after; None when none are
        left. One transaction a page."""
        keyset = "" if start is None else " AND (finished_at, code, number) > (?, ?, ?)"
        async with self.db.write() as conn:
            rows = await conn.fetch(
                "WITH page AS (SELECT code, number, finished_at FROM player_matches"
                " WHERE rated = 1" + keyset +
                " ORDER BY finished_at, code, number LIMIT ?)"
                " SELECT page.code, page.number, page.finished_at, s.seat, s.team, s.rank,"
                " s.profile_id, s.bot_level FROM page JOIN player_match_seats s"
                " ON s.code = page.code AND s.number = page.number"
                " ORDER BY page.finished_at, page.code, page.number, s.seat",
                *([] if start is None else list(start)), batch,
            )  # fmt: skip
            if not rows:
                return None
            matches: dict[tuple[str, int], list[Row]] = {}
            for row in rows:
                matches.setdefault((row[0], int(row[1])), []).append(row)
            updates: list[tuple[Any, ...]] = []
            for (code, number), seats in matches.items():
                record = MatchRecord(
                    code, number, int(seats[0][2]), True,
                    tuple(MatchSeat(int(r[3]), int(r[4]), "", int(r[5]), None, r[6], r[7])
                          for r in seats),
                )  # fmt: skip
                after = ratings.rate(record, current)
                for r in seats:
                    pid = r[6]
                    new = after.get(pid) if pid is not None else None
                    old = current.get(pid, ratings.NEWCOMER) if new is not None else None
                    updates.append(
                        (
                            None if old is None else old.mu,
                            None if old is None else old.sigma,
                            None if new is None else new.mu,
                            None if new is None else new.sigma,
                            code, number, int(r[3]),
                        )
                    )  # fmt: skip
                current.update(after)
            await conn.executemany(
                "UPDATE player_match_seats SET mu_before = ?, sigma_before = ?, mu_after = ?,"
                " sigma_after = ? WHERE code = ? AND number = ? AND seat = ?",
                updates,
            )
        last = rows[-1]
        return (int(last[2]), last[0], int(last[1])), len(matches)

    @on_db
    async def _write_ratings(self, current: dict[str, Rating]) -> None:
        """Every profile's rating as ``current`` has it (a newcomer's if absent)."""
        new = ratings.NEWCOMER
        async with self.db.write(bulk=True) as conn:
            await conn.execute(
                "UPDATE player_profiles SET mu = ?, sigma = ?, ordinal = ?, rated_matches = 0",
                new.mu,
                new.sigma,
                new.ordinal,
            )
            await conn.executemany(
                "UPDATE player_profiles SET mu = ?, sigma = ?, ordinal = ?, rated_matches = ?"
                " WHERE id = ?",
                [(r.mu, r.sigma, r.ordinal, r.matches, pid) for pid, r in current.items()],
            )

    @on_db
    async def rebuild_board(self) -> int:
        """Put every profile in its leaderboard bucket and count the buckets again (after
        ratings were written other than by :meth:`record_match`: a bulk load, a
        recomputation); how many profiles changed bucket."""
        bucket = self.db.truncate.format(f"ordinal * {BUCKETS_PER_POINT}")
        async with self.db.write(bulk=True) as conn:
            # Only the rows whose bucket changes: rewriting all of them left PostgreSQL a
            # dead copy of every profile (8,000,000 dead rows after eight rebuilds of a
            # million profiles, and a rank p99 of 25-32 ms until they were vacuumed).
            placed = (
                f"CASE WHEN deleted = 0 AND rated_matches >= {PROVISIONAL_MATCHES}"
                f" THEN {bucket} ELSE NULL END"
            )
            moved = await conn.execute(
                f"UPDATE player_profiles SET board_bucket = {placed}"
                f" WHERE board_bucket IS DISTINCT FROM {placed}"
            )
            await conn.execute("DELETE FROM player_board")
            await conn.execute(
                "INSERT INTO player_board (bucket, players) SELECT board_bucket, count(*)"
                " FROM player_profiles WHERE board_bucket IS NOT NULL GROUP BY board_bucket"
            )
            # The planner's statistics of a column that every row just changed are stale
            # until the next automatic analysis: a rank then took 60 ms on PostgreSQL at
            # 100,000 profiles (a scan of the top index for its own bucket).
            await conn.execute("ANALYZE player_profiles")
            await conn.execute("ANALYZE player_board")
        return moved

    @on_db
    async def played_with(self, profile_id: str, limit: int) -> list[RatingRow]:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "WITH mates AS (SELECT DISTINCT o.profile_id AS id FROM player_match_seats me"
                " JOIN player_match_seats o ON o.code = me.code AND o.number = me.number"
                " WHERE me.profile_id = ? AND o.profile_id IS NOT NULL)"
                " SELECT p.id, p.name, p.avatar, p.mu, p.sigma, p.rated_matches"
                " FROM player_profiles p"
                " WHERE (p.id IN (SELECT id FROM mates) OR p.id = ?) AND p.deleted = 0"
                " ORDER BY p.ordinal DESC, p.id LIMIT ?",
                profile_id,
                profile_id,
                limit,
            )
        return [_row(i + 1, row) for i, row in enumerate(rows)]


#: The global leaderboard's buckets: a profile off the provisional rule is in bucket
#: ``int(ordinal * BUCKETS_PER_POINT)`` (truncated: non-decreasing in the ordinal, which is
#: all a rank needs), and ``player_board`` counts each bucket's profiles.
BUCKETS_PER_POINT = 100


def _seat_rows(
    record: MatchRecord,
    known: tuple[MatchSeat, ...],
    gone: set[int],
    current: dict[str, Rating],
    after: dict[str, Rating],
) -> list[tuple[Any, ...]]:
    """The match's seat rows: each seat's rating before and after (a rated profile's), its
    tallies, and no name for a profile deleted during the match."""
    rows = []
    for s in known:
        before = current.get(s.profile_id or "") if s.profile_id in after else None
        new = after.get(s.profile_id or "")
        rows.append(
            (
                record.code, record.number, s.seat, s.team,
                None if s.seat in gone else s.name, s.rank, s.place,
                s.profile_id, s.bot_level, record.finished_at,
                None if before is None else before.mu,
                None if before is None else before.sigma,
                None if new is None else new.mu,
                None if new is None else new.sigma,
                s.bombs, s.four_four_a, s.hooks_made, s.hooks_suffered,
                s.tribute_paid, s.tribute_received, s.levels_climbed,
            )
        )  # fmt: skip
    return rows


def board_bucket(rating: Rating) -> int | None:
    """The leaderboard bucket of a rating; None while it is provisional."""
    if rating.matches < PROVISIONAL_MATCHES:
        return None
    return int(rating.ordinal * BUCKETS_PER_POINT)


def _rating_writes(current: dict[str, Rating], after: dict[str, Rating]) -> list[Statement]:
    """The new ratings, and the leaderboard's bucket counts they move."""
    writes: list[Statement] = [
        (
            "UPDATE player_profiles SET mu = ?, sigma = ?, ordinal = ?,"
            " rated_matches = ?, board_bucket = ? WHERE id = ?",
            (r.mu, r.sigma, r.ordinal, r.matches, board_bucket(r), pid),
        )
        for pid, r in after.items()
    ]
    moved: dict[int, int] = {}
    for pid, r in after.items():
        for bucket, step in ((board_bucket(current[pid]), -1), (board_bucket(r), 1)):
            if bucket is not None:
                moved[bucket] = moved.get(bucket, 0) + step
    counted = _board_count(moved)
    return writes if counted is None else [*writes, counted]


async def _count_board(conn: Conn, moved: dict[int, int]) -> None:
    counted = _board_count(moved)
    if counted is not None:
        await conn.write_all([counted])


def _board_count(moved: dict[int, int]) -> Statement | None:
    """Adds ``moved`` (bucket -> profiles in or out) to the buckets' counts, in one
    statement that takes the buckets in their order (two transactions lock the rows they
    share in one order: no deadlock)."""
    rows = [(bucket, step) for bucket, step in sorted(moved.items()) if step]
    if not rows:
        return None
    return (
        "INSERT INTO player_board (bucket, players) VALUES "
        + ", ".join(_values(2) for _ in rows)
        + " ON CONFLICT (bucket) DO UPDATE SET players = player_board.players + excluded.players",
        tuple(value for row in rows for value in row),
    )


def _values(count: int) -> str:
    """One row of ``count`` placeholders: ``(?, ?, ?)``."""
    return "(" + ", ".join("?" * count) + ")"


def _row(rank: int, row: Row) -> RatingRow:
    return RatingRow(
        rank, row[0], row[1], row[2], Rating(float(row[3]), float(row[4]), int(row[5]))
    )
