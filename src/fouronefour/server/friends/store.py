"""The friends' store: friendships, requests, blocks and pending invites in the players'
database (``Backends.players.db``), in SQL that SQLite and PostgreSQL both run (the tables
are :data:`~.schema.FRIENDS_STEP`).

Every method is one operation of the database (:meth:`Db.run`): on SQLite's own thread, start
to end, so that a check and the change it allows happen in one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..players.sqlstore import Conn, Db, Row, on_db


@dataclass(frozen=True, slots=True)
class Person:
    """Another profile as a friends' list shows it (its public name and avatar) and since
    when the row (friendship, request, block) has been there."""

    id: str
    name: str
    avatar: str
    since: int

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "avatar": self.avatar, "since": self.since}


@dataclass(frozen=True, slots=True)
class Relation:
    """What lies between profile ``a`` and profile ``b``, from ``a``'s side."""

    friends: bool = False
    #: ``a`` asked ``b`` / ``b`` asked ``a`` (a request waiting).
    asked: bool = False
    asked_by: bool = False
    #: ``a`` blocks ``b`` / ``b`` blocks ``a``.
    blocks: bool = False
    blocked_by: bool = False


@dataclass(frozen=True, slots=True)
class Counts:
    friends: int
    #: Requests this profile sent that wait / that wait for it (not declined).
    outgoing: int
    incoming: int
    blocks: int


@dataclass(frozen=True, slots=True)
class Invite:
    """A friend's invitation to their table, kept until it is seen or expires."""

    id: str
    from_id: str
    to_id: str
    code: str
    #: Where it leads: ``/t/CODE`` (``#invite=...`` for a private table).
    link: str
    created_at: int
    expires_at: int
    #: The inviter's display name (read with the invite; not stored in it).
    from_name: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "from": {"id": self.from_id, "name": self.from_name},
            "code": self.code,
            "link": self.link,
            "created_at": self.created_at,
            "expires_at": self.expires_at,
        }


def _people(rows: list[Row]) -> list[Person]:
    return [Person(r[0], r[1], r[2], int(r[3])) for r in rows]


_INVITE = "i.id, i.from_id, i.to_id, i.code, i.link, i.created_at, i.expires_at, p.name"


def _invite(row: Row) -> Invite:
    return Invite(row[0], row[1], row[2], row[3], row[4], int(row[5]), int(row[6]), row[7] or "")


class FriendStore:
    """Friendships, requests, blocks and invites over the players' :class:`Db`."""

    def __init__(self, db: Db) -> None:
        self.db = db

    # ---------------------------------------------------------------- looking up

    @on_db
    async def by_username(self, username: str) -> Person | None:
        """The live profile that holds ``username`` (since: its creation)."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT id, name, avatar, created_at FROM player_profiles"
                " WHERE username = ? AND deleted = 0",
                username,
            )
        return _people(rows)[0] if rows else None

    @on_db
    async def person(self, profile_id: str) -> Person | None:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT id, name, avatar, created_at FROM player_profiles"
                " WHERE id = ? AND deleted = 0",
                profile_id,
            )
        return _people(rows)[0] if rows else None

    @on_db
    async def played_together(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` sat at one recorded match."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT 1 FROM player_match_seats me JOIN player_match_seats o"
                " ON o.code = me.code AND o.number = me.number"
                " WHERE me.profile_id = ? AND o.profile_id = ? LIMIT 1",
                a,
                b,
            )
        return bool(rows)

    @on_db
    async def relation(self, a: str, b: str) -> Relation:
        async with self.db.read() as conn:
            return await _relation(conn, a, b)

    @on_db
    async def counts(self, profile_id: str) -> Counts:
        async with self.db.read() as conn:
            return await _counts(conn, profile_id)

    # ---------------------------------------------------------------- lists

    @on_db
    async def friends(self, profile_id: str) -> list[Person]:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT p.id, p.name, p.avatar, f.since FROM friend_links f"
                " JOIN player_profiles p ON p.id = f.friend_id"
                " WHERE f.profile_id = ? AND p.deleted = 0 ORDER BY p.name, p.id",
                profile_id,
            )
        return _people(rows)

    @on_db
    async def friend_ids(self, profile_id: str) -> list[str]:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT friend_id FROM friend_links WHERE profile_id = ?", profile_id
            )
        return [r[0] for r in rows]

    @on_db
    async def incoming(self, profile_id: str) -> list[Person]:
        """Requests waiting for ``profile_id``'s answer, but those it declined and those of
        profiles it blocks (they are kept, unseen: their sender sees them waiting, as any
        other)."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT p.id, p.name, p.avatar, r.created_at FROM friend_requests r"
                " JOIN player_profiles p ON p.id = r.from_id"
                " WHERE r.to_id = ? AND r.declined = 0 AND p.deleted = 0 AND NOT EXISTS"
                " (SELECT 1 FROM friend_blocks b"
                " WHERE b.profile_id = r.to_id AND b.blocked_id = r.from_id)"
                " ORDER BY r.created_at DESC, p.id",
                profile_id,
            )
        return _people(rows)

    @on_db
    async def outgoing(self, profile_id: str) -> list[Person]:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT p.id, p.name, p.avatar, r.created_at FROM friend_requests r"
                " JOIN player_profiles p ON p.id = r.to_id"
                " WHERE r.from_id = ? AND p.deleted = 0 ORDER BY r.created_at DESC, p.id",
                profile_id,
            )
        return _people(rows)

    @on_db
    async def blocks(self, profile_id: str) -> list[Person]:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT p.id, p.name, p.avatar, b.since FROM friend_blocks b"
                " JOIN player_profiles p ON p.id = b.blocked_id"
                " WHERE b.profile_id = ? AND p.deleted = 0 ORDER BY p.name, p.id",
                profile_id,
            )
        return _people(rows)

    # ---------------------------------------------------------------- changes

    @on_db
    async def ask(self, a: str, b: str, now: int) -> bool:
        """``a`` asks ``b`` to be friends; False if ``a`` had asked already."""
        async with self.db.write() as conn:
            return bool(
                await conn.execute(
                    "INSERT INTO friend_requests (from_id, to_id, created_at) VALUES (?, ?, ?)"
                    " ON CONFLICT (from_id, to_id) DO NOTHING",
                    a,
                    b,
                    now,
                )
            )

    @on_db
    async def accept(self, a: str, b: str, now: int, most: int) -> str:
        """``a`` accepts ``b``'s request: "friends", or why not ("no_request"; "full":
        either side has ``most`` friends already)."""
        async with self.db.write() as conn:
            waiting = await conn.fetch(
                "SELECT 1 FROM friend_requests WHERE from_id = ? AND to_id = ?", b, a
            )
            if not waiting:
                return "no_request"
            for side in (a, b):
                if (await _counts(conn, side)).friends >= most:
                    return "full"
            await conn.execute(
                "DELETE FROM friend_requests WHERE (from_id = ? AND to_id = ?)"
                " OR (from_id = ? AND to_id = ?)",
                a,
                b,
                b,
                a,
            )
            await conn.executemany(
                "INSERT INTO friend_links (profile_id, friend_id, since) VALUES (?, ?, ?)"
                " ON CONFLICT (profile_id, friend_id) DO NOTHING",
                [(a, b, now), (b, a, now)],
            )
        return "friends"

    @on_db
    async def decline(self, a: str, b: str) -> bool:
        """``a`` declines ``b``'s request: hidden from ``a``, still waiting for ``b``."""
        async with self.db.write() as conn:
            return bool(
                await conn.execute(
                    "UPDATE friend_requests SET declined = 1"
                    " WHERE from_id = ? AND to_id = ? AND declined = 0",
                    b,
                    a,
                )
            )

    @on_db
    async def withdraw(self, a: str, b: str) -> bool:
        """``a`` withdraws its request to ``b``."""
        async with self.db.write() as conn:
            return bool(
                await conn.execute(
                    "DELETE FROM friend_requests WHERE from_id = ? AND to_id = ?", a, b
                )
            )

    @on_db
    async def unfriend(self, a: str, b: str) -> bool:
        async with self.db.write() as conn:
            return bool(await _unfriend(conn, a, b))

    @on_db
    async def block(self, a: str, b: str, now: int) -> None:
        """``a`` blocks ``b``: their friendship, ``a``'s request to ``b`` and ``b``'s invites
        to ``a`` go. (``b``'s request to ``a`` stays, hidden from ``a``: ``b`` is not told.)"""
        async with self.db.write() as conn:
            await conn.execute(
                "INSERT INTO friend_blocks (profile_id, blocked_id, since) VALUES (?, ?, ?)"
                " ON CONFLICT (profile_id, blocked_id) DO NOTHING",
                a,
                b,
                now,
            )
            await _unfriend(conn, a, b)
            await conn.execute("DELETE FROM friend_requests WHERE from_id = ? AND to_id = ?", a, b)
            await conn.execute("DELETE FROM friend_invites WHERE from_id = ? AND to_id = ?", b, a)

    @on_db
    async def unblock(self, a: str, b: str) -> bool:
        async with self.db.write() as conn:
            return bool(
                await conn.execute(
                    "DELETE FROM friend_blocks WHERE profile_id = ? AND blocked_id = ?", a, b
                )
            )

    # ---------------------------------------------------------------- invites

    @on_db
    async def add_invite(self, invite: Invite, most: int) -> bool:
        """Keep ``invite``; False (nothing kept) if its recipient has ``most`` waiting."""
        async with self.db.write() as conn:
            waiting = await conn.fetch(
                "SELECT COUNT(*) FROM friend_invites WHERE to_id = ? AND expires_at > ?",
                invite.to_id,
                invite.created_at,
            )
            if int(waiting[0][0]) >= most:
                return False
            await conn.execute(
                "INSERT INTO friend_invites (id, from_id, to_id, code, link, created_at,"
                " expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                invite.id,
                invite.from_id,
                invite.to_id,
                invite.code,
                invite.link,
                invite.created_at,
                invite.expires_at,
            )
        return True

    @on_db
    async def invites_for(self, profile_id: str, now: int) -> list[Invite]:
        """The invites waiting for ``profile_id``, newest first."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                f"SELECT {_INVITE} FROM friend_invites i JOIN player_profiles p"
                " ON p.id = i.from_id WHERE i.to_id = ? AND i.expires_at > ? AND p.deleted = 0"
                " ORDER BY i.created_at DESC, i.id",
                profile_id,
                now,
            )
        return [_invite(r) for r in rows]

    @on_db
    async def invites_from(self, profile_id: str, now: int) -> list[Invite]:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                f"SELECT {_INVITE} FROM friend_invites i JOIN player_profiles p"
                " ON p.id = i.from_id WHERE i.from_id = ? AND i.expires_at > ?"
                " ORDER BY i.created_at DESC, i.id",
                profile_id,
                now,
            )
        return [_invite(r) for r in rows]

    @on_db
    async def seen(self, profile_id: str, invite_id: str) -> bool:
        """The recipient has seen the invite: it is no longer kept."""
        async with self.db.write() as conn:
            return bool(
                await conn.execute(
                    "DELETE FROM friend_invites WHERE id = ? AND to_id = ?", invite_id, profile_id
                )
            )

    @on_db
    async def forget_expired(self, now: int) -> int:
        """Forget the invites whose time is up, and what is kept of profiles deleted without
        their player asking (guests forgotten: players/sqlstore.py); returns the invites."""
        async with self.db.write() as conn:
            gone = await conn.execute("DELETE FROM friend_invites WHERE expires_at <= ?", now)
            for table, a, b in (
                ("friend_links", "profile_id", "friend_id"),
                ("friend_requests", "from_id", "to_id"),
                ("friend_blocks", "profile_id", "blocked_id"),
                ("friend_invites", "from_id", "to_id"),
            ):
                await conn.execute(
                    f"DELETE FROM {table} WHERE EXISTS (SELECT 1 FROM player_profiles p"
                    f" WHERE p.deleted = 1 AND (p.id = {table}.{a} OR p.id = {table}.{b}))"
                )
        return gone

    # ---------------------------------------------------------------- a profile's data

    @on_db
    async def forget(self, profile_id: str) -> None:
        """Everything of ``profile_id``'s here (its profile is being deleted)."""
        async with self.db.write() as conn:
            for sql in (
                "DELETE FROM friend_links WHERE profile_id = ? OR friend_id = ?",
                "DELETE FROM friend_requests WHERE from_id = ? OR to_id = ?",
                "DELETE FROM friend_blocks WHERE profile_id = ? OR blocked_id = ?",
                "DELETE FROM friend_invites WHERE from_id = ? OR to_id = ?",
            ):
                await conn.execute(sql, profile_id, profile_id)


async def _relation(conn: Conn, a: str, b: str) -> Relation:
    rows = await conn.fetch(
        "SELECT 'friends' FROM friend_links WHERE profile_id = ? AND friend_id = ?"
        " UNION ALL SELECT 'asked' FROM friend_requests WHERE from_id = ? AND to_id = ?"
        " UNION ALL SELECT 'asked_by' FROM friend_requests WHERE from_id = ? AND to_id = ?"
        " UNION ALL SELECT 'blocks' FROM friend_blocks WHERE profile_id = ? AND blocked_id = ?"
        " UNION ALL SELECT 'blocked_by' FROM friend_blocks WHERE profile_id = ?"
        " AND blocked_id = ?",
        a, b, a, b, b, a, a, b, b, a,
    )  # fmt: skip
    found = {r[0] for r in rows}
    return Relation(**{name: True for name in found})


async def _counts(conn: Conn, profile_id: str) -> Counts:
    rows = await conn.fetch(
        "SELECT (SELECT COUNT(*) FROM friend_links WHERE profile_id = ?),"
        " (SELECT COUNT(*) FROM friend_requests WHERE from_id = ?),"
        " (SELECT COUNT(*) FROM friend_requests WHERE to_id = ? AND declined = 0),"
        " (SELECT COUNT(*) FROM friend_blocks WHERE profile_id = ?)",
        profile_id,
        profile_id,
        profile_id,
        profile_id,
    )
    row = rows[0]
    return Counts(int(row[0]), int(row[1]), int(row[2]), int(row[3]))


async def _unfriend(conn: Conn, a: str, b: str) -> int:
    return await conn.execute(
        "DELETE FROM friend_links WHERE (profile_id = ? AND friend_id = ?)"
        " OR (profile_id = ? AND friend_id = ?)",
        a,
        b,
        b,
        a,
    )
