"""The quick-match pass on a simulated clock, with the server's real registry making the
tables and a real players' store: who is seated when, what a failed table gives back, and a
profile deleted while it waits."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from fouronefour.server.background.botrunner import InlineBotRunner
from fouronefour.server.clock import ManualScheduler
from fouronefour.server.config import ServerConfig
from fouronefour.server.matchmaking.pairing import Spread
from fouronefour.server.matchmaking.queue import LocalQueue
from fouronefour.server.matchmaking.quickmatch import Person, Present, QuickMatch
from fouronefour.server.matchmaking.tablemaker import Seated, Sitter, make_table
from fouronefour.server.players.service import Players
from fouronefour.server.players.sqlite import sqlite_players
from fouronefour.server.registry import TableRegistry
from fouronefour.server.storage.sqlite import GroupCommitStorage
from fouronefour.server.tables.fanout import InProcessFanout


class Clock:
    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


Scenario = Callable[[TableRegistry, Players, Path], Awaitable[None]]


def run(tmp_path: Path, scenario: Scenario, max_tables: int = 100) -> None:
    async def go() -> None:
        storage = GroupCommitStorage(str(tmp_path / "tables.db"))
        players = Players(sqlite_players(str(tmp_path / "players.db")))
        await players.store.open()
        scheduler = ManualScheduler()
        config = ServerConfig(seed=3, max_tables=max_tables)
        registry = TableRegistry(config, storage, InProcessFanout())
        await registry.start(scheduler, InlineBotRunner(lambda f: scheduler.call_later(0, f)))
        try:
            await scenario(registry, players, tmp_path)
        finally:
            await players.store.close()
            storage.close()

    asyncio.run(go())


def quick_match(
    registry: TableRegistry, clock: Clock, present: Present | None = None
) -> QuickMatch:
    async def make(seats: Sequence[Sitter | None], options: dict[str, Any]) -> dict[int, Seated]:
        return await make_table(registry, seats, options)

    spread = Spread(bot_fill_seconds=30.0)
    if present is None:
        return QuickMatch(LocalQueue(), make, spread, clock)
    return QuickMatch(LocalQueue(), make, spread, clock, present=present)


def test_people_wait_until_four_fit_or_the_bots_come(tmp_path: Path) -> None:
    async def scenario(registry: TableRegistry, _: Players, __: Path) -> None:
        clock = Clock()
        quick = quick_match(registry, clock)
        ann, bob = Person("ann", "Ann", 10.0), Person("bob", "Bob", 11.0)
        await quick.join(ann)
        clock.now += 5
        await quick.join(bob)
        assert await quick.match_once() == []
        waiting = await quick.status(ann)
        assert waiting["state"] == "waiting" and waiting["waited_ms"] == 5000
        assert waiting["bots_after_ms"] == 25_000 and waiting["waiting"] == 2
        clock.now += 25  # (Ann has waited 30 s: bots fill her table, Bob's rating fits)
        made = await quick.match_once()
        assert len(made) == 1 and made[0].bots == 2
        seats = [await quick.status(p) for p in (ann, bob)]
        assert [s["state"] for s in seats] == ["seated", "seated"]
        table = registry.tables[seats[0]["code"]]
        assert table.options.rated and table.status == "playing"
        assert [s.profile for s in table.seats] == ["ann", "bob", None, None]
        assert [table.seat_for_token(s["token"]) for s in seats] == [0, 1]
        assert table.options.bot == "beginner"  # (its ordinal, 13.8, is nearest 10.5)

    run(tmp_path, scenario)


def test_a_table_that_cannot_be_made_gives_its_people_back_their_places(
    tmp_path: Path,
) -> None:
    async def scenario(registry: TableRegistry, _: Players, __: Path) -> None:
        clock = Clock()
        quick = quick_match(registry, clock)
        first = [Person(f"a{i}", f"A{i}", 0.0) for i in range(4)]
        for person in first:
            await quick.join(person)
        assert len(await quick.match_once()) == 1  # (the server's one table, being played)
        clock.now += 1
        second = [Person(f"b{i}", f"B{i}", 0.0) for i in range(4)]
        for person in second:
            await quick.join(person)
        before = await quick.queue.entry("b0")
        assert await quick.match_once() == []  # (too_many_tables: nothing is made)
        assert (await quick.status(second[0]))["state"] == "waiting"
        assert await quick.queue.entry("b0") == before  # (the same place in the queue)

    run(tmp_path, scenario, max_tables=1)


def test_a_profile_deleted_while_it_waits_is_never_seated(tmp_path: Path) -> None:
    async def scenario(registry: TableRegistry, players: Players, _: Path) -> None:
        clock = Clock()

        async def present(profile: str) -> bool:
            found = await players.store.get_profile(profile)
            return found is not None and not found.deleted

        quick = quick_match(registry, clock, present)
        guests = [(await players.start_guest(None)).profile for _ in range(4)]
        people = [Person(g.id, g.name, 0.0) for g in guests]
        for person in people:
            await quick.join(person)
        await players.store.delete_profile(guests[0].id)
        assert await quick.match_once() == []
        assert await quick.queue.entry(guests[0].id) is None
        clock.now += 30  # (the other three: bots fill the fourth seat)
        made = await quick.match_once()
        assert len(made) == 1 and {e.profile for e in made[0].people} == {g.id for g in guests[1:]}

    run(tmp_path, scenario)
