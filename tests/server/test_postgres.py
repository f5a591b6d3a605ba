"""PostgreSQL storage beyond the contract: its schema, a batch written twice, the database
stopped and started under it."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import asyncpg
import pytest

from fouronefour.server import sandbox
from fouronefour.server.postgres import (
    _WRITE_BATCH,
    MIGRATIONS,
    PostgresStorage,
    batch_arguments,
    check,
    migrate,
)
from fouronefour.server.sandbox import free_port
from fouronefour.server.storage import Change, NewMatch, StorageError, StoredSeat, StoredTable


def test_the_schema_is_made_once_and_a_newer_one_is_refused(
    postgres: sandbox.LocalPostgres,
) -> None:
    url = postgres.new_database()

    async def scenario() -> None:
        assert "no schema yet" in await check(url)
        conn = await asyncpg.connect(url)
        try:
            assert await migrate(conn) == 0
            assert await migrate(conn) == len(MIGRATIONS)  # nothing left to do
            assert f"schema version {len(MIGRATIONS)}" in await check(url)
            await conn.execute("UPDATE schema_version SET version = version + 1")
            with pytest.raises(StorageError, match="upgrade the server"):
                await migrate(conn)
        finally:
            await conn.close()

    asyncio.run(scenario())


def test_a_batch_written_again_changes_nothing(postgres: sandbox.LocalPostgres) -> None:
    """A batch whose answer was lost with its connection is written again: the moves it
    wrote are not written twice, and the result is the same."""
    url = postgres.new_database()
    seats = [StoredSeat(0, "Ann", "human", "h"), StoredSeat(1, None, "empty", None)]
    batch = [
        Change("AAAAAA", 2, "playing", 1, new_match=NewMatch(1, 9, {})),
        Change("AAAAAA", 3, "playing", 1, moves=("3", "pass"), first_move_index=0),
        Change("AAAAAA", 4, "playing", 1, seats=(StoredSeat(1, "Bob", "bot", None),)),
    ]

    async def scenario() -> None:
        storage = PostgresStorage(url)
        await storage.open()
        await storage.insert_table(StoredTable("AAAAAA", {}, 0, "lobby", 1, 0, seats))
        conn = await asyncpg.connect(url)
        try:
            for _ in range(2):
                await conn.execute(_WRITE_BATCH, *batch_arguments(batch))
            count = await conn.fetchval("SELECT count(*) FROM moves")
        finally:
            await conn.close()
        table = await storage.fetch_table("AAAAAA")
        await storage.shutdown()
        assert count == 2
        assert table is not None and table.version == 4 and table.seats[1].name == "Bob"
        assert table.match is not None and table.match.moves == ["3", "pass"]

    asyncio.run(scenario())


def test_while_postgres_is_down_changes_wait_and_are_written_when_it_is_back() -> None:
    reason = sandbox.missing()
    if reason:
        pytest.skip(reason)
    server = sandbox.LocalPostgres()  # its own: this test stops it
    try:
        url = server.start()

        async def scenario() -> None:
            storage = PostgresStorage(url)
            await storage.open()
            seats = [StoredSeat(0, "Ann", "human", "h")]
            await storage.insert_table(StoredTable("BBBBBB", {}, 0, "lobby", 1, 0, seats))
            await asyncio.to_thread(server.stop)
            seq = storage.commit(Change("BBBBBB", 2, "lobby", 0, seats=(seats[0],)))
            waiting = asyncio.ensure_future(storage.wait_durable(seq))
            deadline = time.monotonic() + 10
            while not storage.failed:
                assert time.monotonic() < deadline, "the failure was not noticed"
                await asyncio.sleep(0.05)
            assert not waiting.done() and not storage.all_written
            with pytest.raises(StorageError):
                await storage.fetch_table("BBBBBB")
            await asyncio.to_thread(server.start)
            await asyncio.wait_for(waiting, 15)
            assert not storage.failed and storage.all_written
            table = await storage.fetch_table("BBBBBB")
            assert table is not None and table.version == 2
            await storage.shutdown()

        asyncio.run(scenario())
    finally:
        server.close()


def _serve(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fouronefour", "serve", *flags],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_serve_check_says_whether_the_database_and_the_broker_answer(
    postgres: sandbox.LocalPostgres, redis_server: sandbox.LocalRedis
) -> None:
    url = postgres.new_database().replace("postgres@", "postgres:secret@")
    answered = _serve("--check", "--db", url, "--broker", redis_server.url)
    assert answered.returncode == 0, answered
    lines = answered.stdout.splitlines()
    assert lines[0].startswith("ok: PostgreSQL") and "no schema yet" in lines[0]
    assert lines[1].startswith("ok: Redis")
    silent = _serve("--check", "--db", url, "--broker", f"redis://127.0.0.1:{free_port()}/0")
    assert silent.returncode == 1 and "FAILED: Redis does not answer" in silent.stdout
    assert "secret" not in silent.stdout + silent.stderr
    alone = _serve("--broker", redis_server.url)  # a cluster shares its database
    assert alone.returncode == 2 and "--db postgresql://" in alone.stderr


def test_one_process_at_a_time_serves_a_database_until_tables_have_owners(
    postgres: sandbox.LocalPostgres,
) -> None:
    url = postgres.new_database()

    async def scenario() -> None:
        first = PostgresStorage(url)
        await first.open()
        second = PostgresStorage(url)
        with pytest.raises(StorageError, match="another server process"):
            await second.open()
        await first.shutdown()
        await second.open()  # the first has let go
        await second.shutdown()

    asyncio.run(scenario())
