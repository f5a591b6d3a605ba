"""The clubs over a real players' database, SQLite and PostgreSQL (each test runs on
both): the players' store, the clubs' service over the same database, and a clock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import pytest

from fouronefour.server.clubs.service import Clubs
from fouronefour.server.clubs.store import ClubStore
from fouronefour.server.clubs.throttle import ClubThrottle
from fouronefour.server.players.ratings import NEWCOMER
from fouronefour.server.players.sqlstore import SqlPlayerStore
from fouronefour.server.players.values import Profile
from tests.server.playerstores import StoreFactory

T = TypeVar("T")


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class World:
    players: SqlPlayerStore
    clubs: Clubs
    clock: Clock

    async def profile(self, pid: str, name: str = "") -> str:
        now = int(self.clock.now * 1000)
        await self.players.create_profile(
            Profile(pid, name or pid.title(), "fox", "en", now, now, None, NEWCOMER)
        )
        return pid


Scenario = Callable[[Callable[[World], Awaitable[T]]], T]


@pytest.fixture
def world(make_store: StoreFactory) -> Iterator[Scenario[object]]:
    """Runs a scenario over a fresh database of the parameter's kind."""
    make = make_store

    def run(scenario: Callable[[World], Awaitable[object]]) -> object:
        async def main() -> object:
            players = make()
            await players.open()
            clock = Clock()
            clubs = Clubs(ClubStore(players.db), ClubThrottle(clock=clock), clock=clock)
            try:
                return await scenario(World(players, clubs, clock))
            finally:
                await players.close()

        return asyncio.run(main())

    yield run
