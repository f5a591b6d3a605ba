"""A club's history with its events' final tables (tournaments/history.py ClubEvents):
how long the read takes at the largest club history, 30 finished events of 64 pairs each,
on SQLite (docs/tournaments.md, "Figures").

    PYTHONPATH=src python bench/event_history.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from fouronefour.server.players.ratings import NEWCOMER
from fouronefour.server.players.sqlite import sqlite_players
from fouronefour.server.players.values import Profile
from fouronefour.server.tournaments.history import HISTORY_PLACES, ClubEvents, FinalRow
from fouronefour.server.tournaments.standings import Standing
from fouronefour.server.tournaments.store import EventStore
from fouronefour.server.tournaments.values import Event, Setup

EVENTS, PAIRS, READS = 30, 64, 50


async def main(path: str) -> None:
    players = sqlite_players(path)
    await players.open()
    events = EventStore(players.db)
    for i in range(2 * PAIRS):
        await players.create_profile(Profile(f"p{i}", f"P{i}", "fox", "en", 1, 1, None, NEWCOMER))
    for e in range(EVENTS + 10):  # (10 more in another club)
        setup = Setup(f"Cup {e}", "swiss", "pairs", 15, "round", 30, "greedy")
        event = Event(f"ev{e}", "club1" if e < EVENTS else "club2", setup, "open", 0, e, "p0", e)
        await events.create(event)
        assert await events.start(event.id, [], {})
        rows = []
        for place in range(1, PAIRS + 1):
            standing = Standing(f"t{place}", place, 15 - place // 5, 100, 3, 0, 15, 7, 0)
            rows += [FinalRow(standing, 0, f"p{2 * place - 2}"),
                     FinalRow(standing, 1, f"p{2 * place - 1}")]  # fmt: skip
        await events.finish(event.id, 10_000 + e, rows)
    finals = ClubEvents(players.db)
    for places, label in ((HISTORY_PLACES, "the history's"), (PAIRS, "every place")):
        times = []
        for _ in range(READS):
            start = time.perf_counter()
            history = await finals.club_history("club1", EVENTS, places)
            times.append((time.perf_counter() - start) * 1000)
        assert len(history) == EVENTS and history[0]["places"] == PAIRS
        times.sort()
        print(f"{EVENTS} events x {PAIRS} pairs, {label} ({len(history[0]['standings'])} places"
              f" each): median {statistics.median(times):.1f} ms,"
              f" p95 {times[int(READS * 0.95)]:.1f} ms")  # fmt: skip
    await players.close()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else str(Path(folder) / "h.db")))
