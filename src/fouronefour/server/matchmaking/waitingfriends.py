"""Play again's waiting friends (again.py's :class:`~.again.Substitutes`): a seat whose
player declined goes, before a bot, to a friend of someone who accepted who is waiting in
the quick-match queue right now.

A *waiting friend* is a profile that is a friend (accepted, and neither blocks the other:
friends/) of at least one player who accepted the offer, blocks none of those who accepted
and is blocked by none of them, was no player of the table that ended, and waits in the
quick-match queue (this process's, or a cluster's in Redis). Friends of more of those who
accepted come first, then who has waited longest (then the queue's order, then the id:
deterministic). Each is taken out of the queue by the queue's own claim, atomic in Redis as
in memory, so a friend two offers (or an offer and a quick-match pass) both want is seated
by one of them only. Once the table is made, their seat is left in the queue for their
page, which polls it as quick match's does and moves to the table by itself; and they get
an invite from the friend who accepted (kept with the friends' invites, told live on
``/ws/me`` and through the notifier). A table that could not be made puts them back in the
queue, in their place.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from ..friends.service import INVITE_SECONDS, MOST_INVITES, Friends
from ..friends.store import Invite
from ..notify import Notice, Notifier, Silent
from .pairing import Entry
from .queue import QueueStore
from .tablemaker import Seated, Sitter

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Claim:
    """A friend taken out of the queue for a new table: their entry (to put back if the
    table is not made) and the player who accepted whose friend they are."""

    entry: Entry
    friend_of: Sitter


class WaitingFriends:
    """Friends waiting in quick match, found and seated for play again."""

    def __init__(
        self,
        friends: Friends,
        queue: QueueStore,
        notifier: Callable[[], Notifier] = Silent,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._friends = friends
        self._queue = queue
        self._notifier = notifier
        self._clock = clock
        #: The friends taken out of the queue whose seat is not handed yet, by profile.
        self._claims: dict[str, Claim] = {}

    async def find(
        self, acceptors: Sequence[Sitter], others: Collection[str], count: int
    ) -> list[Sitter]:
        """At most ``count`` waiting friends of ``acceptors`` (seat order: the first whose
        friend someone is invites them), none of ``others`` (the old table's people), each
        taken out of the queue."""
        accepted = [a for a in acceptors if a.profile is not None]
        if count <= 0 or not accepted:
            return []
        found: list[Sitter] = []
        try:
            via: dict[str, Sitter] = {}
            shared: dict[str, int] = {}
            for acceptor in accepted:
                assert acceptor.profile is not None
                for person in await self._friends.store.friends(acceptor.profile):
                    if person.id in others:
                        continue
                    via.setdefault(person.id, acceptor)
                    shared[person.id] = shared.get(person.id, 0) + 1
            if not shared:
                return []
            waiting = await self._queue.entries(sorted(shared))
            waiting.sort(key=lambda e: (-shared[e.profile], e.joined_at, e.seq, e.profile))
            for entry in waiting:
                if len(found) == count:
                    break
                if await self._blocked(entry.profile, accepted):
                    continue
                claimed = await self._queue.claim([entry.profile], self._clock())
                if not claimed:  # (seated elsewhere, or left, meanwhile)
                    continue
                taken = claimed[0]
                self._claims[taken.profile] = Claim(taken, via[taken.profile])
                found.append(Sitter(taken.name, taken.profile))
        except Exception as error:  # (the queue or the database away: bots take the rest)
            log.warning("play again found no more waiting friends: %s", error)
        return found

    async def _blocked(self, profile: str, accepted: Sequence[Sitter]) -> bool:
        """Whether ``profile`` blocks, or is blocked by, anyone who will sit with them."""
        for acceptor in accepted:
            assert acceptor.profile is not None
            relation = await self._friends.store.relation(acceptor.profile, profile)
            if relation.blocks or relation.blocked_by:
                return True
        return False

    async def seated(self, sitter: Sitter, seat: Seated) -> None:
        """The friend's seat, left for their page to fetch (as quick match's), and an invite
        from their friend who accepted."""
        claim = self._claims.pop(sitter.profile or "", None)
        if claim is None:
            return
        profile = claim.entry.profile
        now = self._clock()
        place = seat.to_dict()
        try:
            await self._queue.seated(profile, place, now)
        except Exception as error:  # (their page finds nothing: the invite still leads there)
            log.warning("a waiting friend's seat was not kept for their page: %s", error)
        inviter = claim.friend_of
        assert inviter.profile is not None
        ms = int(now * 1000)
        invite = Invite(
            secrets.token_urlsafe(12),
            inviter.profile,
            profile,
            seat.code,
            str(place["link"]),
            ms,
            ms + INVITE_SECONDS * 1000,
            inviter.name,
        )
        try:
            kept = await self._friends.store.add_invite(invite, MOST_INVITES)
        except Exception as error:
            log.warning("a waiting friend's invite was not kept: %s", error)
            kept = False
        if kept:
            self._friends.presence.tell(profile, {"type": "invite", **invite.to_dict()})
        notice = Notice(
            "invite", invite.link, {"from": inviter.name, "table": seat.code}, f"invite:{seat.code}"
        )
        await self._notifier().notify(profile, notice)

    async def release(self, sitters: Sequence[Sitter]) -> None:
        """Friends found for a table that was not made: back in the queue, in their place."""
        entries = [
            claim.entry
            for claim in (self._claims.pop(s.profile or "", None) for s in sitters)
            if claim is not None
        ]
        if not entries:
            return
        try:
            await self._queue.put_back(entries)
        except Exception as error:  # (their mark runs out: their page stops waiting)
            log.warning("waiting friends were not put back in the queue: %s", error)
