"""The clubs' rows, over the players' database (:class:`~..players.sqlstore.Db`: the same
SQL on SQLite and PostgreSQL, ``?`` placeholders, times in ms since the epoch).

What must hold whatever runs at once is decided inside one transaction: the limits on
clubs and members, a barred profile's join, the owner's hand-over when they go.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..players.sqlstore import Conn, Db, Row, on_db
from ..players.values import FORMER_PLAYER
from .errors import ClubCode, ClubError
from .values import MAX_CLUBS, MAX_MEMBERS, ChatLine, Club, Member, Role

_CLUB = "id, name, created_at, invite, table_settings"
_MEMBER = "m.profile_id, p.name, p.avatar, m.role, m.joined_at, p.mu, p.sigma, p.rated_matches"


def _club(row: Row) -> Club:
    return Club(row[0], row[1], int(row[2]), row[3], orjson.loads(row[4]))


def _member(row: Row) -> Member:
    return Member(row[0], row[1], row[2], row[3], int(row[4]), float(row[5]), float(row[6]),
                  int(row[7]))  # fmt: skip


class ClubStore:
    def __init__(self, db: Db) -> None:
        self.db = db

    # ---------------------------------------------------------------- clubs

    @on_db
    async def create(self, club: Club, owner_id: str, limit: int = MAX_CLUBS) -> None:
        async with self.db.write() as conn:
            await _check_room(conn, owner_id, limit, self.db.for_update)
            await conn.execute(
                f"INSERT INTO clubs ({_CLUB}) VALUES (?, ?, ?, ?, ?)",
                club.id, club.name, club.created_at, club.invite,
                orjson.dumps(club.table_settings).decode(),
            )  # fmt: skip
            await conn.execute(
                "INSERT INTO club_members (club_id, profile_id, role, joined_at)"
                " VALUES (?, ?, 'owner', ?)",
                club.id,
                owner_id,
                club.created_at,
            )

    @on_db
    async def get(self, club_id: str) -> Club | None:
        async with self.db.read() as conn:
            rows = await conn.fetch(f"SELECT {_CLUB} FROM clubs WHERE id = ?", club_id)
        return _club(rows[0]) if rows else None

    @on_db
    async def change(
        self, club_id: str, name: str | None, table_settings: dict[str, Any] | None
    ) -> None:
        settings = None if table_settings is None else orjson.dumps(table_settings).decode()
        async with self.db.write() as conn:
            await conn.execute(
                "UPDATE clubs SET name = coalesce(?, name),"
                " table_settings = coalesce(?, table_settings) WHERE id = ?",
                name,
                settings,
                club_id,
            )

    @on_db
    async def club_of_invite(self, invite: str) -> str | None:
        async with self.db.read() as conn:
            rows = await conn.fetch("SELECT id FROM clubs WHERE invite = ?", invite)
        return str(rows[0][0]) if rows else None

    @on_db
    async def rotate_invite(self, club_id: str, invite: str) -> None:
        """A new invite link; the old one stops working, and those kicked under it may
        join by the new one."""
        async with self.db.write() as conn:
            await conn.execute("UPDATE clubs SET invite = ? WHERE id = ?", invite, club_id)
            await conn.execute("DELETE FROM club_bars WHERE club_id = ? AND kind = 'kick'", club_id)

    @on_db
    async def clubs_of(self, profile_id: str) -> list[tuple[Club, Role, int]]:
        """The clubs ``profile_id`` is in, with their role and each club's member count."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                f"SELECT {', '.join('c.' + c.strip() for c in _CLUB.split(','))}, m.role,"
                " (SELECT count(*) FROM club_members n WHERE n.club_id = c.id)"
                " FROM club_members m JOIN clubs c ON c.id = m.club_id"
                " WHERE m.profile_id = ? ORDER BY m.joined_at, c.id",
                profile_id,
            )
        return [(_club(row), row[5], int(row[6])) for row in rows]

    # ---------------------------------------------------------------- members

    @on_db
    async def role(self, club_id: str, profile_id: str) -> Role | None:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT m.role FROM club_members m JOIN player_profiles p ON p.id = m.profile_id"
                " WHERE m.club_id = ? AND m.profile_id = ? AND p.deleted = 0",
                club_id,
                profile_id,
            )
        return rows[0][0] if rows else None

    @on_db
    async def members(self, club_id: str) -> list[Member]:
        """The live members, the owner first, then admins, then by when they joined."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                f"SELECT {_MEMBER} FROM club_members m JOIN player_profiles p"
                " ON p.id = m.profile_id WHERE m.club_id = ? AND p.deleted = 0"
                " ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END,"
                " m.joined_at, m.profile_id",
                club_id,
            )
        return [_member(row) for row in rows]

    @on_db
    async def join(self, invite: str, profile_id: str, now: int) -> str:
        """``profile_id`` joins the club whose invite is ``invite``; returns its id."""
        async with self.db.write() as conn:
            clubs = await conn.fetch(
                f"SELECT id FROM clubs WHERE invite = ?{self.db.for_update}", invite
            )
            if not clubs:
                raise ClubError(ClubCode.BAD_INVITE, "that invite link is no club's (any more)")
            club_id = clubs[0][0]
            barred = await conn.fetch(
                "SELECT kind FROM club_bars WHERE club_id = ? AND profile_id = ?",
                club_id,
                profile_id,
            )
            if barred:
                why = "banned from" if barred[0][0] == "ban" else "removed from"
                raise ClubError(ClubCode.BARRED, f"you were {why} this club")
            if await conn.fetch(
                "SELECT 1 FROM club_members WHERE club_id = ? AND profile_id = ?",
                club_id,
                profile_id,
            ):
                raise ClubError(ClubCode.ALREADY_MEMBER, "you are in this club already")
            await _check_room(conn, profile_id, MAX_CLUBS, self.db.for_update)
            count = await conn.fetch("SELECT count(*) FROM club_members WHERE club_id = ?", club_id)
            if int(count[0][0]) >= MAX_MEMBERS:
                raise ClubError(ClubCode.CLUB_FULL, f"a club has at most {MAX_MEMBERS} members")
            await conn.execute(
                "INSERT INTO club_members (club_id, profile_id, role, joined_at)"
                " VALUES (?, ?, 'member', ?)",
                club_id,
                profile_id,
                now,
            )
        return str(club_id)

    @on_db
    async def set_role(self, club_id: str, profile_id: str, old: Role, new: Role) -> bool:
        """``profile_id`` from ``old`` to ``new`` (nothing if their role is no longer
        ``old``: another admin was quicker)."""
        async with self.db.write() as conn:
            return bool(
                await conn.execute(
                    "UPDATE club_members SET role = ? WHERE club_id = ? AND profile_id = ?"
                    " AND role = ?",
                    new,
                    club_id,
                    profile_id,
                    old,
                )
            )

    @on_db
    async def remove(
        self, club_id: str, profile_id: str, bar: str | None = None, now: int = 0
    ) -> bool:
        """``profile_id`` leaves the club (``bar``: "kick" or "ban", remembered); an owner
        who goes hands it to the longest-standing admin, else the longest member; a club
        nobody is left in is deleted. Returns whether they were a member."""
        async with self.db.write() as conn:
            was = await _remove(conn, club_id, profile_id, self.db.for_update)
            if bar is not None:
                await _bar(conn, club_id, profile_id, bar, now)
        return was

    @on_db
    async def ban(self, club_id: str, profile_id: str, now: int) -> None:
        """Ban ``profile_id`` (a member or not: a known profile), and remove them."""
        async with self.db.write() as conn:
            await _remove(conn, club_id, profile_id, self.db.for_update)
            await _bar(conn, club_id, profile_id, "ban", now)

    @on_db
    async def unban(self, club_id: str, profile_id: str) -> bool:
        async with self.db.write() as conn:
            return bool(
                await conn.execute(
                    "DELETE FROM club_bars WHERE club_id = ? AND profile_id = ? AND kind = 'ban'",
                    club_id,
                    profile_id,
                )
            )

    @on_db
    async def banned(self, club_id: str) -> list[tuple[str, str, int]]:
        """Those banned from the club: (profile id, name, when)."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT b.profile_id, p.name, b.at FROM club_bars b JOIN player_profiles p"
                " ON p.id = b.profile_id WHERE b.club_id = ? AND b.kind = 'ban'"
                " AND p.deleted = 0 ORDER BY b.at, b.profile_id",
                club_id,
            )
        return [(row[0], row[1], int(row[2])) for row in rows]

    # ---------------------------------------------------------------- tables

    @on_db
    async def add_table(self, club_id: str, code: str, invite: str, now: int) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                "INSERT INTO club_tables (code, club_id, invite, created_at) VALUES (?, ?, ?, ?)",
                code,
                club_id,
                invite,
                now,
            )

    @on_db
    async def current_table(self, club_id: str, since: int) -> tuple[str, str] | None:
        """The club's newest table made since ``since``: (code, invite)."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT code, invite FROM club_tables WHERE club_id = ? AND created_at >= ?"
                " ORDER BY created_at DESC, code LIMIT 1",
                club_id,
                since,
            )
        return (rows[0][0], rows[0][1]) if rows else None

    @on_db
    async def seat_hash(self, code: str, profile_id: str) -> str | None:
        """The hash of the seat token the club's link last gave ``profile_id`` at ``code``."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT token_hash FROM club_seats WHERE code = ? AND profile_id = ?",
                code,
                profile_id,
            )
        return rows[0][0] if rows else None

    @on_db
    async def set_seat_hash(self, code: str, profile_id: str, token_hash: str) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                "INSERT INTO club_seats (code, profile_id, token_hash) VALUES (?, ?, ?)"
                " ON CONFLICT (code, profile_id) DO UPDATE SET token_hash = excluded.token_hash",
                code,
                profile_id,
                token_hash,
            )

    # ---------------------------------------------------------------- results

    @on_db
    async def results_among(self, club_id: str) -> dict[str, tuple[int, int]]:
        """Each member's (matches, wins) in matches where another member played too."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "WITH mine AS (SELECT s.code, s.number, s.profile_id, s.rank"
                " FROM club_members m JOIN player_match_seats s ON s.profile_id = m.profile_id"
                " WHERE m.club_id = ?),"
                " together AS (SELECT code, number FROM mine GROUP BY code, number"
                " HAVING count(DISTINCT profile_id) >= 2)"
                " SELECT mine.profile_id, count(*),"
                " sum(CASE WHEN mine.rank = 1 THEN 1 ELSE 0 END) FROM mine JOIN together"
                " ON together.code = mine.code AND together.number = mine.number"
                " GROUP BY mine.profile_id",
                club_id,
            )
        return {row[0]: (int(row[1]), int(row[2] or 0)) for row in rows}

    @on_db
    async def history(self, club_id: str, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` matches finished at the club's tables, newest first, each
        with its seats (a deleted profile's as a former player)."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "WITH page AS (SELECT m.code, m.number, m.finished_at, m.rated, m.rounds"
                " FROM player_matches m JOIN club_tables t ON t.code = m.code"
                " WHERE t.club_id = ? AND m.finished_at >= t.created_at"
                " ORDER BY m.finished_at DESC, m.code, m.number LIMIT ?)"
                " SELECT page.code, page.number, page.finished_at, page.rated, page.rounds,"
                " s.seat, s.team, s.rank, s.name, s.profile_id, s.bot_level, p.deleted"
                " FROM page JOIN player_match_seats s"
                " ON s.code = page.code AND s.number = page.number"
                " LEFT JOIN player_profiles p ON p.id = s.profile_id"
                " ORDER BY page.finished_at DESC, page.code, page.number, s.seat",
                club_id,
                limit,
            )
        entries: list[dict[str, Any]] = []
        for row in rows:
            if not entries or (entries[-1]["code"], entries[-1]["number"]) != (row[0], row[1]):
                entries.append(
                    {
                        "code": row[0],
                        "number": int(row[1]),
                        "finished_at": int(row[2]),
                        "rated": bool(row[3]),
                        "rounds": int(row[4] or 0),
                        "seats": [],
                    }
                )
            entries[-1]["seats"].append(_seat(row[5:]))
        return entries

    # ---------------------------------------------------------------- chat wall

    @on_db
    async def say(self, club_id: str, line: ChatLine) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                "INSERT INTO club_chat (id, club_id, profile_id, text, at) VALUES (?, ?, ?, ?, ?)",
                line.id,
                club_id,
                line.profile_id,
                line.text,
                line.at,
            )

    @on_db
    async def chat(self, club_id: str, since: int, limit: int) -> list[ChatLine]:
        """The wall's last ``limit`` lines written since ``since``, oldest first."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT c.id, c.profile_id, p.name, p.deleted, c.text, c.at FROM club_chat c"
                " JOIN player_profiles p ON p.id = c.profile_id"
                " WHERE c.club_id = ? AND c.at >= ? ORDER BY c.at DESC, c.id DESC LIMIT ?",
                club_id,
                since,
                limit,
            )
        return [
            ChatLine(r[0], "" if r[3] else r[1], FORMER_PLAYER if r[3] else r[2], r[4], int(r[5]))
            for r in reversed(rows)
        ]

    @on_db
    async def forget_chat(self, before: int) -> int:
        """Delete the wall lines written before ``before``; returns how many."""
        async with self.db.write() as conn:
            return await conn.execute("DELETE FROM club_chat WHERE at < ?", before)

    # ---------------------------------------------------------------- a profile's data

    @on_db
    async def profile_data(self, profile_id: str) -> dict[str, Any]:
        """What the clubs keep about ``profile_id`` (their export)."""
        async with self.db.read() as conn:
            clubs = await conn.fetch(
                "SELECT c.id, c.name, m.role, m.joined_at FROM club_members m"
                " JOIN clubs c ON c.id = m.club_id WHERE m.profile_id = ?"
                " ORDER BY m.joined_at, c.id",
                profile_id,
            )
            bars = await conn.fetch(
                "SELECT club_id, kind, at FROM club_bars WHERE profile_id = ? ORDER BY at",
                profile_id,
            )
            lines = await conn.fetch(
                "SELECT club_id, text, at FROM club_chat WHERE profile_id = ? ORDER BY at, id",
                profile_id,
            )
            seats = await conn.fetch(
                "SELECT s.code, t.club_id FROM club_seats s JOIN club_tables t"
                " ON t.code = s.code WHERE s.profile_id = ? ORDER BY s.code",
                profile_id,
            )
        return {
            "memberships": [
                {"club": r[0], "name": r[1], "role": r[2], "joined_at": int(r[3])} for r in clubs
            ],
            "barred": [{"club": r[0], "kind": r[1], "at": int(r[2])} for r in bars],
            "chat": [{"club": r[0], "text": r[1], "at": int(r[2])} for r in lines],
            "tables": [{"code": r[0], "club": r[1]} for r in seats],
        }

    @on_db
    async def forget(self, profile_id: str) -> None:
        """Everything the clubs keep about ``profile_id`` goes (a deleted profile): their
        memberships (an owner's club handed on), their wall lines, bars and seats."""
        async with self.db.write() as conn:
            clubs = await conn.fetch(
                "SELECT club_id FROM club_members WHERE profile_id = ? ORDER BY club_id",
                profile_id,
            )
            for (club_id,) in clubs:
                await _remove(conn, club_id, profile_id, self.db.for_update)
            for table in ("club_chat", "club_bars", "club_seats"):
                await conn.execute(f"DELETE FROM {table} WHERE profile_id = ?", profile_id)

    @on_db
    async def deleted_members(self, limit: int) -> list[str]:
        """Deleted profiles the clubs still keep something of (a guest forgotten by the
        players' own tidying, which knows nothing of clubs)."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT DISTINCT k.profile_id FROM (SELECT profile_id FROM club_members"
                " UNION SELECT profile_id FROM club_chat UNION SELECT profile_id FROM club_bars"
                " UNION SELECT profile_id FROM club_seats) k"
                " JOIN player_profiles p ON p.id = k.profile_id WHERE p.deleted = 1"
                " ORDER BY k.profile_id LIMIT ?",
                limit,
            )
        return [row[0] for row in rows]


def _seat(row: Row) -> dict[str, Any]:
    former = bool(row[6]) if row[4] is not None else False
    return {
        "seat": int(row[0]),
        "team": int(row[1]),
        "rank": int(row[2]),
        "name": FORMER_PLAYER if former or (row[3] is None and row[4] is not None) else row[3],
        "profile": None if former else row[4],
        "bot_level": row[5],
        "former": former,
    }


async def _check_room(conn: Conn, profile_id: str, limit: int, for_update: str) -> None:
    # (The profile's row, locked: two joins at once by one profile count one after another.)
    await conn.fetch(f"SELECT 1 FROM player_profiles WHERE id = ?{for_update}", profile_id)
    count = await conn.fetch("SELECT count(*) FROM club_members WHERE profile_id = ?", profile_id)
    if int(count[0][0]) >= limit:
        raise ClubError(ClubCode.TOO_MANY_CLUBS, f"a profile is in at most {limit} clubs")


async def _bar(conn: Conn, club_id: str, profile_id: str, kind: str, now: int) -> None:
    invite = await conn.fetch("SELECT invite FROM clubs WHERE id = ?", club_id)
    await conn.execute(
        "INSERT INTO club_bars (club_id, profile_id, kind, invite, at) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (club_id, profile_id) DO UPDATE SET kind = excluded.kind,"
        " invite = excluded.invite, at = excluded.at",
        club_id,
        profile_id,
        kind,
        invite[0][0] if invite else "",
        now,
    )


async def _remove(conn: Conn, club_id: str, profile_id: str, for_update: str) -> bool:
    found = await conn.fetch(
        f"SELECT role FROM club_members WHERE club_id = ? AND profile_id = ?{for_update}",
        club_id,
        profile_id,
    )
    if not found:
        return False
    await conn.execute(
        "DELETE FROM club_members WHERE club_id = ? AND profile_id = ?", club_id, profile_id
    )
    if found[0][0] != "owner":
        return True
    heirs = await conn.fetch(
        "SELECT m.profile_id FROM club_members m JOIN player_profiles p ON p.id = m.profile_id"
        " WHERE m.club_id = ? AND p.deleted = 0"
        " ORDER BY CASE m.role WHEN 'admin' THEN 0 ELSE 1 END, m.joined_at, m.profile_id"
        " LIMIT 1",
        club_id,
    )
    if heirs:
        await conn.execute(
            "UPDATE club_members SET role = 'owner' WHERE club_id = ? AND profile_id = ?",
            club_id,
            heirs[0][0],
        )
        return True
    # Nobody left: the club goes, with all it kept.
    for table in ("club_members", "club_bars", "club_chat"):
        await conn.execute(f"DELETE FROM {table} WHERE club_id = ?", club_id)
    await conn.execute(
        "DELETE FROM club_seats WHERE code IN (SELECT code FROM club_tables WHERE club_id = ?)",
        club_id,
    )
    await conn.execute("DELETE FROM club_tables WHERE club_id = ?", club_id)
    await conn.execute("DELETE FROM clubs WHERE id = ?", club_id)
    return True
