"""What the friends' routes do (docs/friends.md): requests, answers, removals and blocks,
the lists, and invitations to one's table, over a :class:`~.store.FriendStore`, with the
live side told through :class:`~.presence.Presence` and closed tabs through the server's
:class:`~..notify.Notifier`.

A blocked profile is never told it is: its requests and invites get the answer any would
(and its requests stay waiting on its side, unseen by the blocker). Floods are throttled per
profile (players/throttle.py: shared by a cluster's processes); counts are limited.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..errors import ErrorCode
from ..notify import Notice, Notifier, Silent
from ..players.errors import PlayerCode, PlayerError
from ..players.names import USERNAME
from ..players.service import Current, Players
from ..players.sqlstore import SqlPlayerStore
from ..players.throttle import Attempt, Throttle
from .errors import FriendCode, FriendError
from .presence import Presence
from .store import FriendStore, Invite, Person

if TYPE_CHECKING:
    from ..cluster.broker import Broker

#: The most friends a profile has; requests it has waiting (sent); requests waiting for it
#: (more are kept from it, unseen, as a blocked sender's); profiles it blocks.
MOST_FRIENDS = 200
MOST_OUTGOING = 50
MOST_INCOMING = 200
MOST_BLOCKS = 1000
#: Invites waiting for one profile at most, and how long one waits to be seen.
MOST_INVITES = 20
INVITE_SECONDS = 600
#: A table's code, and a private table's invite (tables/invites.py) as a link carries it.
TABLE_CODE = re.compile(r"[A-Za-z0-9]{3,12}")
TABLE_INVITE = re.compile(r"[A-Za-z0-9_-]{8,64}")
PROFILE_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")

#: Who holds a seat at a table now (their profiles), or None if there is no such table:
#: the table's owner answers, here or through the cluster (routes/friends.py).
Seated = Callable[[str, str | None], Awaitable[set[str] | None]]


def _profile_id(value: object, field: str = "id") -> str:
    if not isinstance(value, str) or not PROFILE_ID.fullmatch(value):
        raise FriendError(ErrorCode.BAD_MESSAGE, f"{field} is a profile's id")
    return value


def table_code(value: object) -> str:
    if not isinstance(value, str) or not TABLE_CODE.fullmatch(value):
        raise FriendError(ErrorCode.BAD_MESSAGE, "table is a table's code")
    return value.upper()


class Friends:
    """Friends, blocks and invites of a server's profiles (one a server)."""

    #: Its part of a profile's export (:class:`~..players.service.ProfileData`).
    name = "friends"

    def __init__(
        self,
        store: FriendStore,
        throttle: Throttle,
        presence: Presence,
        seated: Seated,
        notifier: Callable[[], Notifier] = Silent,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.throttle = throttle
        self.presence = presence
        self._seated = seated
        #: The server's notifier, asked for each time (the push room may replace it).
        self._notifier = notifier
        self._clock = clock

    @classmethod
    def of_server(
        cls,
        players: Players,
        broker: Broker | None,
        seated: Seated,
        notifier: Callable[[], Notifier],
    ) -> Friends:
        """A server's: over its players' database, presence through its broker (if a
        cluster), throttled as its players are; part of their export and deletion."""
        store = players.store
        if not isinstance(store, SqlPlayerStore):
            raise TypeError("friends live in the players' SQL database")
        friends = FriendStore(store.db)
        presence = Presence(friends.friend_ids, broker)
        made = cls(friends, players.throttle, presence, seated, notifier)
        players.keepers.append(made)
        return made

    def _now(self) -> int:
        return int(self._clock() * 1000)

    async def _throttle(self, attempt: Attempt, profile_id: str) -> None:
        wait = await self.throttle.take(attempt, profile_id)
        if wait > 0:
            raise PlayerError(ErrorCode.RATE_LIMITED, "too many at once: wait", retry_after=wait)

    # ---------------------------------------------------------------- the lists

    async def lists(self, current: Current) -> dict[str, Any]:
        """Friends (each with its status as this profile sees it), requests both ways and
        the profiles this one blocks."""
        me = current.profile.id
        friends = await self.store.friends(me)
        return {
            "friends": [{**f.to_dict(), **self.presence.view(f.id, me)} for f in friends],
            "incoming": [p.to_dict() for p in await self.store.incoming(me)],
            "outgoing": [p.to_dict() for p in await self.store.outgoing(me)],
            "blocked": [p.to_dict() for p in await self.store.blocks(me)],
            "limits": {"friends": MOST_FRIENDS, "outgoing": MOST_OUTGOING},
        }

    # ---------------------------------------------------------------- requests

    async def _target(self, body: dict[str, Any], me: str) -> Person:
        """The profile a request names: a ``username``, or an ``id`` one has played with (in
        a recorded match, or at ``table`` now, both seated)."""
        username, profile_id = body.get("username"), body.get("id")
        if (username is None) == (profile_id is None):
            raise FriendError(ErrorCode.BAD_MESSAGE, "name a username or a profile's id")
        if username is not None:
            name = username.strip().lower() if isinstance(username, str) else ""
            found = await self.store.by_username(name) if USERNAME.fullmatch(name) else None
            if found is None:
                raise FriendError(PlayerCode.PLAYER_NOT_FOUND, "nobody has that username")
            if found.id == me:
                raise FriendError(FriendCode.NOT_ALLOWED, "that is you")
            return found
        other = _profile_id(profile_id)
        found = await self.store.person(other) if other != me else None
        if found is None:
            raise FriendError(FriendCode.NOT_ALLOWED, "you have not played with this player")
        if await self.store.played_together(me, other):
            return found
        table = body.get("table")
        if table is not None:
            seated = await self._seated(table_code(table), _invite(body.get("invite")))
            if seated is not None and {me, other} <= seated:
                return found
        raise FriendError(FriendCode.NOT_ALLOWED, "you have not played with this player")

    async def request(self, current: Current, body: dict[str, Any]) -> dict[str, Any]:
        """Ask a profile to be friends: ``{"status": "requested"}``, or ``"friends"`` when
        it had asked this one already (its request accepted). A profile that blocks this one
        gets nothing, and this one the same answer as any."""
        me = current.profile.id
        await self._throttle(Attempt.FRIEND_REQUEST_ACCOUNT, me)
        other = await self._target(body, me)
        relation = await self.store.relation(me, other.id)
        if relation.friends:
            return {"status": "friends", "id": other.id}
        if relation.blocks:
            raise FriendError(FriendCode.YOU_BLOCK, "you block this player: unblock first")
        if relation.asked_by and not relation.blocked_by:
            return await self._accept(me, other.id)
        if not relation.asked:
            if (await self.store.counts(me)).outgoing >= MOST_OUTGOING:
                raise FriendError(
                    FriendCode.TOO_MANY, f"at most {MOST_OUTGOING} of your requests wait at once"
                )
            if (await self.store.counts(other.id)).incoming >= MOST_INCOMING:
                raise FriendError(FriendCode.TOO_MANY, "this player has too many requests waiting")
            await self.store.ask(me, other.id, self._now())
            if not relation.blocked_by:
                self.presence.refresh(other.id)
            self.presence.refresh(me)
        return {"status": "requested", "id": other.id}

    async def accept(self, current: Current, other: object) -> dict[str, Any]:
        return await self._accept(current.profile.id, _profile_id(other))

    async def _accept(self, me: str, other: str) -> dict[str, Any]:
        if (await self.store.relation(me, other)).blocks:
            raise FriendError(FriendCode.YOU_BLOCK, "you block this player: unblock first")
        outcome = await self.store.accept(me, other, self._now(), MOST_FRIENDS)
        if outcome == "no_request":
            raise FriendError(FriendCode.NO_REQUEST, "no request from this player waits")
        if outcome == "full":
            raise FriendError(FriendCode.TOO_MANY, f"a profile has at most {MOST_FRIENDS} friends")
        self.presence.refresh(me, other)
        return {"status": "friends", "id": other}

    async def decline(self, current: Current, other: object) -> None:
        """Decline a request: it leaves this profile's list; its sender is not told (it
        waits on their side, as a request to a profile that blocks them does)."""
        me, them = current.profile.id, _profile_id(other)
        if not await self.store.decline(me, them):
            raise FriendError(FriendCode.NO_REQUEST, "no request from this player waits")
        self.presence.refresh(me)

    async def withdraw(self, current: Current, other: object) -> None:
        me, them = current.profile.id, _profile_id(other)
        if not await self.store.withdraw(me, them):
            raise FriendError(FriendCode.NO_REQUEST, "you have no request to this player")
        self.presence.refresh(me, them)

    async def remove(self, current: Current, other: object) -> None:
        me, them = current.profile.id, _profile_id(other)
        if not await self.store.unfriend(me, them):
            raise FriendError(FriendCode.NOT_FRIENDS, "this player is not your friend")
        self.presence.refresh(me, them)

    # ---------------------------------------------------------------- blocks

    async def block(self, current: Current, other: object) -> None:
        """Block a profile: no longer friends, its requests and invites kept from this one,
        its chat hidden at tables (by the page: docs/friends.md)."""
        me, them = current.profile.id, _profile_id(other)
        if them == me or await self.store.person(them) is None:
            raise FriendError(PlayerCode.PLAYER_NOT_FOUND, "no such player")
        if (await self.store.counts(me)).blocks >= MOST_BLOCKS:
            raise FriendError(FriendCode.TOO_MANY, f"at most {MOST_BLOCKS} blocks")
        await self.store.block(me, them, self._now())
        self.presence.refresh(me, them)

    async def unblock(self, current: Current, other: object) -> None:
        me, them = current.profile.id, _profile_id(other)
        if await self.store.unblock(me, them):
            self.presence.refresh(me)

    async def blocked(self, current: Current) -> list[str]:
        return [p.id for p in await self.store.blocks(current.profile.id)]

    async def holds_seat(self, profile_id: str, code: object, invite: object) -> bool:
        """Whether ``profile_id`` holds a seat at table ``code`` now."""
        seated = await self._seated(table_code(code), _invite(invite))
        return seated is not None and profile_id in seated

    # ---------------------------------------------------------------- invites

    async def invite(self, current: Current, body: dict[str, Any]) -> dict[str, Any]:
        """Invite a friend to the table this profile holds a seat at: told live on their
        profile sockets, and by the notifier on their devices (a closed tab); kept until
        seen or :data:`INVITE_SECONDS`.

        An invite to anyone else (a stranger, a former friend, a profile that blocks this
        one) is answered as one sent and reaches nobody: so a blocked profile cannot tell
        the block from a friendship merely ended (a block ends it too)."""
        me = current.profile
        await self._throttle(Attempt.INVITE_ACCOUNT, me.id)
        friend = _profile_id(body.get("id"))
        code = table_code(body.get("table"))
        secret = _invite(body.get("invite"))
        seated = await self._seated(code, secret)
        if seated is None or me.id not in seated:
            raise FriendError(FriendCode.NOT_SEATED, "invite to a table you hold a seat at")
        relation = await self.store.relation(me.id, friend)
        now = self._now()
        invite = Invite(
            secrets.token_urlsafe(12),
            me.id,
            friend,
            code,
            f"/t/{code}" + (f"#invite={secret}" if secret else ""),
            now,
            now + INVITE_SECONDS * 1000,
            me.name,
        )
        answer = {"status": "invited", "id": invite.id, "expires_at": invite.expires_at}
        if not relation.friends or relation.blocked_by:
            return answer  # (nothing kept, nothing sent, and the sender not told)
        if not await self.store.add_invite(invite, MOST_INVITES):
            return answer  # (their invites are full: the oldest will expire)
        self.presence.tell(friend, {"type": "invite", **invite.to_dict()})
        await self._notifier().notify(
            friend,
            Notice(
                "invite",
                invite.link,
                {"from": me.name, "table": code},
                tag=f"invite:{code}",
            ),
        )
        return answer

    async def invites(self, current: Current) -> list[dict[str, Any]]:
        """The invites waiting for this profile (none of a profile it blocks)."""
        me = current.profile.id
        blocked = set(await self.blocked(current))
        waiting = await self.store.invites_for(me, self._now())
        return [i.to_dict() for i in waiting if i.from_id not in blocked]

    async def seen(self, profile_id: str, invite_id: object) -> bool:
        """The invite was seen (opened or dismissed): no longer kept."""
        if not isinstance(invite_id, str) or len(invite_id) > 32:
            raise FriendError(ErrorCode.BAD_MESSAGE, "id is an invite's id")
        return await self.store.seen(profile_id, invite_id)

    # ---------------------------------------------------------------- a profile's data

    async def export(self, profile_id: str) -> dict[str, Any]:
        now = self._now()
        return {
            "friends": [p.to_dict() for p in await self.store.friends(profile_id)],
            "requests_received": [p.to_dict() for p in await self.store.incoming(profile_id)],
            "requests_sent": [p.to_dict() for p in await self.store.outgoing(profile_id)],
            "blocked": [p.to_dict() for p in await self.store.blocks(profile_id)],
            "invites_received": [
                i.to_dict() for i in await self.store.invites_for(profile_id, now)
            ],
            "invites_sent": [i.to_dict() for i in await self.store.invites_from(profile_id, now)],
        }

    async def forget(self, profile_id: str) -> None:
        friends = await self.store.friend_ids(profile_id)
        await self.store.forget(profile_id)
        self.presence.drop(profile_id)
        self.presence.refresh(*friends)

    async def tidy(self) -> int:
        """Forget the invites whose time is up; returns how many."""
        return await self.store.forget_expired(self._now())


def _invite(value: object) -> str | None:
    """A private table's invite, as its link carries it, or None."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not TABLE_INVITE.fullmatch(value):
        raise FriendError(ErrorCode.BAD_MESSAGE, "invite is a private table's invite")
    return value
