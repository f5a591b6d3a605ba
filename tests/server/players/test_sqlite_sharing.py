"""The players' store shares the tables' SQLite file (players/sqlite.py): its write
transactions never hold the file's lock while they wait for the server's event loop, so the
tables' group commit, which waits 50 ms at most for that lock on the loop, never fails for
them."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fouronefour.server.players.ratings import NEWCOMER
from fouronefour.server.players.sqlite import sqlite_players
from fouronefour.server.players.values import MatchRecord, MatchSeat, Profile
from fouronefour.server.storage import Change, StoredSeat, StoredTable
from fouronefour.server.storage.sqlite import GroupCommitStorage


def test_match_ends_never_make_the_tables_storage_fail(tmp_path: Path) -> None:
    path = str(tmp_path / "served.db")

    async def main() -> tuple[bool, int]:
        storage = GroupCommitStorage(path)
        await storage.open()
        seats = [StoredSeat(0, "Ann", "human", "h0"), StoredSeat(1, None, "empty", None)]
        await storage.insert_table(StoredTable("SHARE1", {"players": 2}, 0, "lobby", 1, 0, seats))
        store = sqlite_players(path)
        await store.open()
        people = [f"p{i}" for i in range(8)]
        for pid in people:
            await store.create_profile(Profile(pid, pid, "fox", "en", 0, 0, None, NEWCOMER))
        failed = False
        done = False

        async def tables() -> None:
            # A table's updates, as the server writes them: one change a loop pass or so.
            for version in range(2, 600):
                await storage.wait_durable(storage.commit(Change("SHARE1", version, "lobby", 0)))
            nonlocal done
            done = True

        async def players(worker: int) -> None:
            n = 0
            while not done:
                n += 1
                chosen = people[worker * 4 : worker * 4 + 4]
                seats = tuple(
                    MatchSeat(s, s % 2, chosen[s], 1 + s % 2, profile_id=chosen[s])
                    for s in range(4)
                )
                await store.record_match(MatchRecord(f"W{worker}", n, n, True, seats))

        async def watch() -> None:
            nonlocal failed
            while not done:
                failed = failed or storage.failed
                await asyncio.sleep(0)

        await asyncio.gather(tables(), players(0), players(1), watch())
        matches = len(await store.history("p0", 50))
        await store.close()
        await storage.shutdown()
        return failed, matches

    failed, matches = asyncio.run(main())
    assert not failed
    assert matches > 0


def test_the_wal_stays_bounded_when_only_players_write(tmp_path: Path) -> None:
    """The players' writer leaves checkpoints to its own checkpointer thread (sqlite.py):
    with nobody else writing the file, the WAL is still copied back and reused, not grown."""
    path = tmp_path / "alone.db"
    wal = Path(f"{path}-wal")

    async def main() -> list[int]:
        store = sqlite_players(str(path))
        await store.open()
        people = [f"p{i}" for i in range(4)]
        for pid in people:
            await store.create_profile(Profile(pid, pid, "fox", "en", 0, 0, None, NEWCOMER))
        sizes = []
        for batch in range(3):
            for n in range(150):
                seats = tuple(
                    MatchSeat(s, s % 2, people[s], 1 + s % 2, profile_id=people[s])
                    for s in range(4)
                )
                await store.record_match(MatchRecord("WAL", batch * 1000 + n, n, True, seats))
            await asyncio.sleep(3 * store.db.CHECKPOINT_SECONDS)  # type: ignore[attr-defined]
            sizes.append(wal.stat().st_size)
        await store.close()
        return sizes

    sizes = asyncio.run(main())
    # (Never checkpointed, the third batch would leave it three times the first's size.)
    assert sizes[2] < 2 * sizes[0], sizes
