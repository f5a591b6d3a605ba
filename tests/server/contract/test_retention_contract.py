"""Old tables' deletion (``--keep-days``) does the same over SQLite (retention.py) and a
cluster's PostgreSQL (pgretention.py); on PostgreSQL one process runs a pass at a time and
a table some process owns is never deleted."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

from fouronefour.server.storage import (
    Change,
    ChangeExtra,
    NewMatch,
    OldTables,
    Storage,
    StoredAnalysis,
    StoredSeat,
    StoredTable,
)
from fouronefour.server.storage.retention import DAY
from fouronefour.server.storage.sqlite import GroupCommitStorage
from fouronefour.server.storage.sqlite_retention import Retention, ThreadedRetention
from tests import sandbox

T = TypeVar("T")


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Place:
    """One database (a fresh one: a pass surveys every table in it), its storages and its
    retention."""

    kind: str
    storage: Callable[[], Storage]
    retention: Callable[[Clock], OldTables]


@pytest.fixture(params=["sqlite", "postgres"])
def place(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Place]:
    if request.param == "sqlite":
        path = str(tmp_path / "retention.db")
        yield Place(
            "sqlite",
            lambda: GroupCommitStorage(path),
            lambda clock: ThreadedRetention(Retention(path, 30, 10, clock=clock)),
        )
        return
    postgres: sandbox.LocalPostgres = request.getfixturevalue("postgres")
    url = postgres.new_database()
    from fouronefour.server.storage.postgres import PostgresStorage
    from fouronefour.server.storage.postgres_retention import PostgresRetention

    yield Place(
        "postgres",
        lambda: PostgresStorage(url),
        lambda clock: PostgresRetention(url, 30, 10, clock=clock),
    )


def lobby(code: str) -> StoredTable:
    seats = [StoredSeat(0, "Ann", "human", "h0"), StoredSeat(1, None, "empty", None)]
    return StoredTable(code, {"players": 2, "decks": None}, 0, "lobby", 1, 0, seats)


def played(code: str, status: str) -> list[Change]:
    """A match started; its end too if ``status`` is finished (its round due for analysis)."""
    changes = [
        Change(code, 2, "playing", 1, new_match=NewMatch(1, 5, {"players": 2})),
        Change(code, 3, "playing", 1, moves=("3",), first_move_index=0, table_row=False),
    ]
    if status == "finished":
        changes.append(
            Change(
                code,
                4,
                "finished",
                1,
                moves=("5",),
                first_move_index=1,
                match_over=True,
                extra=ChangeExtra(analysis=(1, 1)),
            )
        )
    return changes


async def write(storage: Storage, tables: dict[str, str]) -> None:
    """Tables of these codes, each ending in its status (lobby, playing, finished)."""
    last = 0
    for code, status in tables.items():
        assert await storage.own(code)
        await storage.insert_table(lobby(code))
        for change in played(code, status) if status != "lobby" else []:
            last = storage.commit(change)
    await asyncio.wait_for(storage.wait_durable(last), 10)


def run(place: Place, scenario: Callable[[Storage], Awaitable[T]]) -> T:
    async def main() -> T:
        storage = place.storage()
        await storage.open()
        try:
            return await scenario(storage)
        finally:
            await storage.shutdown()

    return asyncio.run(main())


def test_old_tables_go_their_finished_matches_stay(place: Place) -> None:
    tables = {"FINISH": "finished", "LOBBYT": "lobby", "PLAYIN": "playing", "CHANGE": "lobby"}
    run(place, lambda storage: write(storage, tables))
    clock = Clock()

    async def passes() -> tuple[list[str], list[str]]:
        retention = place.retention(clock)
        try:
            async with retention.turn() as mine:
                assert mine
                assert await retention.survey() == []  # noted now
                clock.now += 31 * DAY
                due = dict(await retention.survey())
                # Between the survey and the deletion a table changes: it stays.
                await changed(place)
                deleted = await retention.retire(due.items())
                archived = await retention.archived("FINISH")
                assert archived == (
                    {
                        1: [
                            {"seat": 0, "name": "Ann", "kind": "human"},
                            {"seat": 1, "name": None, "kind": "empty"},
                        ]
                    },
                    None,
                )
                assert await retention.archived("LOBBYT") == ({}, None)
                assert await analysis_of(place) == StoredAnalysis(1, 1)  # kept with its match
                assert await retention.expire_replays() == 0  # kept 10 days
                clock.now += 11 * DAY
                assert await retention.expire_replays() == 1
                assert await retention.archived("FINISH") == ({}, None)
                return sorted(due), sorted(deleted)
        finally:
            await retention.close()

    async def analysis_of(place: Place) -> StoredAnalysis | None:
        storage = place.storage()
        await storage.open()
        try:
            return await storage.fetch_analysis("FINISH", 1, 1)
        finally:
            await storage.shutdown()

    async def changed(place: Place) -> None:
        storage = place.storage()
        await storage.open()
        try:
            assert await storage.own("CHANGE")
            seat = (StoredSeat(1, "Bob", "human", "h1"),)
            seq = storage.commit(Change("CHANGE", 2, "lobby", 0, seats=seat))
            await storage.wait_durable(seq)
        finally:
            await storage.shutdown()

    due, deleted = asyncio.run(passes())
    assert due == ["CHANGE", "FINISH", "LOBBYT"]  # not the one being played
    assert deleted == ["FINISH", "LOBBYT"]

    async def left(storage: Storage) -> list[object]:
        return [
            await storage.fetch_table("FINISH"),
            await storage.fetch_table("LOBBYT"),
            (await storage.fetch_table("PLAYIN")) is not None,
            (await storage.fetch_table("CHANGE")) is not None,
            await storage.fetch_match("FINISH", 1),
            await storage.code_taken("FINISH"),
            await storage.fetch_analysis("FINISH", 1, 1),
        ]

    assert run(place, left) == [None, None, True, True, None, False, None]


@pytest.mark.parametrize("place", ["postgres"], indirect=True)  # (SQLite: one process)
def test_postgres_one_pass_at_a_time_and_never_an_owned_table(place: Place) -> None:
    run(place, lambda storage: write(storage, {"HELDBY": "lobby", "FREETB": "lobby"}))
    clock = Clock()

    async def passes() -> tuple[bool, list[str], list[str]]:
        first, second = place.retention(clock), place.retention(clock)
        owner = place.storage()
        await owner.open()
        try:
            assert await owner.own("HELDBY")  # a process holds it in memory
            async with first.turn() as mine:
                assert mine
                async with second.turn() as also:
                    both = also
                await first.survey()
                clock.now += 31 * DAY
                due = await first.survey()
                deleted = await first.retire(due)
            await owner.shutdown()  # let go of it
            async with second.turn() as mine:
                assert mine
                later = await second.retire(await second.survey())
            return both, sorted(deleted), later
        finally:
            await owner.shutdown()
            await first.close()
            await second.close()

    both, deleted, later = asyncio.run(passes())
    assert not both
    assert deleted == ["FREETB"]
    assert later == ["HELDBY"]
