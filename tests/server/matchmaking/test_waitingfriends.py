"""Play again's waiting friends (matchmaking/waitingfriends.py) on real parts: tables made by
the server's registry, profiles and friendships in a real players' database, the quick-match
queue in this process and in a real Redis (two "processes" sharing it). A friend of someone
who accepted, waiting in quick match, takes a declined seat (taken out of the queue, their
seat left for their page, an invite told live and to the notifier); nobody else does."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from fouronefour.server.background.botrunner import InlineBotRunner
from fouronefour.server.clock import ManualScheduler
from fouronefour.server.config import ServerConfig
from fouronefour.server.errors import ErrorCode
from fouronefour.server.friends.presence import Presence
from fouronefour.server.friends.service import Friends
from fouronefour.server.friends.store import FriendStore
from fouronefour.server.matchmaking.again import PlayAgain
from fouronefour.server.matchmaking.errors import MatchError
from fouronefour.server.matchmaking.queue import MAKING, QueueStore
from fouronefour.server.matchmaking.tablemaker import Seated, Sitter, make_table
from fouronefour.server.matchmaking.waitingfriends import WaitingFriends
from fouronefour.server.notify import Notice
from fouronefour.server.players.service import Players
from fouronefour.server.players.sqlite import sqlite_players
from fouronefour.server.registry import TableRegistry
from fouronefour.server.storage.sqlite import GroupCommitStorage
from fouronefour.server.tables.fanout import InProcessFanout
from fouronefour.server.tables.table import Table

from .test_queue import Opened, in_redis, local

OPTIONS = {"bot": "random", "turn_seconds": 5.0, "round_pause_seconds": 0.0}
Make = Callable[[Sequence[Sitter | None], dict[str, Any]], Awaitable[dict[int, Seated]]]


class Told:
    """The server's notifier as the rooms see it (notify.py): what it was asked to send."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Notice]] = []

    async def notify(self, profile_id: str, notice: Notice) -> int:
        self.sent.append((profile_id, notice))
        return 1


@dataclass(eq=False)
class ProfileSocket:
    """A profile's ``/ws/me`` as presence holds it: what it was sent."""

    profile: str
    got: list[dict[str, Any]] = field(default_factory=list)

    def send(self, message: dict[str, Any]) -> None:
        self.got.append(message)

    def close(self) -> None:
        return None


@dataclass(eq=False)
class World:
    registry: TableRegistry
    scheduler: ManualScheduler
    players: Players
    store: FriendStore
    friends: Friends
    told: Told
    opened: Opened
    queue: QueueStore

    async def profile(self, name: str) -> str:
        signed = await self.players.start_guest(None, name=name)
        current = await self.players.current(signed.token)
        assert current is not None
        return current.profile.id

    async def befriend(self, a: str, b: str) -> None:
        now = int(time.time() * 1000)
        assert await self.store.ask(a, b, now)
        assert await self.store.accept(b, a, now, 200) == "friends"

    async def wait(self, profile: str, name: str, after: float = 0.0) -> None:
        await self.queue.join(profile, name, 0.0, time.time() + after)

    async def finished(self, people: Sequence[Sitter | None]) -> tuple[Table, dict[int, Seated]]:
        """A table of ``people`` whose match the bots played out (nobody acts)."""
        seats = await make_table(self.registry, people, dict(OPTIONS))
        table = self.registry.tables[seats[0].code]
        self.scheduler.run_until_idle()
        assert table.status == "finished"
        return table, seats

    def make(self) -> Make:
        async def make(
            seats: Sequence[Sitter | None], options: dict[str, Any]
        ) -> dict[int, Seated]:
            return await make_table(self.registry, seats, options)

        return make

    async def again(self, queue: QueueStore | None = None, make: Make | None = None) -> PlayAgain:
        """Play again as build_matchmaking makes it: waiting friends from ``queue``."""
        substitutes = WaitingFriends(self.friends, queue or self.queue, lambda: self.told)
        return PlayAgain(make or self.make(), 30.0, substitutes=substitutes)

    async def new_table(self, again: PlayAgain, old: Table, token: str) -> Table:
        offer = again.look(old, {"token": token})["offer"]
        assert offer["state"] == "made", offer
        return self.registry.tables[offer["table"]["code"]]


def scenario(tmp_path: Path, store: str, work: Callable[[World], Awaitable[None]],
             request: pytest.FixtureRequest) -> None:  # fmt: skip
    if store == "local":
        opening = local
    else:
        url = request.getfixturevalue("redis_server").url
        opening = lambda: in_redis(url)  # noqa: E731

    async def main() -> None:
        tables = GroupCommitStorage(str(tmp_path / "tables.db"))
        scheduler = ManualScheduler()
        registry = TableRegistry(ServerConfig(seed=5), tables, InProcessFanout())
        await registry.start(scheduler, InlineBotRunner(lambda f: scheduler.call_later(0, f)))
        people = sqlite_players(str(tmp_path / "players.db"))
        await people.open()
        try:
            players = Players(people)
            told = Told()
            store = FriendStore(people.db)

            async def seated(code: str, invite: str | None) -> set[str] | None:
                return None

            friends = Friends(
                store, players.throttle, Presence(store.friend_ids), seated, lambda: told
            )
            async with opening() as opened:
                queue = await opened()
                await work(World(registry, scheduler, players, store, friends, told, opened, queue))
        finally:
            await people.close()
            tables.close()

    asyncio.run(main())


STORES = pytest.mark.parametrize("store", ["local", "redis"])


@STORES
@pytest.mark.parametrize("rotate", [False, True])
def test_a_friend_waiting_in_quick_match_takes_the_declined_seat(
    tmp_path: Path, store: str, rotate: bool, request: pytest.FixtureRequest
) -> None:
    async def work(w: World) -> None:
        ann, bob, cy, dee = [await w.profile(n) for n in ("Ann", "Bob", "Cy", "Dee")]
        await w.befriend(ann, dee)
        await w.wait(dee, "Dee")
        socket = ProfileSocket(dee)
        await w.friends.presence.attach(socket)
        old, seats = await w.finished(
            [Sitter("Ann", ann), Sitter("Bob", bob), Sitter("Cy", cy), None]
        )
        again = await w.again()
        again.offer(old, {"token": seats[0].token, "rotate": rotate})
        again.answer(old, {"token": seats[1].token, "accept": False})
        again.answer(old, {"token": seats[2].token, "accept": True})
        await again.settled()
        new = await w.new_table(again, old, seats[0].token)
        # Dee sits where Bob would have (rotated: seat 1 moves to 2), a bot where one was.
        bobs = 2 if rotate else 1
        assert new.seats[bobs].profile == dee and new.seats[bobs].name == "Dee"
        assert [s.kind for s in new.seats].count("bot") == 1
        assert new.options.public() == old.options.public()
        # Out of the queue; their seat is left for their page, as quick match's.
        assert await w.queue.entry(dee) is None
        seat = await w.queue.seat_of(dee, time.time())
        assert seat is not None and seat != MAKING
        assert (seat["code"], seat["seat"]) == (new.code, bobs)
        assert new.seat_for_token(seat["token"]) == bobs
        # An invite from Ann: kept (in Dee's export), told live, and to the notifier.
        assert [(p, n.kind, n.url, n.params) for p, n in w.told.sent] == [
            (dee, "invite", f"/t/{new.code}", {"from": "Ann", "table": new.code})
        ]
        invites = [m for m in socket.got if m.get("type") == "invite"]
        assert [(m["from"], m["code"], m["link"]) for m in invites] == [
            ({"id": ann, "name": "Ann"}, new.code, f"/t/{new.code}")
        ]
        exported = await w.friends.export(dee)
        assert [i["code"] for i in exported["invites_received"]] == [new.code]
        assert "hand" not in str(invites)  # (a seat's link and who invites: nothing more)
        # Bob, who declined, learns a friend took his seat, not which friend, nor the table.
        bob_view = again.look(old, {"token": seats[1].token})["offer"]
        assert [p.get("replaced_by") for p in bob_view["people"]] == [None, "friend", None]
        assert "Dee" not in str(bob_view) and "table" not in bob_view

    scenario(tmp_path, store, work, request)


@STORES
def test_a_stranger_or_a_blocked_friend_waiting_is_not_seated_a_bot_is(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    async def work(w: World) -> None:
        ann, bob, cy = [await w.profile(n) for n in ("Ann", "Bob", "Cy")]
        eve, dee, gus = [await w.profile(n) for n in ("Eve", "Dee", "Gus")]
        await w.befriend(ann, dee)
        await w.befriend(ann, gus)
        await w.store.block(gus, cy, int(time.time() * 1000))  # (Gus blocks Cy, who accepted)
        await w.store.block(ann, dee, int(time.time() * 1000))  # (Ann blocks Dee: no friends)
        await w.befriend(cy, bob)  # (Bob declines, then waits: no seat of his own table)
        for profile, name in ((eve, "Eve"), (dee, "Dee"), (gus, "Gus"), (bob, "Bob")):
            await w.wait(profile, name)
        old, seats = await w.finished(
            [Sitter("Ann", ann), Sitter("Bob", bob), Sitter("Cy", cy), Sitter("Guest", None)]
        )
        again = await w.again()
        again.offer(old, {"token": seats[0].token})
        again.answer(old, {"token": seats[1].token, "accept": False})
        again.answer(old, {"token": seats[2].token, "accept": True})
        again.answer(old, {"token": seats[3].token, "accept": False})
        await again.settled()
        new = await w.new_table(again, old, seats[0].token)
        assert [s.kind for s in new.seats] == ["human", "bot", "human", "bot"]
        view = again.look(old, {"token": seats[0].token})["offer"]
        assert [p.get("replaced_by") for p in view["people"]] == [None, "bot", None, "bot"]
        assert sorted(e.name for e in await w.queue.waiting()) == ["Bob", "Dee", "Eve", "Gus"]
        assert w.told.sent == []

    scenario(tmp_path, store, work, request)


@STORES
def test_with_nobody_waiting_bots_take_the_seats_as_before(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    async def work(w: World) -> None:
        ann, bob, dee = [await w.profile(n) for n in ("Ann", "Bob", "Dee")]
        await w.befriend(ann, dee)  # (a friend, but not waiting)
        old, seats = await w.finished([Sitter("Ann", ann), Sitter("Bob", bob), None, None])
        again = await w.again()
        again.offer(old, {"token": seats[0].token})
        again.answer(old, {"token": seats[1].token, "accept": False})
        await again.settled()
        new = await w.new_table(again, old, seats[0].token)
        assert [s.kind for s in new.seats] == ["human", "bot", "bot", "bot"]

    scenario(tmp_path, store, work, request)


@STORES
def test_friends_of_more_players_first_then_the_longest_waiting(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    async def work(w: World) -> None:
        ann, bob, cy = [await w.profile(n) for n in ("Ann", "Bob", "Cy")]
        dee, fay, hal = [await w.profile(n) for n in ("Dee", "Fay", "Hal")]
        for friend in (dee, fay, hal):
            await w.befriend(ann, friend)
        await w.befriend(cy, fay)  # (Fay: a friend of both who accept)
        await w.wait(hal, "Hal", after=2.0)
        await w.wait(dee, "Dee", after=1.0)  # (Dee waits longer than Hal)
        await w.wait(fay, "Fay", after=3.0)
        old, seats = await w.finished(
            [Sitter("Ann", ann), Sitter("Bob", bob), Sitter("Cy", cy), None]
        )
        again = await w.again()
        again.offer(old, {"token": seats[0].token})
        again.answer(old, {"token": seats[1].token, "accept": False})
        again.answer(old, {"token": seats[2].token, "accept": True})
        await again.settled()
        new = await w.new_table(again, old, seats[0].token)
        # Bob's seat to Fay (two friends at the table), the bot's to Dee (waited longest).
        assert [s.name for s in new.seats] == ["Ann", "Fay", "Cy", "Dee"]
        assert [e.name for e in await w.queue.waiting()] == ["Hal"]

    scenario(tmp_path, store, work, request)


@STORES
def test_a_friend_two_offers_want_at_once_is_seated_once(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    async def work(w: World) -> None:
        ann, bob, cy, eli, dee = [await w.profile(n) for n in ("Ann", "Bob", "Cy", "Eli", "Dee")]
        await w.befriend(ann, dee)
        await w.befriend(cy, dee)
        await w.wait(dee, "Dee")
        first, first_seats = await w.finished([Sitter("Ann", ann), Sitter("Bob", bob), None, None])
        second, second_seats = await w.finished([Sitter("Cy", cy), Sitter("Eli", eli), None, None])
        # Two offers, each at its own process's play again (in Redis: its own connection).
        one, two = await w.again(), await w.again(await w.opened())
        for again, old, seats in ((one, first, first_seats), (two, second, second_seats)):
            again.offer(old, {"token": seats[0].token})
        one.answer(first, {"token": first_seats[1].token, "accept": False})
        two.answer(second, {"token": second_seats[1].token, "accept": False})
        await asyncio.gather(one.settled(), two.settled())
        made = [
            await w.new_table(one, first, first_seats[0].token),
            await w.new_table(two, second, second_seats[0].token),
        ]
        dees = [s for t in made for s in t.seats if s.profile == dee]
        assert len(dees) == 1
        assert [s.kind for t in made for s in t.seats].count("bot") == 5
        assert await w.queue.entry(dee) is None
        assert len(w.told.sent) == 1

    scenario(tmp_path, store, work, request)


@STORES
def test_a_table_not_made_puts_the_friend_back_in_the_queue(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    async def work(w: World) -> None:
        ann, bob, dee = [await w.profile(n) for n in ("Ann", "Bob", "Dee")]
        await w.befriend(ann, dee)
        await w.wait(dee, "Dee")
        before = await w.queue.entry(dee)
        old, seats = await w.finished([Sitter("Ann", ann), Sitter("Bob", bob), None, None])
        tried: list[Sequence[Sitter | None]] = []

        async def refusing(seats: Sequence[Sitter | None], options: dict[str, Any]) -> Any:
            tried.append(seats)
            raise MatchError(ErrorCode.STORAGE_ERROR, "the database is away")

        again = await w.again(make=refusing)
        again.offer(old, {"token": seats[0].token})
        again.answer(old, {"token": seats[1].token, "accept": False})
        await again.settled()
        assert again.look(old, {"token": seats[0].token})["offer"]["state"] == "failed"
        assert [s.name if s else None for s in tried[0]] == ["Ann", "Dee", None, None]
        assert await w.queue.entry(dee) == before  # (in their place again)
        assert await w.queue.seat_of(dee, time.time()) is None
        assert w.told.sent == []

    scenario(tmp_path, store, work, request)
