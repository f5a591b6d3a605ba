"""PostgreSQL storage beyond the contract: its schema, a batch written twice, the database
stopped and started under it."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest

from fouronefour import cli
from fouronefour.server.storage import Change, NewMatch, StorageError, StoredSeat, StoredTable
from fouronefour.server.storage.postgres import (
    _WRITE_BATCH,
    MIGRATIONS,
    PostgresStorage,
    batch_arguments,
    check,
    migrate,
)
from tests import sandbox
from tests.sandbox import free_port


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
            assert await storage.own("BBBBBB")
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


def _serve(capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str, str]:
    """``fouronefour serve`` with ``flags``, in this process (as the command line runs it):
    its exit status, output and errors."""
    status = cli.main(["serve", *flags])
    out, err = capsys.readouterr()
    return status, out, err


def test_serve_check_says_whether_the_database_and_the_broker_answer(
    postgres: sandbox.LocalPostgres,
    redis_server: sandbox.LocalRedis,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = postgres.new_database().replace("postgres@", "postgres:secret@")
    status, out, _ = _serve(capsys, "--check", "--db", url, "--broker", redis_server.url)
    assert status == 0, out
    lines = out.splitlines()
    assert lines[0].startswith("ok: PostgreSQL") and "no schema yet" in lines[0]
    assert lines[1].startswith("ok: Redis")
    silent = f"redis://127.0.0.1:{free_port()}/0"
    status, out, err = _serve(capsys, "--check", "--db", url, "--broker", silent)
    assert status == 1 and "FAILED: Redis does not answer" in out
    assert "secret" not in out + err
    status, _, err = _serve(capsys, "--broker", redis_server.url)  # a cluster shares its db
    assert status == 2 and "--db postgresql://" in err


def test_two_processes_racing_for_one_table_one_owns_it_and_only_its_writes_count(
    postgres: sandbox.LocalPostgres,
) -> None:
    """Processes race to own a table: one wins. If the winner loses its connection and the
    other takes the table over meanwhile, the first finds the table lost when it reconnects
    (told through on_lost) and none of its later changes is written: the new owner's are."""
    url = postgres.new_database()
    seats = [StoredSeat(0, "Ann", "human", "h"), StoredSeat(1, None, "empty", None)]

    async def scenario() -> None:
        first, second = PostgresStorage(url), PostgresStorage(url)
        await first.open()
        await second.open()
        try:
            wins = await asyncio.gather(*(s.own("CCCCCC") for s in (first, second, first, second)))
            assert sorted(wins) == [False, False, True, True]  # (one storage, asked twice)
            owner, other = (first, second) if wins[0] else (second, first)
            await owner.insert_table(StoredTable("CCCCCC", {}, 0, "lobby", 1, 0, seats))
            assert await owner.orphans() == []  # (a lobby: nothing to take over anyway)
            # Not the owner: its changes are not written.
            await other.wait_durable(
                other.commit(
                    Change("CCCCCC", 2, "lobby", 0, seats=(StoredSeat(1, "Mallory", "human", "m"),))
                )
            )
            table = await owner.fetch_table("CCCCCC")
            assert table is not None and table.seats[1].name is None
            # The owner's session ends (its connection cut); the other takes the table over.
            lost: list[list[str]] = []
            owner.on_lost(lost.append)
            conn = await asyncpg.connect(url)
            try:
                await conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_locks"
                    " WHERE locktype = 'advisory' AND classid = 414"
                )
            finally:
                await conn.close()
            deadline = time.monotonic() + 10
            while not await other.own("CCCCCC"):
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
            late = owner.commit(
                Change("CCCCCC", 2, "lobby", 0, seats=(StoredSeat(1, "Old", "human", "o"),))
            )
            await asyncio.wait_for(owner.wait_durable(late), 10)
            assert lost == [["CCCCCC"]]
            seq = other.commit(
                Change("CCCCCC", 2, "lobby", 0, seats=(StoredSeat(1, "New", "human", "n"),))
            )
            await other.wait_durable(seq)
            table = await other.fetch_table("CCCCCC")
            assert table is not None and table.seats[1].name == "New"
        finally:
            await first.shutdown()
            await second.shutdown()

    asyncio.run(scenario())


def test_orphans_are_the_tables_being_played_that_no_process_owns(
    postgres: sandbox.LocalPostgres,
) -> None:
    """Worked out by the database (invite codes' locks in SQL), tests' other codes here."""
    url = postgres.new_database()

    async def scenario() -> list[str]:
        owner, looker = PostgresStorage(url), PostgresStorage(url)
        await owner.open()
        await looker.open()
        try:
            conn = await asyncpg.connect(url)
            await conn.execute(
                "INSERT INTO tables (code, options, host_seat, status, version, match_number)"
                " SELECT c, '{}', 0, s, 1, 1 FROM unnest($1::text[], $2::text[]) AS x(c, s)",
                ["ZZ9AAB", "HKDD22", "QUIET3", "other-1", "other-2"],
                ["playing", "playing", "lobby", "playing", "playing"],
            )
            await conn.close()
            for code in ("HKDD22", "other-2"):
                assert await owner.own(code)
            return sorted(await looker.orphans())
        finally:
            await owner.shutdown()
            await looker.shutdown()

    assert asyncio.run(scenario()) == ["ZZ9AAB", "other-1"]


def test_a_session_whose_lease_lapsed_is_ended_and_its_owner_writes_nothing_more(
    postgres: sandbox.LocalPostgres,
) -> None:
    """Issue 27, item 20, at the storage: a process that stops renewing its lease (as a hung
    one does) has its writer session ended by the next look for tables without an owner;
    its table is another's then, and what it commits when it wakes is never written: it
    learns the table is lost instead."""
    url = postgres.new_database()
    seats = [StoredSeat(0, "Ann", "human", "h")]

    async def scenario() -> tuple[list[str], int, list[list[str]]]:
        hung, live = PostgresStorage(url), PostgresStorage(url)
        await hung.open()
        await live.open()
        lost: list[list[str]] = []
        hung.on_lost(lost.append)
        try:
            assert await hung.own("CCCCCC")
            await hung.insert_table(StoredTable("CCCCCC", {}, 0, "playing", 1, 0, seats))
            assert hung._renewing is not None
            hung._renewing.cancel()  # (it hangs: no more renewals)
            await asyncio.sleep(PostgresStorage.LEASE_SECONDS + 0.5)
            orphans = await live.orphans()  # ends the hung session first
            assert await live.own("CCCCCC")
            seq = hung.commit(Change("CCCCCC", 2, "playing", 0, seats=(seats[0],)))
            deadline = time.monotonic() + 10
            while not lost:
                assert time.monotonic() < deadline, "the loss was not noticed"
                await asyncio.sleep(0.05)
            await hung.wait_durable(seq)  # (dropped: nothing more waits for it)
            table = await live.fetch_table("CCCCCC")
            assert table is not None
            return orphans, table.version, lost
        finally:
            await hung.shutdown()
            await live.shutdown()

    orphans, version, lost = asyncio.run(scenario())
    assert orphans == ["CCCCCC"]  # (its owner's session ended: nobody owned it)
    assert version == 1  # the woken process's change was not written
    assert lost == [["CCCCCC"]]
