"""Quick match under a crowd: people joining the queue over a stretch of time, on a
simulated clock (so ten minutes run in seconds), each table made by the server's real
registry (SQLite in memory: the deal and the seats as in play).

    python bench/quickmatch.py [--people 2000] [--minutes 10] [--seed 1] [--bot-seconds 30]

Arrivals are a Poisson stream of ``--people`` over ``--minutes``; ratings (OpenSkill
ordinals) are drawn, seeded: a quarter newcomers (ordinal 0, a new profile's), the rest
from a normal of mean 15 and deviation 7. The queue makes a pass every second, as the server
does. Prints the median and 90th percentile wait, the rating spread within tables (the range
of the people's ordinals at a table), and the share of seats, and of tables, bots filled.
``--json PATH`` writes the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fouronefour.server.background.botrunner import InlineBotRunner
from fouronefour.server.clock import ManualScheduler
from fouronefour.server.config import ServerConfig
from fouronefour.server.matchmaking.pairing import SEATS, Spread
from fouronefour.server.matchmaking.queue import LocalQueue
from fouronefour.server.matchmaking.quickmatch import Person, QuickMatch
from fouronefour.server.matchmaking.tablemaker import Seated, Sitter, make_table
from fouronefour.server.registry import TableRegistry
from fouronefour.server.storage.sqlite import GroupCommitStorage
from fouronefour.server.tables.fanout import InProcessFanout


class SimulatedClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def crowd(people: int, minutes: float, seed: int) -> list[tuple[float, float]]:
    """(arrival time, ordinal) of each person, in arrival order."""
    rng = random.Random(seed)
    rate = people / (minutes * 60)
    arrivals, at = [], 0.0
    for _ in range(people):
        at += rng.expovariate(rate)
        ordinal = 0.0 if rng.random() < 0.25 else rng.gauss(15.0, 7.0)
        arrivals.append((at, ordinal))
    return arrivals


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def simulate(people: int, minutes: float, seed: int, bot_seconds: float) -> dict[str, Any]:
    storage = GroupCommitStorage(":memory:")
    registry = TableRegistry(ServerConfig(seed=seed, max_tables=people), storage, InProcessFanout())
    scheduler = ManualScheduler()  # (the matches are dealt, never advanced: not measured)
    await registry.start(scheduler, InlineBotRunner(lambda f: scheduler.call_later(0, f)))

    async def make(seats: Sequence[Sitter | None], options: dict[str, Any]) -> dict[int, Seated]:
        return await make_table(registry, seats, options)

    clock = SimulatedClock()
    quick = QuickMatch(LocalQueue(), make, Spread(bot_fill_seconds=bot_seconds), clock)
    arrivals = crowd(people, minutes, seed)
    joined: dict[str, float] = {}
    waits: list[float] = []
    spreads: list[float] = []
    bot_seats = tables_made = tables_with_bots = 0
    started = time.perf_counter()
    index = 0
    while index < len(arrivals) or await quick.queue.waiting():
        clock.now += 1.0
        while index < len(arrivals) and arrivals[index][0] <= clock.now:
            at, ordinal = arrivals[index]
            profile = f"p{index}"
            clock_now = clock.now
            clock.now = at  # (joined at the arrival's own time)
            await quick.join(Person(profile, f"Player {index}", ordinal))
            clock.now = clock_now
            joined[profile] = at
            index += 1
        for table in await quick.match_once():
            tables_made += 1
            bot_seats += table.bots
            tables_with_bots += table.bots > 0
            spreads.append(table.spread)
            waits.extend(clock.now - joined[e.profile] for e in table.people)
    wall = time.perf_counter() - started
    storage.close()
    return {
        "people": people,
        "minutes": minutes,
        "seed": seed,
        "bot_seconds": bot_seconds,
        "tables": tables_made,
        "wait_median_s": round(statistics.median(waits), 1),
        "wait_p90_s": round(percentile(waits, 0.9), 1),
        "wait_max_s": round(max(waits), 1),
        "spread_median": round(statistics.median(spreads), 2),
        "spread_p90": round(percentile(spreads, 0.9), 2),
        "spread_max": round(max(spreads), 2),
        "bot_seat_share": round(bot_seats / (tables_made * SEATS), 3),
        "tables_with_bots_share": round(tables_with_bots / tables_made, 3),
        "wall_seconds": round(wall, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=2000)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot-seconds", type=float, default=30.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    figures = asyncio.run(simulate(args.people, args.minutes, args.seed, args.bot_seconds))
    for key, value in figures.items():
        print(f"{key:>24}: {value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
