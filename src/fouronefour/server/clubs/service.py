"""What a club's routes do (docs/clubs.md): clubs made, joined by their invite link, left;
its admins' tools (promote, demote, kick, ban, unban, a new link, its name and table
settings); its leaderboard, history and chat wall; a profile's club data exported and
forgotten.

Who may do what: a member reads the club and writes on its wall; an admin acts on
members; the owner on everyone. A non-member is told a club does not exist.
"""

from __future__ import annotations

import itertools
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from ..errors import ErrorCode, TableError
from ..players.values import Rating, rating_dict
from .errors import ClubCode, ClubError
from .store import ClubStore
from .throttle import ClubThrottle, Flood
from .values import (
    CHAT_KEEP_MS,
    CHAT_PAGE,
    MAX_CLUBS,
    MAX_MEMBERS,
    RANK,
    TABLE_KEYS,
    ChatLine,
    Club,
    Role,
    check_chat_text,
    check_club_name,
)

#: A club's id: 12 URL-safe characters (72 random bits); an invite: 24 (144 bits).
CLUB_ID_BYTES = 9
INVITE_BYTES = 18
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: A member's results among members before they played with one.
NONE = (0, 0)
#: Results among members are read again at most this often per club (the one read that
#: grows with the club's matches: ~15 ms at 200 members and 3,000 matches, bench/clubs.py),
#: and kept for this many clubs at most.
AMONG_SECONDS = 30.0
AMONG_KEPT = 1000
#: The most history entries a page shows.
HISTORY_LIMIT = 30


def is_id(value: object) -> bool:
    """Whether ``value`` could be a club's or a profile's id (anything else is none)."""
    return isinstance(value, str) and _ID.fullmatch(value) is not None


class HistoryChapter(Protocol):
    """Entries of a club's history from another room: each a dict with its ``kind`` and
    ``finished_at`` (ms), newest first."""

    async def club_history(self, club_id: str, limit: int) -> list[dict[str, Any]]: ...


class Clubs:
    """The clubs over their store; ``check_settings`` refuses table settings no table would
    take (the registry's own checks: ``TableError``)."""

    #: The key of the clubs' part of a profile's export (players/service.py).
    name = "clubs"

    def __init__(
        self,
        store: ClubStore,
        throttle: ClubThrottle | None = None,
        check_settings: Callable[[dict[str, Any]], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.throttle = throttle or ClubThrottle()
        self._check_settings = check_settings
        self._clock = clock
        self._lines = itertools.count()
        #: What other rooms add to a club's history (the events' final tables: the
        #: tournaments, a room above this one, add theirs when the server is built).
        self.chapters: list[HistoryChapter] = []
        # club id -> (until when, results among members), least recently read first
        self._among: OrderedDict[str, tuple[float, dict[str, tuple[int, int]]]] = OrderedDict()

    def now(self) -> int:
        return int(self._clock() * 1000)

    async def limit(self, flood: Flood, key: str) -> None:
        wait = await self.throttle.take(flood, key)
        if wait > 0:
            raise ClubError(ErrorCode.RATE_LIMITED, "too many at once: wait", retry_after=wait)

    # ---------------------------------------------------------------- for other rooms

    async def role(self, club_id: str, profile_id: str) -> str | None:
        """``profile_id``'s role in the club: "owner", "admin", "member", or None."""
        if not (is_id(club_id) and is_id(profile_id)):
            return None
        return await self.store.role(club_id, profile_id)

    async def member_ids(self, club_id: str) -> list[str]:
        """The club's live members' profile ids (none for no such club)."""
        if not is_id(club_id):
            return []
        return [m.profile_id for m in await self.store.members(club_id)]

    # ---------------------------------------------------------------- reading

    async def membership(self, club_id: object, profile_id: str) -> tuple[Club, Role]:
        """The club and the asker's role in it; a non-member learns nothing of it."""
        if is_id(club_id):
            assert isinstance(club_id, str)
            role = await self.store.role(club_id, profile_id)
            club = await self.store.get(club_id) if role is not None else None
            if club is not None and role is not None:
                return club, role
        raise ClubError(ClubCode.CLUB_NOT_FOUND, "no such club (or you are not in it)")

    async def admin(self, club_id: object, profile_id: str) -> tuple[Club, Role]:
        club, role = await self.membership(club_id, profile_id)
        if RANK[role] < RANK["admin"]:
            raise ClubError(ClubCode.NOT_ALLOWED, "only the club's admins may do that")
        return club, role

    async def mine(self, profile_id: str) -> list[dict[str, Any]]:
        return [
            {"id": club.id, "name": club.name, "role": role, "members": count}
            for club, role, count in await self.store.clubs_of(profile_id)
        ]

    async def page(self, club_id: object, profile_id: str) -> dict[str, Any]:
        """The club as a member sees it: its members and roles, its invite link, its table
        settings; an admin also sees who is banned."""
        club, role = await self.membership(club_id, profile_id)
        body: dict[str, Any] = {
            "id": club.id,
            "name": club.name,
            "created_at": club.created_at,
            "role": role,
            "invite": club.invite,
            "table_settings": club.table_settings,
            "members": [m.to_dict() for m in await self.store.members(club.id)],
            "limits": {"members": MAX_MEMBERS},
        }
        if RANK[role] >= RANK["admin"]:
            body["banned"] = [
                {"id": pid, "name": name, "at": at}
                for pid, name, at in await self.store.banned(club.id)
            ]
        return body

    async def preview(self, invite: object) -> dict[str, Any]:
        """What an invite link shows before joining: the club's name and size."""
        club = await self._by_invite(invite)
        return {"id": club.id, "name": club.name, "members": len(await self.store.members(club.id))}

    async def _by_invite(self, invite: object) -> Club:
        if is_id(invite):
            assert isinstance(invite, str)
            club_id = await self.store.club_of_invite(invite)
            club = None if club_id is None else await self.store.get(club_id)
            if club is not None:
                return club
        raise ClubError(ClubCode.BAD_INVITE, "that invite link is no club's (any more)")

    # ---------------------------------------------------------------- membership

    async def create(self, profile_id: str, name: object) -> dict[str, Any]:
        clean = check_club_name(name)
        await self.limit(Flood.CHANGE, profile_id)
        club = Club(
            secrets.token_urlsafe(CLUB_ID_BYTES),
            clean,
            self.now(),
            secrets.token_urlsafe(INVITE_BYTES),
            {"players": 4},
        )
        await self.store.create(club, profile_id, MAX_CLUBS)
        return await self.page(club.id, profile_id)

    async def join(self, profile_id: str, invite: object) -> dict[str, Any]:
        await self.limit(Flood.CHANGE, profile_id)
        if not is_id(invite):
            raise ClubError(ClubCode.BAD_INVITE, "that invite link is no club's (any more)")
        assert isinstance(invite, str)
        club_id = await self.store.join(invite, profile_id, self.now())
        return await self.page(club_id, profile_id)

    async def leave(self, club_id: object, profile_id: str) -> None:
        club, _ = await self.membership(club_id, profile_id)
        await self.store.remove(club.id, profile_id)

    async def change(
        self, club_id: object, profile_id: str, data: dict[str, Any]
    ) -> dict[str, Any]:
        """An admin renames the club or changes its tables' settings."""
        unknown = set(data) - {"name", "table_settings"}
        if unknown or not data:
            raise ClubError(ClubCode.BAD_CLUB_SETTINGS, "change name and/or table_settings")
        name = check_club_name(data["name"]) if "name" in data else None
        settings = None
        if "table_settings" in data:
            settings = self._settings(data["table_settings"])
        club, _ = await self.admin(club_id, profile_id)
        await self.limit(Flood.CHANGE, profile_id)
        await self.store.change(club.id, name, settings)
        return await self.page(club.id, profile_id)

    def _settings(self, given: object) -> dict[str, Any]:
        if not isinstance(given, dict) or len(given) > len(TABLE_KEYS):
            raise ClubError(ClubCode.BAD_CLUB_SETTINGS, "table_settings is an object")
        unknown = set(given) - TABLE_KEYS
        if unknown:
            raise ClubError(ClubCode.BAD_CLUB_SETTINGS, f"no table option {sorted(unknown)[0]!r}")
        if self._check_settings is not None:
            try:
                self._check_settings(dict(given))
            except TableError as error:
                raise ClubError(ClubCode.BAD_CLUB_SETTINGS, error.message) from None
        return dict(given)

    async def _target(
        self, club_id: object, actor: str, target: object
    ) -> tuple[Club, Role, Role | None]:
        """The club, the actor's role (an admin at least) and the target's (None: not a
        member); an actor acts only on those they outrank."""
        club, role = await self.admin(club_id, actor)
        if not is_id(target) or target == actor:
            raise ClubError(ClubCode.NOT_ALLOWED, "name another profile")
        assert isinstance(target, str)
        theirs = await self.store.role(club.id, target)
        if theirs is not None and RANK[theirs] >= RANK[role]:
            raise ClubError(ClubCode.NOT_ALLOWED, f"an {role} cannot do that to an {theirs}")
        return club, role, theirs

    async def promote(self, club_id: object, actor: str, target: object) -> dict[str, Any]:
        club, _, theirs = await self._target(club_id, actor, target)
        if theirs != "member":
            raise ClubError(ClubCode.NOT_MEMBER, "only a member becomes an admin")
        await self.limit(Flood.CHANGE, actor)
        await self.store.set_role(club.id, str(target), "member", "admin")
        return await self.page(club.id, actor)

    async def demote(self, club_id: object, actor: str, target: object) -> dict[str, Any]:
        club, _, theirs = await self._target(club_id, actor, target)
        if theirs != "admin":
            raise ClubError(ClubCode.NOT_MEMBER, "only an admin becomes a member again")
        await self.limit(Flood.CHANGE, actor)
        await self.store.set_role(club.id, str(target), "admin", "member")
        return await self.page(club.id, actor)

    async def kick(self, club_id: object, actor: str, target: object) -> dict[str, Any]:
        """Out of the club; back only by a link made after the kick."""
        club, _, theirs = await self._target(club_id, actor, target)
        if theirs is None:
            raise ClubError(ClubCode.NOT_MEMBER, "not a member of this club")
        await self.limit(Flood.CHANGE, actor)
        await self.store.remove(club.id, str(target), bar="kick", now=self.now())
        return await self.page(club.id, actor)

    async def ban(self, club_id: object, actor: str, target: object) -> dict[str, Any]:
        """Out of the club and never back by any link until unbanned."""
        club, _, theirs = await self._target(club_id, actor, target)
        if theirs is None:
            raise ClubError(ClubCode.NOT_MEMBER, "not a member of this club")
        await self.limit(Flood.CHANGE, actor)
        await self.store.ban(club.id, str(target), self.now())
        return await self.page(club.id, actor)

    async def unban(self, club_id: object, actor: str, target: object) -> dict[str, Any]:
        club, _ = await self.admin(club_id, actor)
        if not is_id(target) or not await self.store.unban(club.id, str(target)):
            raise ClubError(ClubCode.NOT_MEMBER, "nobody of that id is banned here")
        return await self.page(club.id, actor)

    async def rotate_invite(self, club_id: object, actor: str) -> dict[str, Any]:
        club, _ = await self.admin(club_id, actor)
        await self.limit(Flood.CHANGE, actor)
        await self.store.rotate_invite(club.id, secrets.token_urlsafe(INVITE_BYTES))
        return await self.page(club.id, actor)

    # ---------------------------------------------------------------- results

    async def leaderboard(self, club_id: object, profile_id: str) -> list[dict[str, Any]]:
        """Every member by rating (ordinal), with their matches and wins among members."""
        club, _ = await self.membership(club_id, profile_id)
        members = await self.store.members(club.id)
        among = await self._results_among(club.id)
        rows = sorted(members, key=lambda m: (-m.ordinal, m.profile_id))
        return [
            {
                "rank": i + 1,
                "id": m.profile_id,
                "name": m.name,
                "avatar": m.avatar,
                "rating": rating_dict(Rating(m.mu, m.sigma, m.rated_matches)),
                "among": dict(
                    zip(("matches", "wins"), among.get(m.profile_id, (0, 0)), strict=True)
                ),
            }
            for i, m in enumerate(rows)
        ]

    async def _results_among(self, club_id: str) -> dict[str, tuple[int, int]]:
        """A club's results among members, read again once :data:`AMONG_SECONDS` old: a
        member asking for the leaderboard again and again costs the database nothing more."""
        now = self._clock()
        kept = self._among.get(club_id)
        if kept is not None and kept[0] > now:
            self._among.move_to_end(club_id)
            return kept[1]
        among = await self.store.results_among(club_id)
        self._among[club_id] = (now + AMONG_SECONDS, among)
        self._among.move_to_end(club_id)
        while len(self._among) > AMONG_KEPT:
            self._among.popitem(last=False)
        return among

    async def history(self, club_id: object, profile_id: str) -> list[dict[str, Any]]:
        """The club's last :data:`HISTORY_LIMIT` entries, newest first: its matches
        (``kind`` "match") and what the other rooms add (:attr:`chapters`: the events)."""
        club, _ = await self.membership(club_id, profile_id)
        entries = [{"kind": "match", **m} for m in await self.store.history(club.id, HISTORY_LIMIT)]
        for chapter in self.chapters:
            entries += await chapter.club_history(club.id, HISTORY_LIMIT)
        entries.sort(key=lambda entry: -int(entry["finished_at"]))  # (stable: ties keep order)
        return entries[:HISTORY_LIMIT]

    # ---------------------------------------------------------------- chat wall

    async def chat(self, club_id: object, profile_id: str) -> list[dict[str, Any]]:
        club, _ = await self.membership(club_id, profile_id)
        lines = await self.store.chat(club.id, self.now() - CHAT_KEEP_MS, CHAT_PAGE)
        return [line.to_dict() for line in lines]

    async def say(self, club_id: object, profile_id: str, text: object) -> dict[str, Any]:
        clean = check_chat_text(text)
        club, _ = await self.membership(club_id, profile_id)
        await self.limit(Flood.CHAT, f"{club.id}:{profile_id}")
        await self.limit(Flood.CLUB_CHAT, club.id)
        # (An id that sorts as the lines were said, lines of one millisecond too.)
        at = self.now()
        line_id = f"{at:012x}{next(self._lines):08x}{secrets.token_hex(4)}"
        line = ChatLine(line_id, profile_id, "", clean, at)
        await self.store.say(club.id, line)
        return line.to_dict()

    # ---------------------------------------------------------------- upkeep and data

    async def tidy(self, batch: int = 100) -> int:
        """Wall lines older than a week go; so does what the clubs keep of profiles deleted
        by the players' own tidying. Returns the lines deleted."""
        gone = await self.store.forget_chat(self.now() - CHAT_KEEP_MS)
        for profile_id in await self.store.deleted_members(batch):
            await self.store.forget(profile_id)
        return gone

    async def export(self, profile_id: str) -> dict[str, Any]:
        """The clubs' part of a profile's export (GET /api/me/export)."""
        return await self.store.profile_data(profile_id)

    async def forget(self, profile_id: str) -> None:
        """A profile is deleted: its clubs' data goes, an owner's clubs handed on."""
        await self.store.forget(profile_id)
