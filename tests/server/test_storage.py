"""Storage: immediate and group commits write the same tables; versions survive reloads."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fouronefour.server.storage import (
    Change,
    GroupCommitStorage,
    NewMatch,
    SqliteStorage,
    StoredSeat,
    StoredTable,
)


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
