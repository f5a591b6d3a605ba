"""The club's table link that always works (docs/clubs.md, "The club's table"): opening it
seats a member at the club's table of the evening, or makes a new one with the club's
settings.

The club's tables are private tables (tables/invites.py) whose invite the club keeps and
gives its members. A member who holds a seat there takes it back (a new token, as
``return`` does); anyone else takes a free or bot seat between matches. A table full, or
in the middle of a match, or older than an evening (:data:`~.values.TABLE_EVENING_MS`),
gives way to a new table, which the link opens from then on; the other members are told
(a ``club_event`` notice, notify.py: Web Push when the player allowed it).

A kick at a table is a removal for that table: the table knows a removed player by the
token the host removed (tables/seating.py), and the club remembers the hash of each token
its link handed out (``club_seats``). A member whose last token from the link the host
removed is refused (``kicked``) at that table, whatever device or session they come from.
The seat is taken by the table's owner (:func:`club_seat`, relayed in a cluster).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import ErrorCode, TableError
from ..notify import Notice, Notifier
from ..registry import Elsewhere, TableRegistry
from ..storage import Storage
from ..tables.invites import new_invite
from ..tables.model import TableOptions, hash_token
from .errors import ClubError
from .service import Clubs
from .throttle import Flood
from .values import TABLE_EVENING_MS

if TYPE_CHECKING:
    from ..cluster.relay import Relay
    from ..tables.table import Table

log = logging.getLogger(__name__)

#: The call a table's owner carries out for the club's link (routes/operations.py's kind).
CLUB_SEAT = "club_seat"
#: A refusal that means "this table has no room for you now": a new table is made.
_NO_ROOM = frozenset({ErrorCode.SEAT_TAKEN, ErrorCode.WRONG_STATUS, ErrorCode.TABLE_NOT_FOUND})


def club_seat(table: Table, body: dict[str, Any]) -> dict[str, Any]:
    """At the table's owner: the member's own seat back, else a free (or bot) seat between
    matches. ``body`` is made by the server (:class:`ClubTables`), never by a client:
    ``profile``, ``name``, and ``seat_hash``, the hash of the last token the link gave."""
    profile = body.get("profile")
    if not isinstance(profile, str):
        raise TableError(ErrorCode.NOT_SIGNED_IN, "the club's table needs a signed-in member")
    if any(s.kind == "human" and s.profile == profile for s in table.seats):
        seat, token = table.seating.come_back(profile)
        return {"seat": seat, "token": token, "table": table.summary()}
    seat_hash = body.get("seat_hash")
    if isinstance(seat_hash, str) and seat_hash in table.removed:
        raise TableError(ErrorCode.KICKED, "the host removed you from this table")
    if table.status == "playing":
        raise TableError(ErrorCode.WRONG_STATUS, "a match is being played")
    free = [s for s in table.seats if s.kind == "empty"] or [
        s for s in table.seats if s.kind == "bot"
    ]
    if not free:
        raise TableError(ErrorCode.SEAT_TAKEN, "every seat is taken")
    token = table.seating.join(body.get("name"), free[0].seat, None, profile)
    return {"seat": free[0].seat, "token": token, "table": table.summary()}


def table_settings_check(registry: TableRegistry) -> Callable[[dict[str, Any]], None]:
    """What refuses a club's table settings that a new table would refuse (``TableError``):
    the registry's own checks of a create request."""

    def check(settings: dict[str, Any]) -> None:
        TableOptions.from_request(settings, registry.default_options())
        registry.default_settings().changed(settings)

    return check


class ClubTables:
    """Opens a club's table for a member: here, or at its owner through ``relay``."""

    def __init__(
        self,
        clubs: Clubs,
        registry: TableRegistry,
        storage: Storage,
        relay: Relay | None = None,
        notifier: Callable[[], Notifier] | None = None,
    ) -> None:
        self.clubs = clubs
        self.registry = registry
        self.storage = storage
        self.relay = relay
        #: Who tells the members a new table started (the server's, read when it is used:
        #: Web Push replaces the silent default once configured).
        self._notifier = notifier
        self._telling: set[asyncio.Task[None]] = set()
        # One opening at a time per club in this process: two members arriving together
        # find one table, not two.
        self._locks: dict[str, asyncio.Lock] = {}
        self._waiting: Counter[str] = Counter()  # club id -> openings using its lock

    async def open(self, club_id: object, profile_id: str, name: str) -> dict[str, Any]:
        """Seat ``profile_id`` (a member) at the club's table; returns the table's code, its
        invite, the seat and its token, and whether the table is new."""
        club, _ = await self.clubs.membership(club_id, profile_id)
        await self.clubs.limit(Flood.TABLE, profile_id)
        lock = self._locks.setdefault(club.id, asyncio.Lock())
        self._waiting[club.id] += 1
        try:
            async with lock:
                opened = await self._open(club.id, club.table_settings, profile_id, name)
        finally:
            self._waiting[club.id] -= 1
            if not self._waiting[club.id]:  # (the last one: the lock goes)
                del self._waiting[club.id], self._locks[club.id]
        if opened["created"] and self._notifier is not None:
            # (Told beside the answer: the opener is not kept waiting for 200 members.)
            notice = Notice(
                "club_event",
                f"/c/{club.id}/table",
                {"club": club.name, "from": name},
                f"club:{club.id}",
            )
            task = asyncio.create_task(self._tell(club.id, profile_id, notice))
            self._telling.add(task)
            task.add_done_callback(self._telling.discard)
        return opened

    async def _tell(self, club_id: str, opener: str, notice: Notice) -> None:
        assert self._notifier is not None
        notifier = self._notifier()
        try:
            for member in await self.clubs.member_ids(club_id):
                if member != opener:
                    await notifier.notify(member, notice)
        except Exception:  # (a notice is a courtesy: the table is made all the same)
            log.exception("the members of club %s were not all told of its new table", club_id)

    async def _open(
        self, club_id: str, settings: dict[str, Any], profile_id: str, name: str
    ) -> dict[str, Any]:
        store = self.clubs.store
        now = self.clubs.now()
        current = await store.current_table(club_id, now - TABLE_EVENING_MS)
        if current is not None:
            code, invite = current
            body = {
                "profile": profile_id,
                "name": name,
                "seat_hash": await store.seat_hash(code, profile_id),
            }
            try:
                answer = await self._at_owner(code, body)
            except TableError as error:
                if error.code not in _NO_ROOM:
                    raise ClubError(error.code, error.message) from None
            else:
                await store.set_seat_hash(code, profile_id, hash_token(answer["token"]))
                return {**answer, "code": code, "invite": invite, "created": False}
        invite, invite_hash = new_invite()
        request = {**settings, "name": name, "seat": 0}
        try:
            table, token = await self.registry.create(request, invite_hash, profile_id)
        except TableError as error:
            raise ClubError(error.code, error.message) from None
        await store.add_table(club_id, table.code, invite, now)
        await store.set_seat_hash(table.code, profile_id, hash_token(token))
        return {
            "seat": table.host_seat,
            "token": token,
            "table": table.summary(),
            "code": table.code,
            "invite": invite,
            "created": True,
        }

    async def _at_owner(self, code: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            table = await self.registry.get(code)
        except Elsewhere:
            return await self._relayed(code, body)
        answer = club_seat(table, body)
        await self.storage.wait_durable(self.storage.staged_seq)
        if table.retired:  # (taken over meanwhile: what it changed may not be written)
            raise TableError(ErrorCode.OWNER_UNAVAILABLE, "the table moved: try again")
        return answer

    async def _relayed(self, code: str, body: dict[str, Any]) -> dict[str, Any]:
        if self.relay is None:
            raise TableError(ErrorCode.STORAGE_ERROR, "the table is served elsewhere")
        from ..cluster.relay import OwnerGone

        try:
            status, raw = await self.relay.call(code, CLUB_SEAT, body, None)
        except OwnerGone as error:
            raise error.error() from None
        answer = orjson.loads(raw)
        if status != 200:
            refused = answer.get("error") or {}
            try:
                refusal = ErrorCode(str(refused.get("code")))
            except ValueError:
                refusal = ErrorCode.STORAGE_ERROR
            raise TableError(refusal, str(refused.get("message", "refused")))
        return dict(answer)
