"""Play again: when a match ends the host offers its players a new table, with the same
partners or rotated ones; each person accepts or declines (or does not answer in time), and
the new table is made with those who accepted, each at their seat (rotated: every seat but
the host's first moves one place on, so partners change as the seats rotate), a waiting friend
of theirs (:class:`Substitutes`: waitingfriends.py) or else a bot in every other seat. The
new table keeps the old one's options: rated or casual, rules, timers, bots, private.

The offer lives with the old table's owner (in a cluster, calls reach it relayed as a join
does), and it is proved by the seat tokens of the table that ended: a player's token is
their say, a token that is no seat's is refused (``not_seated``; at a private table, as a
code that is no table). An offer left is forgotten ``KEEP_SECONDS`` after it is settled.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..errors import ErrorCode, TableError
from ..notify import Notice, Notifier, Silent
from ..tables import invites
from ..tables.matches import NEXT_TABLES
from ..tables.model import OPTION_KEYS, hash_token
from ..tables.state import check_not_event_table
from .errors import MatchError
from .tablemaker import Seated, Sitter

if TYPE_CHECKING:
    from ..cluster.relay import Operation
    from ..tables.table import Table
    from .quickmatch import TableMaker

log = logging.getLogger(__name__)

#: Seconds the players have to answer (``--again-seconds``).
ANSWER_SECONDS = 30.0
#: Seconds a settled offer (its seats fetched by the players' pages) is kept.
KEEP_SECONDS = 600.0

State = Literal["open", "making", "made", "failed"]


def rotated_seat(seat: int, players: int) -> int:
    """Where the player at ``seat`` sits after one rotation: the first seat stays, the others
    move one place on (4 players: 1 to 2, 2 to 3, 3 to 1), so everyone's partner changes."""
    if seat == 0 or players < 3:
        return seat
    return 1 + seat % (players - 1)


class Substitutes(Protocol):
    """Who takes a seat whose player declined, before a bot does (waitingfriends.py: a
    friend of those who accepted, waiting in quick match). :meth:`find` returns people to
    seat, at most ``count``, none of ``others`` (the old table's people), each set aside for
    this table; :meth:`seated` hands each their seat (their own way: their page's status, a
    notice); :meth:`release` gives back those a table that was not made will not seat."""

    async def find(
        self, acceptors: Sequence[Sitter], others: Collection[str], count: int
    ) -> list[Sitter]: ...

    async def seated(self, sitter: Sitter, seat: Seated) -> None: ...

    async def release(self, sitters: Sequence[Sitter]) -> None: ...


class Bots:
    """No substitutes: bots take the seats of those who declined."""

    async def find(
        self, acceptors: Sequence[Sitter], others: Collection[str], count: int
    ) -> list[Sitter]:
        return []

    async def seated(self, sitter: Sitter, seat: Seated) -> None:
        return None

    async def release(self, sitters: Sequence[Sitter]) -> None:
        return None


@dataclass(eq=False)
class Offer:
    """One table's offer to play again."""

    code: str
    #: The match that ended (the same table may play on, and end again).
    match_number: int
    rotate: bool
    players: int
    made_at: float
    deadline: float
    #: The people of the match that ended, by their seat there, and their tokens' hashes.
    people: dict[int, Sitter]
    token_hashes: dict[int, str]
    options: dict[str, Any]
    answers: dict[int, bool] = field(default_factory=dict)
    state: State = "open"
    seats: dict[int, Seated] = field(default_factory=dict)
    #: The new table's seats a substitute (a waiting friend) took, rather than a bot.
    substituted: set[int] = field(default_factory=set)
    settled_at: float | None = None

    def new_seat(self, seat: int) -> int:
        return rotated_seat(seat, self.players) if self.rotate else seat

    def seat_of(self, token: object) -> int | None:
        if not isinstance(token, str) or not token or len(token) > 200:
            return None
        digest = hash_token(token)
        for seat, held in self.token_hashes.items():
            if hmac.compare_digest(held, digest):
                return seat
        return None

    def due(self, now: float) -> bool:
        """Whether the new table is to be made: everyone answered, or the time is up."""
        return self.state == "open" and (
            now >= self.deadline or len(self.answers) == len(self.people)
        )

    def plan(self, substitutes: Sequence[Sitter] = ()) -> list[Sitter | None]:
        """The new table's seats: who accepted, at their (rotated) seat; then substitutes,
        in the seats of those who declined first, then in those bots held; None (a bot)
        elsewhere."""
        seats: list[Sitter | None] = [None] * self.players
        for old, person in self.people.items():
            if self.answers.get(old):
                seats[self.new_seat(old)] = person
        declined = sorted(self.new_seat(old) for old in self.people if not self.answers.get(old))
        spare = iter(substitutes)
        for i in [*declined, *(i for i in range(self.players) if i not in declined)]:
            if seats[i] is None:
                seats[i] = next(spare, None)
        return seats

    def view(self, seat: int, now: float) -> dict[str, Any]:
        """What a player of the offer sees: everyone's answer (names are public at the
        table), the time left, and their own new seat once it is made."""
        body: dict[str, Any] = {
            "state": self.state,
            "rotate": self.rotate,
            "left_ms": max(0, round((self.deadline - now) * 1000)),
            "seat": seat,
            "people": [
                {
                    "seat": old,
                    "new_seat": self.new_seat(old),
                    "name": person.name,
                    "answer": _answer(self.answers.get(old)),
                    **self._replaced(old),
                }
                for old, person in sorted(self.people.items())
            ],
        }
        mine = self.seats.get(self.new_seat(seat))
        if mine is not None and self.answers.get(seat):
            body["table"] = mine.to_dict()
        return body

    def _replaced(self, old: int) -> dict[str, str]:
        """Who took the seat of a player who did not accept, once made: a waiting friend or
        a bot (never which friend: a player who declined is no table-mate of theirs)."""
        if self.state != "made" or self.answers.get(old):
            return {}
        return {"replaced_by": "friend" if self.new_seat(old) in self.substituted else "bot"}


def _answer(given: bool | None) -> str:
    return "waiting" if given is None else ("accepted" if given else "declined")


def new_table_options(table: Table) -> dict[str, Any]:
    """The old table's options as a create request: the same rules, timers, bot, rated or
    casual, private or not (a new invite), and its settings."""
    public = table.options.public()
    options = {k: v for k, v in public.items() if k in OPTION_KEYS}
    return {**options, **table.settings.to_dict()}


class PlayAgain:
    """The offers of the tables this process owns."""

    def __init__(
        self,
        make: TableMaker,
        answer_seconds: float = ANSWER_SECONDS,
        clock: Callable[[], float] = time.time,
        notifier: Callable[[], Notifier] | None = None,
        substitutes: Substitutes | None = None,
    ) -> None:
        self._make = make
        self.answer_seconds = answer_seconds
        self._clock = clock
        #: The server's notifier as it is now (Web Push replaces the silent one at start).
        self._notifier: Callable[[], Notifier] = notifier or Silent
        self.substitutes: Substitutes = substitutes or Bots()
        self.offers: dict[str, Offer] = {}
        self._tasks: set[asyncio.Future[Any]] = set()

    def operations(self) -> dict[str, Operation]:
        """The calls the old table's owner carries out (relay.py relays them to it)."""
        return {"again": self.offer, "again_answer": self.answer, "again_view": self.look}

    # ------------------------------------------------------------ the calls

    def offer(self, table: Table, body: dict[str, Any]) -> dict[str, Any]:
        """The host offers the players a new table (``rotate``: partners change)."""
        now = self._clock()
        seat = self._player(table, body)
        if seat != table.host_seat:
            raise TableError(ErrorCode.NOT_HOST, "the host offers to play again")
        if table.status != "finished":
            raise TableError(ErrorCode.WRONG_STATUS, "play again once the match is over")
        check_not_event_table(table.options, NEXT_TABLES)
        rotate = body.get("rotate", False)
        if not isinstance(rotate, bool):
            raise TableError(ErrorCode.BAD_MESSAGE, "rotate must be true or false")
        current = self.offers.get(table.code)
        if (  # (one new table a match)
            current is not None
            and current.match_number == table.match_number
            and current.state != "failed"
        ):
            raise TableError(ErrorCode.WRONG_STATUS, "this table's players were offered already")
        self._tidy(now)
        humans = [s for s in table.seats if s.kind == "human" and s.token_hash is not None]
        offer = Offer(
            table.code,
            table.match_number,
            rotate,
            table.players,
            now,
            now + self.answer_seconds,
            {s.seat: Sitter(s.name or "", s.profile) for s in humans},
            {s.seat: s.token_hash for s in humans if s.token_hash is not None},
            new_table_options(table),
        )
        offer.answers[seat] = True  # (the host's offer is their yes)
        self.offers[table.code] = offer
        self._later(self.answer_seconds, lambda: self._settle(offer))
        host = offer.people[seat].name
        for old, person in offer.people.items():
            if old != seat and person.profile is not None:
                notice = Notice(
                    "invite",
                    f"/t/{table.code}",
                    {"from": host, "table": table.code},
                    f"again-{table.code}",
                )
                self._spawn(self._notifier().notify(person.profile, notice))
        self._settle(offer)
        return {"offer": offer.view(seat, now)}

    def answer(self, table: Table, body: dict[str, Any]) -> dict[str, Any]:
        """A player accepts or declines (once; the time left counts)."""
        now = self._clock()
        seat = self._player(table, body)
        offer = self._open_offer(table, seat)
        accept = body.get("accept")
        if not isinstance(accept, bool):
            raise TableError(ErrorCode.BAD_MESSAGE, "accept must be true or false")
        if offer.due(now) or offer.state != "open":
            self._settle(offer)
            raise TableError(ErrorCode.WRONG_STATUS, "the offer is closed: its table is made")
        if seat in offer.answers:
            raise TableError(ErrorCode.ALREADY_ANSWERED, "you answered this offer already")
        offer.answers[seat] = accept
        self._settle(offer)
        return {"offer": offer.view(seat, now)}

    def look(self, table: Table, body: dict[str, Any]) -> dict[str, Any]:
        """The offer as the asking player sees it (their new seat once made), or none."""
        now = self._clock()
        seat = self._player(table, body)
        offer = self.offers.get(table.code)
        if offer is None or seat not in offer.people or offer.match_number != table.match_number:
            return {"offer": None}
        self._settle(offer)
        return {"offer": offer.view(seat, now)}

    # ------------------------------------------------------------ the new table

    def _player(self, table: Table, body: dict[str, Any]) -> int:
        """The asking player's seat at ``table``, proved by its token."""
        seat = table.seat_for_token(body.get("token"))
        if seat is None:
            offer = self.offers.get(table.code)
            seat = offer.seat_of(body.get("token")) if offer is not None else None
        if seat is None:
            if table.options.invite_hash is not None:  # (a private table stays hidden)
                raise invites.not_found(table.code)
            raise TableError(ErrorCode.NOT_SEATED, "play again is for the table's players")
        return seat

    def _open_offer(self, table: Table, seat: int) -> Offer:
        offer = self.offers.get(table.code)
        if offer is None or seat not in offer.people or offer.match_number != table.match_number:
            raise TableError(ErrorCode.WRONG_STATUS, "nobody offered to play again here")
        return offer

    def _settle(self, offer: Offer) -> None:
        """Make the new table once the offer is due (once)."""
        if not offer.due(self._clock()):
            return
        offer.state = "making"
        self._spawn(self._build(offer))

    async def _build(self, offer: Offer) -> None:
        found: list[Sitter] = []
        handed: set[int] = set()  # (the substitutes seated, by id: names may repeat)
        try:
            if not any(offer.answers.get(s) for s in offer.people):
                offer.state = "failed"
                return
            found = await self._substitutes_for(offer)
            plan = offer.plan(found)
            offer.seats = await self._make(plan, dict(offer.options))
            offer.state = "made"
            for seat, sitter in enumerate(plan):
                if any(sitter is f for f in found) and seat in offer.seats:
                    assert sitter is not None
                    handed.add(id(sitter))
                    offer.substituted.add(seat)
                    await self.substitutes.seated(sitter, offer.seats[seat])
        except MatchError as error:
            log.warning("table %s: the play-again table was not made: %s", offer.code, error)
            offer.state = "failed"
        finally:
            offer.settled_at = self._clock()
            left = [f for f in found if id(f) not in handed]
            if left:
                await self.substitutes.release(left)

    async def _substitutes_for(self, offer: Offer) -> list[Sitter]:
        """Who takes the seats nobody who accepted holds, before bots (none: bots)."""
        missing = sum(1 for s in offer.people if not offer.answers.get(s))
        missing += offer.players - len(offer.people)
        if not missing:
            return []
        acceptors = [p for s, p in sorted(offer.people.items()) if offer.answers.get(s)]
        everyone = {p.profile for p in offer.people.values() if p.profile is not None}
        return await self.substitutes.find(acceptors, everyone, missing)

    def _tidy(self, now: float) -> None:
        for code, offer in list(self.offers.items()):
            if offer.settled_at is not None and offer.settled_at + KEEP_SECONDS < now:
                del self.offers[code]

    def _later(self, seconds: float, work: Callable[[], None]) -> None:
        # (no loop: a test settles the offer by looking at it after the deadline)
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().call_later(seconds + 0.05, work)

    def _spawn(self, work: Any) -> None:
        try:
            task = asyncio.get_running_loop().create_task(work)
        except RuntimeError:
            work.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def settled(self) -> None:
        """Return once the tables being made are (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
