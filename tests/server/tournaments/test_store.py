"""The events' store on SQLite and on PostgreSQL (tournaments/store.py): what one store
wrote a second one over the same place reads (a restart, another process), and each change
that two processes could race is made once."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from fouronefour.server.players.ratings import NEWCOMER
from fouronefour.server.players.sqlstore import SqlPlayerStore
from fouronefour.server.players.values import FORMER_PLAYER, Profile
from fouronefour.server.tournaments.store import EventStore, Full, Taken
from fouronefour.server.tournaments.values import Event, Game, Setup
from tests.server.playerstores import StoreFactory

T = TypeVar("T")


def run(make: StoreFactory, scenario: Callable[[SqlPlayerStore, EventStore], Awaitable[T]]) -> T:
    async def main() -> T:
        players = make()
        await players.open()
        try:
            return await scenario(players, EventStore(players.db))
        finally:
            await players.close()

    return asyncio.run(main())


def event(event_id: str = "ev1", club: str = "club1") -> Event:
    setup = Setup("Thursday cup", "swiss", "pairs", 3, "round", 30, "greedy")
    return Event(event_id, club, setup, "open", 0, 4242, "ann", 1_000)


async def people(players: SqlPlayerStore, *names: str) -> None:
    for name in names:
        await players.create_profile(Profile(name, name.title(), "fox", "en", 1, 1, None, NEWCOMER))


def test_an_event_and_its_players_read_back(make_store: StoreFactory) -> None:
    async def write(players: SqlPlayerStore, events: EventStore) -> None:
        await people(players, "ann", "bob", "cat")
        await events.create(event())
        await events.register("ev1", "ann", ["ann", "bob"], 2_000, 8)
        await events.register("ev1", "cat", ["cat"], 3_000, 8)
        with pytest.raises(Taken):
            await events.register("ev1", "bob", ["bob"], 4_000, 8)
        with pytest.raises(Full):
            await events.register("ev1", "dan", ["dan"], 4_000, 2)

    async def read(players: SqlPlayerStore, events: EventStore) -> None:
        assert await events.get("ev1") == event()
        assert await events.get("nope") is None
        found = await events.players("ev1")
        assert [(p.profile_id, p.team, p.name) for p in found] == [
            ("ann", "ann", "Ann"),
            ("bob", "ann", "Bob"),
            ("cat", "cat", "Cat"),
        ]
        assert [e.id for e in await events.of_club("club1", 10)] == ["ev1"]
        assert await events.count_unfinished("club1") == 1
        assert await events.unregister("ev1", "bob")  # (the pair goes: both partners)
        assert [p.profile_id for p in await events.players("ev1")] == ["cat"]

    run(make_store, write)
    run(make_store, read)


def test_a_start_and_a_round_happen_once(make_store: StoreFactory) -> None:
    async def scenario(players: SqlPlayerStore, events: EventStore) -> None:
        await people(players, "ann", "bob", "cat", "dan")
        await events.create(event())
        for name in ("ann", "bob", "cat", "dan"):
            await events.register("ev1", name, [name], 2_000, 8)
        teams = {"bob": "ann", "dan": "cat"}
        assert await events.start("ev1", ["cat", "ann"], teams)
        assert not await events.start("ev1", ["ann", "cat"], {})
        started = await events.get("ev1")
        assert started is not None and started.status == "running"
        assert started.seeds == ("cat", "ann")
        assert {p.profile_id: p.team for p in await events.players("ev1")} == {
            "ann": "ann", "bob": "ann", "cat": "cat", "dan": "cat"}  # fmt: skip
        with pytest.raises(LookupError):  # (registration closes with the start)
            await events.register("ev1", "eve", ["eve"], 5_000, 8)
        assert not await events.unregister("ev1", "ann")
        games = [Game(1, 0, ("cat",), ("ann",))]
        assert await events.add_round("ev1", 1, games)
        assert not await events.add_round("ev1", 1, games)  # (paired by another process)
        assert [e.id for e in await events.running()] == ["ev1"]
        lobby = Game(1, 0, ("cat",), ("ann",), "ABCDE", "s3cret", "lobby", created_at=9)
        assert await events.set_game("ev1", lobby, "new")
        assert not await events.set_game("ev1", lobby, "new")
        decided = Game(1, 0, ("cat",), ("ann",), "ABCDE", "s3cret", "decided", "east", -2, 9)
        assert await events.set_game("ev1", decided, "lobby")
        assert await events.games("ev1") == [decided]
        assert await events.finish("ev1", 10_000)
        assert not await events.finish("ev1", 11_000)
        assert await events.running() == []
        assert await events.count_unfinished("club1") == 0

    run(make_store, scenario)


def test_a_deleted_profile_is_nameless_and_leaves_open_events(make_store: StoreFactory) -> None:
    async def scenario(players: SqlPlayerStore, events: EventStore) -> None:
        await people(players, "ann", "bob")
        await events.create(event("played"))
        await events.create(event("open"))
        for event_id in ("played", "open"):
            await events.register(event_id, "ann", ["ann"], 2_000, 8)
            await events.register(event_id, "bob", ["bob"], 2_000, 8)
        await events.start("played", ["ann", "bob"], {})
        exported = await events.of_profile("ann")
        assert [e["event"] for e in exported] == ["open", "played"]
        assert exported[1]["name"] == "Thursday cup" and exported[1]["status"] == "running"
        await players.delete_profile("ann")
        assert await events.forget_profile("ann") == 1
        assert [p.profile_id for p in await events.players("open")] == ["bob"]
        assert [p.name for p in await events.players("played")] == [FORMER_PLAYER, "Bob"]

    run(make_store, scenario)
