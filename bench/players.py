"""The players' reads and a match's end at scale, on SQLite and on PostgreSQL.

    python bench/players.py                          # 10,000 profiles, 50,000 matches
    python bench/players.py --profiles 1000000 --matches 10000000   # the issue's scale
    python bench/players.py --only sqlite --samples 500

A seeded generator (``--seed``) writes ``--profiles`` profiles and ``--matches`` recorded
4-player matches (two teams of two; a fifth of the seats are bots of a random level) straight
into the players' tables (bulk inserts: rating each of millions of matches one by one would
take hours and measures nothing asked here), with ratings drawn around the newcomer's, and
the leaderboard's buckets counted (``rebuild_board``). Then,
through the store (players/sqlstore.py) as the server calls it, ``--samples`` times each:

- the global top 100, and a random player's rank;
- a random player's newest history page (20 matches, every seat), and their stats;
- a match end: ``record_match`` of a new rated match of 4 random players (the match row, 4
  seat rows and 4 rating updates in one transaction).

Operations run back to back, or ``--pace`` milliseconds apart. Reported: p50, p99 and max in
milliseconds per operation and database. ``--passwords N``
also times N argon2id verifications at the documented parameters (players/passwords.py):
a sign-in's cost, and so how many guesses one core can check a second. SQLite is a file in a
temporary directory (WAL, as the server's, with the tables' storage open on it as in the
server, whose checkpointer alone copies the WAL back beside the writers); PostgreSQL the tests'
throwaway server (tests/sandbox.py, fsync off as there: the figures are the queries', not
the disk's).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))  # tests.sandbox: the throwaway PostgreSQL

from fouronefour.server.players.sqlstore import SqlPlayerStore  # noqa: E402
from fouronefour.server.players.values import MatchRecord, MatchSeat  # noqa: E402

LEVELS = ("beginner", "casual", "strong", "expert")
#: Matches (and then profiles) written a batch at a time.
BATCH = 20_000


def profile_id(i: int) -> str:
    return f"p{i:08d}"


def profiles(rng: random.Random, count: int, played: list[int]) -> Iterator[tuple[Any, ...]]:
    for i in range(count):
        mu = rng.gauss(25.0, 3.0)
        sigma = max(1.0, 8.33 - 0.3 * played[i]) if played[i] else 25 / 3
        yield (
            profile_id(i), f"Player {i}", "fox", "en", 0, 0, None, None, mu, sigma,
            mu - 3 * sigma, played[i], 0,
        )  # fmt: skip


def matches(
    rng: random.Random, count: int, people: int, played: list[int]
) -> Iterator[tuple[tuple[Any, ...], list[tuple[Any, ...]]]]:
    """(match row, its 4 seat rows) for ``count`` matches, a minute apart."""
    for n in range(count):
        code = f"B{n // 1000:06d}"
        at = 1_600_000_000_000 + n * 60_000
        winner = rng.randrange(2)
        seats = []
        chosen = rng.sample(range(people), 4)
        for seat in range(4):
            team = seat % 2
            rank = 1 if team == winner else 2
            if rng.random() < 0.2:
                seats.append((code, n % 1000, seat, team, f"Bot {seat + 1}", rank, seat + 1,
                              None, rng.choice(LEVELS), at, None, None, None, None))  # fmt: skip
                continue
            who = chosen[seat]
            played[who] += 1
            mu = rng.gauss(25.0, 3.0)
            seats.append((code, n % 1000, seat, team, f"Player {who}", rank, seat + 1,
                          profile_id(who), None, at, mu, 5.0, mu + 0.5, 4.9))  # fmt: skip
        yield (code, n % 1000, at, 1, 8), seats


PROFILE_SQL = (
    "INSERT INTO player_profiles (id, name, avatar, language, created_at, last_seen, username,"
    " password_hash, mu, sigma, ordinal, rated_matches, deleted) VALUES"
    " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
MATCH_SQL = (
    "INSERT INTO player_matches (code, number, finished_at, rated, rounds) VALUES (?, ?, ?, ?, ?)"
)
SEAT_SQL = (
    "INSERT INTO player_match_seats (code, number, seat, team, name, rank, place, profile_id,"
    " bot_level, finished_at, mu_before, sigma_before, mu_after, sigma_after)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def batches(args: argparse.Namespace) -> Iterator[tuple[str, list[tuple[Any, ...]]]]:
    """The rows to write, as (statement, rows) a batch at a time, made as they are written
    (the issue's 10,000,000 matches would not fit in memory at once): the matches and their
    seats first, then the profiles, whose match counts those decided. The same seed makes
    the same rows for each database."""
    rng = random.Random(args.seed)
    played = [0] * args.profiles
    match_rows: list[tuple[Any, ...]] = []
    seat_rows: list[tuple[Any, ...]] = []
    for row, seats in matches(rng, args.matches, args.profiles, played):
        match_rows.append(row)
        seat_rows += seats
        if len(match_rows) == BATCH:
            yield MATCH_SQL, match_rows
            yield SEAT_SQL, seat_rows
            match_rows, seat_rows = [], []
    if match_rows:
        yield MATCH_SQL, match_rows
        yield SEAT_SQL, seat_rows
    rows: list[tuple[Any, ...]] = []
    for row in profiles(rng, args.profiles, played):
        rows.append(row)
        if len(rows) == BATCH:
            yield PROFILE_SQL, rows
            rows = []
    if rows:
        yield PROFILE_SQL, rows


def fill_sqlite(path: str, args: argparse.Namespace) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    for sql, rows in batches(args):
        conn.execute("BEGIN")
        conn.executemany(sql, rows)
        conn.execute("COMMIT")
    conn.execute("ANALYZE")
    conn.close()


async def fill_postgres(url: str, args: argparse.Namespace) -> None:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        for sql, rows in batches(args):
            table, _, rest = sql.removeprefix("INSERT INTO ").partition(" (")
            columns = [c.strip() for c in rest.partition(")")[0].split(",")]
            await conn.copy_records_to_table(table, records=rows, columns=columns)
        await conn.execute("ANALYZE")
    finally:
        await conn.close()


def percentiles(times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"p50 {statistics.median(ms):7.2f}  p99 {p99:7.2f}  max {ms[-1]:7.2f} ms"


async def measure(
    store: SqlPlayerStore, args: argparse.Namespace, label: str
) -> dict[str, list[float]]:
    rng = random.Random(args.seed + 1)
    # Players who played: the ones a history, stats or rank is asked of.
    people = [profile_id(rng.randrange(args.profiles)) for _ in range(args.samples)]

    async def timed(work: Callable[[], Awaitable[object]]) -> float:
        start = time.perf_counter()
        await work()
        return time.perf_counter() - start

    results: dict[str, list[float]] = {}
    operations: list[tuple[str, Callable[[int], Callable[[], Awaitable[object]]]]] = [
        ("top 100", lambda i: lambda: store.top(100)),
        ("a player's rank", lambda i: lambda: store.rank(people[i])),
        ("history page (20)", lambda i: lambda: store.history(people[i], 20)),
        ("stats", lambda i: lambda: store.stats(people[i])),
        ("match end, 4 ratings", lambda i: lambda: store.record_match(new_match(rng, args, i))),
    ]
    for name, make in operations:
        for i in range(min(5, args.samples)):  # warm the caches a little
            if name != "match end, 4 ratings":
                await make(i)()
        results[name] = []
        for i in range(args.samples):
            results[name].append(await timed(make(i)))
            if args.pace:
                await asyncio.sleep(args.pace / 1000)
        print(f"  {label:10} {name:22} {percentiles(results[name])}", flush=True)
    return results


def new_match(rng: random.Random, args: argparse.Namespace, i: int) -> MatchRecord:
    chosen = rng.sample(range(args.profiles), 4)
    seats = tuple(
        MatchSeat(
            s, s % 2, f"Player {chosen[s]}", 1 if s % 2 == 0 else 2, s + 1, profile_id(chosen[s])
        )
        for s in range(4)
    )
    # (A code of this run's: a kept database holds the matches of the runs before, and a
    # match recorded again changes nothing.)
    return MatchRecord(RUN_CODE, i, 1_700_000_000_000 + i, True, seats, rounds=8)


RUN_CODE = f"BENCH{time.time_ns():x}"


async def run_sqlite(args: argparse.Namespace, workdir: Path) -> None:
    from fouronefour.server.players.sqlite import sqlite_players
    from fouronefour.server.storage.sqlite import GroupCommitStorage

    path = str(workdir / "players.db")
    marker = workdir / "players.db.filled"
    if filled(marker, args):
        print(f"SQLite: kept, {Path(path).stat().st_size / 1e6:.0f} MB", flush=True)
    else:
        marker.unlink(missing_ok=True)
        for stale in workdir.glob("players.db*"):
            stale.unlink()
        store = sqlite_players(path)
        await store.open()  # the schema
        await store.close()
        start = time.perf_counter()
        fill_sqlite(path, args)
        size = Path(path).stat().st_size / 1e6
        print(f"SQLite: filled in {time.perf_counter() - start:.1f} s, {size:.0f} MB", flush=True)
        marker.write_text(scale(args))
    # The tables' storage over the same file, as in the server: its checkpointer copies the
    # WAL back beside the writers (storage/sqlite.py, _Checkpointer).
    tables = GroupCommitStorage(path)
    store = sqlite_players(path, checkpoints=False)  # (the tables' checkpointer does it)
    await store.open()
    try:
        try:
            await store.rebuild_board()
            await measure(store, args, "sqlite")
        finally:
            tables.close()
        await written_pages(store, path, args)  # (no checkpointer now: the WAL keeps all)
    finally:
        await store.close()


async def written_pages(store: SqlPlayerStore, path: str, args: argparse.Namespace) -> None:
    """How many pages a match end writes (the WAL's frames a commit adds): what the
    checkpoints copy back and sync, and so what the slowest match ends wait behind."""
    wal = Path(path + "-wal")
    checkpoint = sqlite3.connect(path)
    try:
        checkpoint.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = checkpoint.execute("PRAGMA page_size").fetchone()[0]
    finally:
        checkpoint.close()
    rng = random.Random(args.seed + 1)
    count = max(args.samples, 100)
    for i in range(count):
        await store.record_match(new_match(rng, args, args.samples + i))
    frames = wal.stat().st_size / (page + 24)  # (a frame: a 24-byte header and its page)
    print(f"  sqlite     match end writes {frames / count:.1f} pages", flush=True)


async def run_postgres(args: argparse.Namespace, keep: Path | None) -> None:
    from tests import sandbox

    from fouronefour.server.players.postgres import postgres_players

    reason = sandbox.missing()
    if reason:
        print(f"PostgreSQL: skipped ({reason})")
        return
    server = sandbox.LocalPostgres(root=None if keep is None else keep / "postgres")
    server.start()
    marker = None if keep is None else keep / "postgres.filled"
    try:
        if marker is not None and filled(marker, args):
            url = server.url.rsplit("/", 1)[0] + "/db1"
            print("PostgreSQL: kept", flush=True)
        else:
            if marker is not None:
                marker.unlink(missing_ok=True)
            url = server.url.rsplit("/", 1)[0] + "/db1"
            await recreate(server.url, "db1")
            store = postgres_players(url)
            await store.open()
            await store.close()
            start = time.perf_counter()
            await fill_postgres(url, args)
            print(f"PostgreSQL: filled in {time.perf_counter() - start:.1f} s", flush=True)
            if marker is not None:
                marker.write_text(scale(args))
        store = postgres_players(url)
        await store.open()
        try:
            await store.rebuild_board()
            await measure(store, args, "postgres")
        finally:
            await store.close()
    finally:
        server.close()


async def recreate(admin_url: str, name: str) -> None:
    """An empty database ``name`` (one a stopped fill left is dropped first)."""
    import asyncpg

    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute(f"DROP DATABASE IF EXISTS {name}")
        await conn.execute(f"CREATE DATABASE {name} TEMPLATE template0")
    finally:
        await conn.close()


def time_passwords(count: int) -> None:
    from fouronefour.server.players.passwords import MEMORY_KIB, PARALLELISM, TIME_COST, Passwords

    hasher = Passwords()
    stored = hasher.hash("correct horse battery")
    times = []
    for _ in range(count):
        start = time.perf_counter()
        hasher.verify(stored, "correct horse battery")
        times.append(time.perf_counter() - start)
    per_core = 1 / statistics.median(times)
    print(
        f"argon2id m={MEMORY_KIB} KiB t={TIME_COST} p={PARALLELISM}: verify"
        f" {percentiles(times)}; {per_core:.0f} verifications a second a core",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=50_000)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        help="milliseconds between two operations (default 0: back to back; 50: 20 match ends"
        " a second, as tens of thousands of tables make, a match lasting half an hour or more)",
    )
    parser.add_argument("--seed", type=int, default=414)
    parser.add_argument("--only", choices=("sqlite", "postgres", "passwords"))
    parser.add_argument("--passwords", type=int, default=50)
    parser.add_argument(
        "--keep",
        type=Path,
        help="a folder that keeps the filled databases; a later run at the same scale and"
        " seed measures them again without filling (the full scale takes about 20 minutes"
        " a database to fill)",
    )
    args = parser.parse_args()
    if args.passwords:
        time_passwords(args.passwords)
    if args.only == "passwords":
        return 0
    print(
        f"{args.profiles:,} profiles, {args.matches:,} matches ({4 * args.matches:,} seats),"
        f" seed {args.seed}",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="players-bench-") as temporary:
        workdir = args.keep or Path(temporary)
        workdir.mkdir(parents=True, exist_ok=True)
        if args.only != "postgres":
            asyncio.run(run_sqlite(args, workdir))
        if args.only != "sqlite":
            asyncio.run(run_postgres(args, workdir if args.keep else None))
    return 0


def scale(args: argparse.Namespace) -> str:
    return f"{args.profiles} {args.matches} {args.seed}"


def filled(marker: Path, args: argparse.Namespace) -> bool:
    """Whether a kept database was filled at this run's scale and seed (its marker says
    so; a run stopped while filling leaves none, and the database is made again)."""
    return marker.exists() and marker.read_text() == scale(args)


if __name__ == "__main__":
    sys.exit(main())
