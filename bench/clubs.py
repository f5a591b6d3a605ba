"""A full club's reads and writes, on SQLite and on PostgreSQL (docs/clubs.md).

    python bench/clubs.py                      # 200 members, 3,000 matches, 2,000 lines
    python bench/clubs.py --only sqlite --samples 500

One club at its limit of members (200), ``--matches`` recorded 4-player matches among
members (half at the club's tables, so in its history; a quarter of the seats are one
member with a non-member) and ``--others`` matches of non-members only, and a chat wall of
``--lines`` lines, all written through the stores as the server writes them. Then, through
the service (clubs/service.py), ``--samples`` times each: the club's page, its results
among members as the store reads them and its leaderboard (which keeps those 30 s), its
history page, its wall, a wall line said, and
``role`` (what the tournaments ask). Reported: p50, p99 and max in ms per operation.
PostgreSQL is the tests' throwaway server (tests/sandbox.py, fsync off).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))  # tests.sandbox: the throwaway PostgreSQL

from fouronefour.server.clubs.service import Clubs  # noqa: E402
from fouronefour.server.clubs.store import ClubStore  # noqa: E402
from fouronefour.server.clubs.throttle import ClubThrottle, Flood  # noqa: E402
from fouronefour.server.clubs.values import MAX_MEMBERS  # noqa: E402
from fouronefour.server.players.ratings import NEWCOMER  # noqa: E402
from fouronefour.server.players.sqlstore import SqlPlayerStore  # noqa: E402
from fouronefour.server.players.throttle import Budget  # noqa: E402
from fouronefour.server.players.values import MatchRecord, MatchSeat, Profile  # noqa: E402

#: No flood limit in the way of the measurement (the limits are tested elsewhere).
UNLIMITED = ClubThrottle(budgets={flood: Budget(10**9, 1e9) for flood in Flood})


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def percentiles(times: list[float]) -> str:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"p50 {statistics.median(ordered) * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms,"
        f" max {ordered[-1] * 1000:.2f} ms"
    )


async def fill(store: SqlPlayerStore, clubs: Clubs, args: argparse.Namespace) -> str:
    rng = random.Random(args.seed)
    now = int(clubs.now())
    members = [f"m{i:04d}" for i in range(MAX_MEMBERS)]
    strangers = [f"s{i:04d}" for i in range(400)]
    for pid in members + strangers:
        await store.create_profile(Profile(pid, pid, "fox", "en", now, now, None, NEWCOMER))
    club = await clubs.create(members[0], "Bench club")
    for pid in members[1:]:
        await clubs.join(pid, club["invite"])
    tables = [f"CB{i:04d}" for i in range(args.matches // 20 + 1)]
    for code in tables:
        await clubs.store.add_table(club["id"], code, "secret", now - 86_400_000)
    for i in range(args.matches + args.others):
        if i < args.matches:
            four = rng.sample(members, 4)
            if rng.random() < 0.25:
                four[3] = rng.choice(strangers)
            code = rng.choice(tables) if i % 2 == 0 else f"EL{i:06d}"
        else:
            four, code = rng.sample(strangers, 4), f"OT{i:06d}"
        winners = rng.randrange(2)
        seats = tuple(
            MatchSeat(s, s % 2, pid, 1 if s % 2 == winners else 2, None, pid)
            for s, pid in enumerate(four)
        )
        await store.record_match(MatchRecord(code, 1, now - 3_600_000 + i, True, seats, 3))
    for i in range(args.lines):
        clubs._clock.now += 0.001  # type: ignore[attr-defined]
        await clubs.say(club["id"], rng.choice(members), f"line {i}")
    return str(club["id"])


async def measure(clubs: Clubs, club_id: str, args: argparse.Namespace, label: str) -> None:
    rng = random.Random(args.seed + 1)
    reader = "m0001"
    work: dict[str, Callable[[], Awaitable[Any]]] = {
        "page": lambda: clubs.page(club_id, reader),
        "results among members (the store's read)": lambda: clubs.store.results_among(club_id),
        "leaderboard (its results kept 30 s)": lambda: clubs.leaderboard(club_id, reader),
        "history": lambda: clubs.history(club_id, reader),
        "chat (read)": lambda: clubs.chat(club_id, reader),
        "chat (say)": lambda: clubs.say(club_id, f"m{rng.randrange(200):04d}", "hello"),
        "role": lambda: clubs.role(club_id, f"m{rng.randrange(200):04d}"),
    }
    for name, call in work.items():
        times = []
        for _ in range(args.samples):
            start = time.perf_counter()
            await call()
            times.append(time.perf_counter() - start)
        print(f"{label}: {name}: {percentiles(times)}", flush=True)


async def run(store: SqlPlayerStore, args: argparse.Namespace, label: str) -> None:
    await store.open()
    try:
        clubs = Clubs(ClubStore(store.db), UNLIMITED, clock=Clock())
        start = time.perf_counter()
        club_id = await fill(store, clubs, args)
        print(f"{label}: filled in {time.perf_counter() - start:.1f} s", flush=True)
        await measure(clubs, club_id, args, label)
    finally:
        await store.close()


async def main_async(args: argparse.Namespace) -> None:
    if args.only in (None, "sqlite"):
        from fouronefour.server.players.sqlite import sqlite_players

        with tempfile.TemporaryDirectory() as workdir:
            await run(sqlite_players(str(Path(workdir) / "clubs.db")), args, "sqlite")
    if args.only in (None, "postgres"):
        from tests import sandbox

        from fouronefour.server.players.postgres import postgres_players

        reason = sandbox.missing()
        if reason:
            print(f"PostgreSQL: skipped ({reason})")
            return
        server = sandbox.LocalPostgres()
        server.start()
        try:
            await run(postgres_players(server.new_database()), args, "postgres")
        finally:
            server.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3_000)
    parser.add_argument("--others", type=int, default=3_000)
    parser.add_argument("--lines", type=int, default=2_000)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=414)
    parser.add_argument("--only", choices=("sqlite", "postgres"))
    asyncio.run(main_async(parser.parse_args()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
