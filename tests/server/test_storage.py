"""Storage: immediate and group commits write the same tables; versions survive reloads; a
database made by an older version opens and works."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

from fouronefour.server.storage import (
    Change,
    ChangeExtra,
    MatchSummary,
    NewMatch,
    StorageError,
    StoredChat,
    StoredHandoff,
    StoredSeat,
    StoredTable,
    TableRow,
)
from fouronefour.server.storage.sqlite import GroupCommitStorage, SqliteStorage
from fouronefour.server.tables.replays import match_summary

from .conftest import Harness


def changes(code: str) -> list[Change]:
    seats = (StoredSeat(1, "Bob", "human", "hash"),)
    return [
        Change(code, 2, "lobby", 0, seats=seats),
        Change(code, 3, "playing", 1, new_match=NewMatch(1, 99, {"players": 2})),
        Change(code, 4, "playing", 1, moves=("3",), first_move_index=0, table_row=False),
        Change(code, 5, "playing", 1, moves=("pass", "44"), first_move_index=1, table_row=False),
        Change(code, 6, "playing", 1),  # a seat event: the version only
    ]


def new_table(code: str) -> StoredTable:
    return StoredTable(
        code,
        {"players": 2},
        0,
        "lobby",
        1,
        0,
        [StoredSeat(0, "Ann", "human", "h0"), StoredSeat(1, None, "empty", None)],
    )


def test_group_commit_writes_what_immediate_commits_write(tmp_path: Path) -> None:
    immediate = SqliteStorage(str(tmp_path / "a.db"))
    immediate.create_table(new_table("AAAAAA"))
    for change in changes("AAAAAA"):
        immediate.commit(change)
    expected = immediate.load_tables()[0]
    immediate.close()

    async def grouped() -> None:
        storage = GroupCommitStorage(str(tmp_path / "b.db"))
        storage.bind(asyncio.get_running_loop())
        storage.create_table(new_table("AAAAAA"))
        for change in changes("AAAAAA"):
            storage.commit(change)
        # Nothing counts as written before the next pass of the loop writes the batch.
        assert storage.durable_seq == 0 and storage.staged_seq == 5
        await asyncio.wait_for(storage.wait_durable(storage.staged_seq), 2)
        assert storage.durable_seq == 5
        storage.close()

    asyncio.run(grouped())
    reloaded = SqliteStorage(str(tmp_path / "b.db"))
    assert reloaded.load_tables()[0] == expected
    assert expected.version == 6 and expected.status == "playing"
    assert expected.match is not None and expected.match.moves == ["3", "pass", "44"]
    assert expected.seats[1] == StoredSeat(1, "Bob", "human", "hash")
    reloaded.close()


#: The schema of databases made before protocol 3 (no settings, pauses, chat, handoffs or
#: match results), as they are on disk.
OLD_SCHEMA = """
CREATE TABLE tables (
    code TEXT PRIMARY KEY, options TEXT NOT NULL, host_seat INTEGER NOT NULL,
    status TEXT NOT NULL, version INTEGER NOT NULL, match_number INTEGER NOT NULL);
CREATE TABLE seats (
    code TEXT NOT NULL, seat INTEGER NOT NULL, name TEXT, kind TEXT NOT NULL, token_hash TEXT,
    PRIMARY KEY (code, seat));
CREATE TABLE matches (
    code TEXT NOT NULL, number INTEGER NOT NULL, seed INTEGER NOT NULL, rules TEXT NOT NULL,
    over INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (code, number));
CREATE TABLE moves (
    code TEXT NOT NULL, number INTEGER NOT NULL, idx INTEGER NOT NULL, move TEXT NOT NULL,
    version INTEGER NOT NULL, PRIMARY KEY (code, number, idx));
INSERT INTO tables VALUES ('OLDTAB', '{"players": 2}', 0, 'finished', 9, 1);
INSERT INTO seats VALUES ('OLDTAB', 0, 'Ann', 'human', 'h0'), ('OLDTAB', 1, 'Bot 2', 'bot', NULL);
INSERT INTO matches VALUES ('OLDTAB', 1, 5, '{"players": 2}', 1);
INSERT INTO moves VALUES ('OLDTAB', 1, 0, '3', 8);
"""


def test_a_database_made_before_protocol_3_opens_and_takes_the_new_things(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as old:
        old.executescript(OLD_SCHEMA)
    storage = SqliteStorage(str(path))
    table = storage.load_tables()[0]
    assert (table.code, table.version, table.settings, table.paused, table.round_end) == (
        "OLDTAB",
        9,
        {},
        False,
        0,
    )
    assert table.chat == [] and table.handoffs == [] and table.finished_matches == [1]
    assert storage.list_matches("OLDTAB") == [MatchSummary(1, 1, None, None)]
    row = TableRow(0, {"round_pause_seconds": 5.0}, paused=True, round_end=2)
    line = StoredChat(10, 1, 1, 1_800_000_000_000, 0, "Ann", False, "hi", None)
    handoff = StoredHandoff(1, "secret-hash", 1_800_000_600_000)
    storage.commit(
        Change(
            "OLDTAB",
            10,
            "finished",
            1,
            extra=ChangeExtra(row=row, chat=line, handoffs=(handoff,), result=(1, 3)),
        )
    )
    storage.close()
    reopened = SqliteStorage(str(path))  # the migration ran once; opening again is the same
    table = reopened.load_tables()[0]
    assert table.version == 10 and table.settings == {"round_pause_seconds": 5.0}
    assert table.paused and table.round_end == 2
    assert table.chat == [line] and table.handoffs == [handoff]
    assert reopened.load_chat("OLDTAB", 1) == [line]
    assert reopened.list_matches("OLDTAB") == [MatchSummary(1, 1, 1, 3)]
    reopened.commit(
        Change("OLDTAB", 11, "finished", 1, extra=ChangeExtra(handoffs=(StoredHandoff(1, None),)))
    )
    assert reopened.load_tables()[0].handoffs == []
    reopened.close()


def test_the_replay_list_reads_an_old_match_s_winner_from_its_moves(harness: Harness) -> None:
    table, _ = harness.table(humans=1, turn_seconds=0.5)
    harness.scheduler.run_until_idle()
    assert table.match is not None and table.match.is_over
    expected = {
        "match": 1,
        "moves": len(table.match.moves),
        "winning_team": table.match.winning_team,
        "rounds": len(table.match.results),
    }
    (stored,) = harness.storage.list_matches(table.code)
    assert match_summary(stored, None) == expected
    old = MatchSummary(stored.number, stored.moves, None, None)  # finished before protocol 3
    assert match_summary(old, harness.storage.load_match(table.code, 1)) == expected


def _hold_lock(path: str, seconds: float) -> threading.Thread:
    """Another connection (as the players' store's thread) holds the file's write lock for
    ``seconds``, from now."""
    held = threading.Event()

    def hold() -> None:
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        held.set()
        time.sleep(seconds)
        conn.execute("COMMIT")
        conn.close()

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait()
    return thread


def test_a_new_table_waits_for_a_lock_another_connection_holds_and_the_loop_goes_on(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "held.db")
    seats = [StoredSeat(0, "Ann", "human", "h0")]

    async def main() -> tuple[int, bool]:
        storage = GroupCommitStorage(path)
        await storage.open()
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        ticking = asyncio.create_task(tick())
        holder = _hold_lock(path, 0.4)  # 8 times the loop's own wait for it
        await storage.insert_table(StoredTable("HELD01", {"players": 1}, 0, "lobby", 1, 0, seats))
        holder.join()
        ticking.cancel()
        found = await storage.fetch_table("HELD01") is not None
        storage.close()
        return ticks, found

    ticks, found = asyncio.run(main())
    assert found
    assert ticks >= 5  # the loop served others while the table waited for the lock


def test_a_lock_held_too_long_refuses_the_new_table_and_writes_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "held.db")
    seats = [StoredSeat(0, "Ann", "human", "h0")]

    async def main() -> tuple[str, bool]:
        storage = GroupCommitStorage(path)
        storage.WRITE_NOW_SECONDS = 0.2
        await storage.open()
        holder = _hold_lock(path, 0.6)
        try:
            await storage.insert_table(
                StoredTable("HELD02", {"players": 1}, 0, "lobby", 1, 0, seats)
            )
        except StorageError as error:
            said = str(error)
        else:
            said = ""
        holder.join()
        found = await storage.fetch_table("HELD02") is not None
        storage.close()
        return said, found

    said, found = asyncio.run(main())
    assert "locked" in said
    assert not found
