"""The registry keeps at most ``max_tables`` tables in memory and reads the others back."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from fouronefour.server.background.botrunner import InlineBotRunner
from fouronefour.server.clock import ManualScheduler
from fouronefour.server.config import ServerConfig
from fouronefour.server.errors import ErrorCode, TableError
from fouronefour.server.registry import TableRegistry
from fouronefour.server.storage.sqlite import GroupCommitStorage
from fouronefour.server.tables.fanout import InProcessFanout

from .conftest import ThreadServer

IDLE = 60.0
run = asyncio.run  # the registry's calls are coroutines; its storage here is not on a loop


class Place:
    """A registry on a manual clock over one database file, restartable."""

    def __init__(
        self, path: Path, max_tables: int, storage: type[GroupCommitStorage] = GroupCommitStorage
    ) -> None:
        self.path = path
        self.storage_type = storage
        self.config = ServerConfig(
            db=str(path), max_tables=max_tables, table_idle_seconds=IDLE, seed=7, bot_delay=0
        )
        self.scheduler = ManualScheduler()
        self.storage = storage(str(path))
        self.registry = self._start()

    def _start(self) -> TableRegistry:
        registry = TableRegistry(
            self.config, self.storage, InProcessFanout(), clock=self.scheduler.now
        )
        run(
            registry.start(
                self.scheduler, InlineBotRunner(lambda f: self.scheduler.call_later(0, f))
            )
        )
        return registry

    def restart(self) -> None:
        self.storage.close()
        self.storage = self.storage_type(str(self.path))
        self.scheduler = ManualScheduler(self.scheduler.now())  # the old tables' timers die
        self.registry = self._start()


@pytest.fixture
def place(tmp_path: Path) -> Iterator[Place]:
    made = Place(tmp_path / "tables.db", max_tables=2)
    yield made
    made.storage.close()


def refused(call: Callable[[], object]) -> ErrorCode:
    with pytest.raises(TableError) as caught:
        call()
    return caught.value.code


def test_a_left_table_makes_room_once_idle_and_comes_back_as_it_was(place: Place) -> None:
    registry = place.registry
    first, token = run(registry.create({"name": "Ann"}))
    before = first.summary()
    run(registry.create({"name": "Bob"}))
    assert refused(lambda: run(registry.create({"name": "Cy"}))) == ErrorCode.TOO_MANY_TABLES

    place.scheduler.advance(IDLE)
    third, _ = run(registry.create({"name": "Cy"}))
    assert first.code not in registry.tables  # the least recently used one made room
    assert third.code in registry.tables and len(registry.tables) == 2

    back = run(registry.get(first.code.lower()))
    assert back is not first and back.summary() == before
    assert back.seat_for_token(token) == 0
    assert third.code in registry.tables  # the other idle one (Bob's) made room this time


def test_tables_in_play_or_connected_are_never_dropped(place: Place) -> None:
    registry = place.registry
    playing, _ = run(registry.create({"name": "Ann"}))
    playing.seating.fill_bots(0)
    playing.start(0)
    watched, _ = run(registry.create({"name": "Bob"}))
    registry.hold(watched.code)
    place.scheduler.advance(10 * IDLE)
    assert refused(lambda: run(registry.create({"name": "Dee"}))) == ErrorCode.TOO_MANY_TABLES

    registry.release(watched.code)  # left just now: idle from here
    assert refused(lambda: run(registry.create({"name": "Dee"}))) == ErrorCode.TOO_MANY_TABLES
    place.scheduler.advance(IDLE)
    run(registry.create({"name": "Dee"}))
    assert playing.code in registry.tables and watched.code not in registry.tables


def test_nothing_is_dropped_while_a_change_is_unwritten(tmp_path: Path) -> None:
    class Unwritten(GroupCommitStorage):
        """As a group-commit storage is between a change and its write."""

        @property
        def all_written(self) -> bool:
            return False

    place = Place(tmp_path / "tables.db", max_tables=2, storage=Unwritten)
    run(place.registry.create({"name": "Dee"}))
    run(place.registry.create({"name": "Dee"}))
    place.scheduler.advance(10 * IDLE)
    assert refused(lambda: run(place.registry.create({"name": "Dee"}))) == ErrorCode.TOO_MANY_TABLES
    place.storage.close()


def test_a_restart_loads_the_tables_in_play_and_reads_the_others_when_asked(
    place: Place,
) -> None:
    lobby, token = run(place.registry.create({"name": "Ann"}))
    playing, _ = run(place.registry.create({"name": "Bob"}))
    playing.seating.fill_bots(0)
    playing.start(0)
    place.restart()
    registry = place.registry
    assert list(registry.tables) == [playing.code]
    assert run(registry.get(lobby.code)).seat_for_token(token) == 0
    assert refused(lambda: run(registry.get("ZZZZZZ"))) == ErrorCode.TABLE_NOT_FOUND
    assert refused(lambda: run(registry.get("no such code"))) == ErrorCode.TABLE_NOT_FOUND


def test_a_server_full_of_left_tables_still_opens_new_ones(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(max_tables=1, table_idle_seconds=0.0)
    first = httpx.post(f"{server.url}/api/tables", json={"name": "Ann"}).json()
    with connect(f"ws://127.0.0.1:{server.port}/ws/{first['code']}") as ws:
        ws.send(json.dumps({"type": "hello", "protocol": 3, "token": first["token"]}))
        ws.recv(timeout=5)
        held = httpx.post(f"{server.url}/api/tables", json={"name": "Bob"})
        assert held.status_code != 201 and held.json()["error"]["code"] == "too_many_tables"
    # The socket is closed: the first table may now make room, and comes back when asked.
    for _ in range(50):
        second = httpx.post(f"{server.url}/api/tables", json={"name": "Bob"})
        if second.status_code == 201:
            break
        time.sleep(0.05)
    assert second.status_code == 201
    again = httpx.get(f"{server.url}/api/tables/{first['code']}")
    assert again.status_code == 200 and again.json()["code"] == first["code"]
    health = httpx.get(f"{server.url}/api/health").json()
    assert health["tables"] == 1


def test_tables_in_play_are_all_loaded_even_beyond_the_limit(place: Place) -> None:
    for name in ("Ann", "Bob"):
        table, _ = run(place.registry.create({"name": name}))
        table.seating.fill_bots(0)
        table.start(0)
    place.config = ServerConfig(
        db=str(place.path), max_tables=1, table_idle_seconds=IDLE, seed=7, bot_delay=0
    )
    place.restart()
    registry = place.registry
    assert len(registry.tables) == 2  # never dropped while played
    place.scheduler.advance(IDLE)
    assert refused(lambda: run(registry.create({"name": "Dee"}))) == ErrorCode.TOO_MANY_TABLES


def test_a_club_events_table_keeps_its_shorter_match_across_a_restart(tmp_path: Path) -> None:
    """An event's length (a club event's tables only) is the table's ``goal``: its match
    ends sooner, and a restarted server reads the table back with it, and as an event's
    table, also of an event of whole matches; a bad length is refused."""
    place = Place(tmp_path / "events.db", max_tables=3)
    create = place.registry.create
    table, _ = run(create({"name": "Ann", "players": 4}, event_length="round"))
    assert table.options.rules.goal == "round" and table.options.event
    assert refused(lambda: run(create({"name": "Bob"}, event_length="2"))) == (ErrorCode.BAD_OPTION)
    whole, _ = run(create({"name": "Dee", "players": 4}, event_length="match"))
    normal, _ = run(create({"name": "Cat"}))
    assert normal.options.rules.goal == "match" and not normal.options.event
    assert "event" not in normal.options.public()
    run(place.storage.wait_durable(place.storage.staged_seq))
    place.restart()
    back = run(place.registry.get(table.code))
    assert back.options.rules.goal == "round" and back.options.event
    whole_back = run(place.registry.get(whole.code)).options
    assert whole_back.rules.goal == "match" and whole_back.public()["event"] is True
    assert not run(place.registry.get(normal.code)).options.event
    place.storage.close()
