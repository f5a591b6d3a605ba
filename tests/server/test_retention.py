"""Old tables leave the database, their finished matches stay as replays (retention.py)."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from fouronefour.engine import Rules
from fouronefour.server.background.botrunner import InlineBotRunner
from fouronefour.server.clock import ManualScheduler
from fouronefour.server.config import ServerConfig
from fouronefour.server.errors import TableError
from fouronefour.server.registry import TableRegistry
from fouronefour.server.sockets.session import PROTOCOL
from fouronefour.server.storage.retention import DAY
from fouronefour.server.storage.sqlite_retention import Retention, ThreadedRetention
from fouronefour.server.tables.fanout import InProcessFanout
from fouronefour.server.tables.table import Table, TableOptions
from fouronefour.server.tidying import tidy

from .conftest import Client, Harness, ThreadServer


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def _tables(harness: Harness) -> dict[str, Table]:
    """A finished table (a match played to its end by bots), one in the lobby and one being
    played."""
    finished, _ = harness.table(humans=1, turn_seconds=0.5)
    harness.scheduler.run_until_idle()
    assert finished.status == "finished"
    lobby, _ = harness.table(start=False)
    playing, _ = harness.table(humans=4)
    assert playing.status == "playing"
    return {"finished": finished, "lobby": lobby, "playing": playing}


def test_tables_unchanged_for_the_keeping_time_go_and_their_replays_stay(
    harness: Harness, tmp_path: Path
) -> None:
    tables = _tables(harness)
    code = {kind: table.code for kind, table in tables.items()}
    storage = harness.storage
    clock = Clock()
    retention = Retention(str(tmp_path / "tables.db"), keep_days=30, clock=clock)
    assert retention.interval == 3600
    assert retention.survey() == []  # noted now
    clock.now += 29 * DAY
    # A seat is taken at the lobby table: its 30 days start again.
    tables["lobby"].seating.join("Bob", 1)
    assert retention.survey() == []
    clock.now += 2 * DAY
    due = dict(retention.survey())
    assert set(due) == {code["finished"]}  # not the one being played, nor the lobby's
    clock.now += 29 * DAY
    due = dict(retention.survey())
    assert set(due) == {code["finished"], code["lobby"]}
    match = storage.load_match(code["finished"], 1)
    assert match is not None and match.over
    # The finished table was private (invites.py): its replays stay so once it is gone.
    storage._conn.execute(
        "UPDATE tables SET options = json_set(options, '$.invite_hash', 'H') WHERE code = ?",
        (code["finished"],),
    )

    assert sorted(retention.retire(due.items())) == sorted(due)
    for gone in due:
        assert storage.load_table(gone) is None
    assert storage.load_table(code["playing"]) is not None
    # The finished match stays, with its seats' names: its replay can still be built.
    archived, invite_hash = retention.archived(code["finished"])
    assert invite_hash == "H"
    assert list(archived) == [1]
    assert [s["seat"] for s in archived[1]] == [0, 1, 2, 3]
    assert archived[1][0]["name"] == "Host"
    assert storage.load_match(code["finished"], 1) == match
    assert retention.archived(code["lobby"]) == ({}, None)
    # The code is not given to another table while its replay is kept.
    assert storage.table_exists(code["finished"])
    assert not storage.table_exists(code["lobby"])
    # Nothing else of the deleted tables is left.
    for table in ("tables", "seats", "retention_seen"):
        rows = storage._conn.execute(
            f"SELECT COUNT(*) FROM {table} WHERE code IN (?, ?)", (code["finished"], code["lobby"])
        ).fetchone()
        assert rows == (0,), table

    # Archived matches are kept for good by default; with keep_replay_days they go too.
    assert retention.expire_replays() == 0
    retention.keep_replay_days = 10
    clock.now += 11 * DAY
    assert retention.expire_replays() == 1
    assert retention.archived(code["finished"]) == ({}, None)
    assert storage.load_match(code["finished"], 1) is None
    assert not storage.table_exists(code["finished"])
    retention.close()


def test_a_table_that_changed_or_is_in_memory_is_not_deleted(
    harness: Harness, tmp_path: Path
) -> None:
    tables = _tables(harness)
    lobby, finished = tables["lobby"], tables["finished"]
    clock = Clock()
    retention = Retention(str(tmp_path / "tables.db"), keep_days=1, clock=clock)
    retention.survey()
    clock.now += 2 * DAY
    due = dict(retention.survey())
    assert set(due) == {lobby.code, finished.code}
    # Between the survey and the deletion the lobby table changes: it stays.
    lobby.seating.join("Bob", 1)
    assert retention.retire(due.items()) == [finished.code]
    assert harness.storage.load_table(lobby.code) is not None

    # A table held in memory (used lately, or connected) is left for a later pass.
    in_memory = {lobby.code}

    async def settled() -> None:
        pass

    registry: Any = SimpleNamespace(
        unload=lambda code: code not in in_memory, retiring=set(), settled=settled
    )
    clock.now += 2 * DAY
    retention.survey()
    clock.now += 2 * DAY
    assert asyncio.run(tidy(ThreadedRetention(retention), registry)) == 0
    assert harness.storage.load_table(lobby.code) is not None
    in_memory.clear()
    assert asyncio.run(tidy(ThreadedRetention(retention), registry)) == 1
    assert harness.storage.load_table(lobby.code) is None
    retention.close()


def test_a_table_left_alone_is_unloaded_and_not_read_back_while_deleted(
    harness: Harness,
) -> None:
    config = ServerConfig(db="unused", table_idle_seconds=0.0)
    registry = TableRegistry(config, harness.storage, InProcessFanout())
    scheduler = ManualScheduler()
    asyncio.run(registry.start(scheduler, InlineBotRunner(lambda f: scheduler.call_later(0, f))))
    table, _ = asyncio.run(registry.create({"name": "Ann"}))
    registry.hold(table.code)  # a connection
    assert not registry.unload(table.code) and table.code in registry.tables
    registry.release(table.code)
    assert registry.unload(table.code) and table.code not in registry.tables
    registry.retiring.add(table.code)
    with pytest.raises(TableError) as refused:
        asyncio.run(registry.get(table.code))
    assert refused.value.code == "table_not_found"
    registry.retiring.clear()
    assert asyncio.run(registry.get(table.code)).code == table.code


def test_a_server_deletes_old_tables_and_serves_their_replays(
    harness: Harness, make_server: Callable[..., ThreadServer]
) -> None:
    """End to end: a server whose tables are kept for 2 s (--keep-days) deletes a lobby
    table and a finished one it holds in the database, and serves the finished one's
    replay as before; a table with a connection stays."""
    services = harness.services()
    options = TableOptions(Rules(players=4), turn_seconds=0.5, bot="random")
    finished, _ = Table.create("FNSHED", options, "Ann", 0, services)
    harness.storage.create_table(finished.stored())
    finished.seating.fill_bots(0)
    finished.start(0)
    harness.scheduler.run_until_idle()
    assert finished.status == "finished"
    queued, _ = Table.create("QUEUED", options, "Bob", 0, services)
    harness.storage.create_table(queued.stored())
    harness.storage.close()
    # Kept 2 s after their last change; a table asked for stays in memory 0.5 s.
    server = make_server(db=harness.storage.path, keep_days=2 / DAY, table_idle_seconds=0.5)
    url = server.url
    before = httpx.get(f"{url}/api/tables/FNSHED/replays/1").json()
    held = httpx.post(f"{url}/api/tables", json={"name": "Cy"}).json()
    token = held["token"]

    async def connected() -> None:
        client = await Client.connect(url, held["code"])
        await client.send({"type": "hello", "protocol": PROTOCOL, "token": token})
        await client.until(lambda m: m["type"] == "snapshot")
        deadline = time.monotonic() + 20
        with sqlite3.connect(harness.storage.path) as db:  # (asking the server keeps it)
            while db.execute("SELECT COUNT(*) FROM tables").fetchone() != (1,):
                assert time.monotonic() < deadline, "the old tables were not deleted"
                await asyncio.sleep(0.2)
        await client.close()

    asyncio.run(connected())
    for code in ("QUEUED", "FNSHED"):
        gone = httpx.get(f"{url}/api/tables/{code}")
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "table_not_found"
    assert httpx.get(f"{url}/api/tables/{held['code']}").status_code == 200  # connected
    listing = httpx.get(f"{url}/api/tables/FNSHED/replays").json()
    assert [m["match"] for m in listing["matches"]] == [1]
    assert httpx.get(f"{url}/api/tables/FNSHED/replays/1").json() == before
    assert httpx.get(f"{url}/api/tables/QUEUED/replays").status_code == 404


def test_a_cluster_process_deletes_old_tables_in_postgres(
    postgres: Any, redis_server: Any, make_server: Callable[..., ThreadServer]
) -> None:
    """End to end on PostgreSQL (pgretention.py): a table left alone is let go of by the
    process that holds it, then deleted (what is kept is the contract tests')."""
    import asyncpg

    db = postgres.new_database()
    server = make_server(db=db, broker=redis_server.url, keep_days=1 / DAY, table_idle_seconds=0.5)
    left = httpx.post(f"{server.url}/api/tables", json={"name": "Ann"}).json()["code"]

    async def until_deleted() -> set[str]:
        conn = await asyncpg.connect(db)
        try:
            deadline = time.monotonic() + 20
            while True:
                codes = {r["code"] for r in await conn.fetch("SELECT code FROM tables")}
                if left not in codes or time.monotonic() > deadline:
                    return codes
                await asyncio.sleep(0.2)
        finally:
            await conn.close()

    codes = asyncio.run(until_deleted())
    assert left not in codes
