"""Friends' presence and invites across a cluster of two processes (docs/friends.md).

    python bench/presence.py                      # 2,000 profiles, 50 friends each
    python bench/presence.py --profiles 10000     # the issue's size
    python bench/presence.py --profiles 4000 --samples 300 --invites 300

Two ``fouronefour serve`` processes share a throwaway PostgreSQL and Redis (tests/sandbox.py,
as bench/server_load.py). ``--profiles`` profiles, their sessions and a friendship graph
where each has ``--friends`` friends (a ring: profile i and i +- 1 .. friends/2) are written
straight into the players' tables (making them through HTTP would measure the sign-up, not
presence). Every profile then opens its profile socket (``/ws/me``) on process ``i % 2``:
half of each one's friends are on the other process.

Measured:

- **status**: ``--samples`` profiles, one after the other, close their socket and open it
  again; for each of their friends, the time from the close (the open) to the friend's
  socket receiving "offline" ("online"), apart for friends on the same and on the other
  process;
- **invite**: ``--invites`` profiles on process 0 each create a table (from their page
  session) and invite a friend whose socket is on process 1: the time from sending
  ``POST /api/friends/invites`` to that socket receiving the invite;
- with ``--kill``, then: process 1 is killed (SIGKILL), and for ``--samples`` of its
  profiles, the time until each of their friends on process 0 is told they are offline.

Reported: p50, p99 and max in milliseconds, and the processes' CPU and memory. All of it on
this one machine: the client's sockets share its cores with the servers, PostgreSQL and Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import secrets
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import orjson
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))  # tests.sandbox: the throwaway PostgreSQL and Redis

from fouronefour.server.players import tokens  # noqa: E402

#: Rows written a batch at a time; sockets opened so many at once.
BATCH = 5_000
OPENING = 100
DAY_MS = 86_400_000


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """One ``fouronefour serve`` process of the cluster."""

    def __init__(self, db: str, redis: str, node: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [
            sys.executable, "-m", "fouronefour.cli", "serve",
            "--port", str(self.port), "--db", db, "--broker", redis, "--node", node,
            "--analysis-processes", "0", "--rate", "100000", "--rate-burst", "100000",
        ]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def wait(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.url + "/api/health", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise SystemExit("a server did not start")

    def usage(self) -> tuple[float, float]:
        """CPU seconds and resident MB so far (from /proc)."""
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        rss = int(fields[21]) * os.sysconf("SC_PAGE_SIZE") / 1e6
        return cpu, rss

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def profile_id(i: int) -> str:
    return f"b{i:07d}"


async def write_people(db: str, count: int, friends: int) -> list[str]:
    """The profiles, a session each (returns their tokens) and the ring of friendships."""
    now = int(time.time() * 1000)
    conn = await asyncpg.connect(db)
    try:
        tokens_ = [secrets.token_urlsafe(32) for _ in range(count)]
        profiles = [
            (profile_id(i), f"P{i}", "fox", "en", now, now, None, 25.0, 25 / 3, 0.0, 0, 0, None)
            for i in range(count)
        ]
        await conn.copy_records_to_table(
            "player_profiles",
            records=profiles,
            columns=["id", "name", "avatar", "language", "created_at", "last_seen", "username",
                     "mu", "sigma", "ordinal", "rated_matches", "deleted", "board_bucket"],
        )  # fmt: skip
        sessions = [
            (tokens.token_hash(t), profile_id(i), now, now, now + 90 * DAY_MS, "guest")
            for i, t in enumerate(tokens_)
        ]
        await conn.copy_records_to_table(
            "player_sessions",
            records=sessions,
            columns=["token_hash", "profile_id", "created_at", "last_used", "expires_at", "how"],
        )
        half = friends // 2
        links = [
            (profile_id(i), profile_id((i + d) % count), now)
            for i in range(count)
            for d in [*range(1, half + 1), *range(-half, 0)]
        ]
        for start in range(0, len(links), BATCH * 10):
            await conn.copy_records_to_table(
                "friend_links",
                records=links[start : start + BATCH * 10],
                columns=["profile_id", "friend_id", "since"],
            )
        await conn.execute("ANALYZE friend_links")
    finally:
        await conn.close()
    return tokens_


class Screens:
    """Every profile's socket, and when each learnt what of whom."""

    def __init__(self, servers: list[Server], tokens_: list[str]) -> None:
        self.servers = servers
        self.tokens = tokens_
        self.sockets: dict[int, Any] = {}
        self.readers: dict[int, asyncio.Task[None]] = {}
        #: (watcher, friend id, status) -> when it was told; invites by their link.
        self.told: dict[tuple[int, str, str], float] = {}
        self.invited: dict[str, float] = {}
        self.watched: set[str] = set()
        self.waiters: dict[Any, asyncio.Future[None]] = {}

    def where(self, i: int) -> Server:
        return self.servers[i % 2]

    async def open(self, i: int) -> None:
        server = self.where(i)
        ws = await websockets.connect(
            server.url.replace("http", "ws") + "/ws/me",
            additional_headers={"Cookie": f"fof_session={self.tokens[i]}"},
            compression=None,
            open_timeout=60,
        )
        self.sockets[i] = ws
        self.readers[i] = asyncio.create_task(self._read(i, ws))

    async def close(self, i: int) -> None:
        ws = self.sockets.pop(i)
        await ws.close()
        self.readers.pop(i).cancel()

    async def _read(self, i: int, ws: Any) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for data in ws:
                now = time.perf_counter()
                message = orjson.loads(data)
                if message.get("type") == "presence":
                    for friend, status in message["friends"].items():
                        if friend in self.watched:
                            key = (i, friend, status["status"])
                            self.told[key] = now
                            self._wake(key)
                elif message.get("type") == "invite":
                    self.invited[message["link"]] = now
                    self._wake(message["link"])

    def _wake(self, key: Any) -> None:
        waiter = self.waiters.pop(key, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def told_at(self, key: Any, seen: dict[Any, float], timeout: float = 20.0) -> float:
        if key not in seen:
            waiter = self.waiters.setdefault(key, asyncio.get_running_loop().create_future())
            await asyncio.wait_for(waiter, timeout)
        return seen[key]


def friends_of(i: int, count: int, friends: int) -> list[int]:
    half = friends // 2
    return [(i + d) % count for d in [*range(1, half + 1), *range(-half, 0)]]


async def measure(
    screens: Screens, count: int, friends: int, samples: int, invites: int
) -> dict[str, list[float]]:
    found: dict[str, list[float]] = defaultdict(list)
    step = max(1, count // max(1, samples))
    chosen = list(range(0, count, step))[:samples]
    screens.watched = {profile_id(i) for i in chosen}
    for i in chosen:
        who = profile_id(i)
        for status, change in (("offline", screens.close), ("online", screens.open)):
            for f in friends_of(i, count, friends):
                screens.told.pop((f, who, status), None)
            started = time.perf_counter()
            await change(i)
            for f in friends_of(i, count, friends):
                at = await screens.told_at((f, who, status), screens.told)
                side = "other" if f % 2 != i % 2 else "same"
                found[f"status, friend on the {side} process"].append((at - started) * 1000)
    # Invites: from process 0 (even) to a friend on process 1 (its neighbour i + 1).
    inviters = [i for i in range(0, count, max(2, (count // max(1, invites)) & ~1))][:invites]
    async with httpx.AsyncClient(timeout=30) as http:
        for i in inviters:
            token = screens.tokens[i]
            headers = {
                "Cookie": f"fof_session={token}",
                "X-CSRF-Token": tokens.csrf_token(token),
            }
            base = screens.where(i).url
            made = await http.post(f"{base}/api/tables", json={"name": "B"}, headers=headers)
            code = made.raise_for_status().json()["code"]
            friend = (i + 1) % count
            started = time.perf_counter()
            answer = await http.post(
                f"{base}/api/friends/invites",
                json={"id": profile_id(friend), "table": code},
                headers=headers,
            )
            assert answer.status_code == 201, answer.text
            at = await screens.told_at(f"/t/{code}", screens.invited)
            found["invite to the other process"].append((at - started) * 1000)
    return found


async def kill_one(screens: Screens, count: int, friends: int, samples: int) -> list[float]:
    """Process 1 killed (SIGKILL): for ``samples`` of its profiles, how long until each of
    their friends on process 0 is told they are offline (ms since the kill)."""
    step = max(2, (count // max(1, samples)) | 1)
    chosen = [i for i in range(1, count, step) if i % 2 == 1][:samples]
    screens.watched = {profile_id(i) for i in chosen}
    screens.told.clear()
    killed = time.perf_counter()
    screens.servers[1].process.kill()
    found = []
    for i in chosen:
        for f in friends_of(i, count, friends):
            if f % 2 == 0:
                at = await screens.told_at((f, profile_id(i), "offline"), screens.told)
                found.append((at - killed) * 1000)
    return found


def quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"{len(values):>6} | {p50:8.1f} | {p99:8.1f} | {ordered[-1]:8.1f}"


async def run(args: argparse.Namespace, servers: list[Server], db: str) -> None:
    started = time.perf_counter()
    tokens_ = await write_people(db, args.profiles, args.friends)
    print(f"wrote {args.profiles} profiles, {args.profiles * args.friends} friend rows"
          f" in {time.perf_counter() - started:.1f} s")  # fmt: skip
    screens = Screens(servers, tokens_)
    started = time.perf_counter()
    for start in range(0, args.profiles, OPENING):
        await asyncio.gather(
            *(screens.open(i) for i in range(start, min(start + OPENING, args.profiles)))
        )
    print(f"opened {len(screens.sockets)} profile sockets in {time.perf_counter() - started:.1f} s")
    await asyncio.sleep(2.0)  # (the statuses of everyone settle)
    before = [s.usage() for s in servers]
    started = time.perf_counter()
    found = await measure(screens, args.profiles, args.friends, args.samples, args.invites)
    took = time.perf_counter() - started
    after = [s.usage() for s in servers]
    print()
    print(f"{args.profiles} profiles, {args.friends} friends each, 2 processes; ms:")
    print(f"{'what':<38} | {'count':>6} | {'p50':>8} | {'p99':>8} | {'max':>8}")
    for name, values in sorted(found.items()):
        print(f"{name:<38} | {quantiles(values)}")
    for n, (b, a) in enumerate(zip(before, after, strict=True)):
        print(f"process {n}: {(a[0] - b[0]) / took * 100:.0f}% of a core while measured,"
              f" {a[1]:.0f} MB resident")  # fmt: skip
    if args.kill:
        gone = await kill_one(screens, args.profiles, args.friends, args.samples)
        print(f"{'offline after a SIGKILL of process 1':<38} | {quantiles(gone)}")
    for i in list(screens.sockets):
        with contextlib.suppress(Exception):
            await screens.close(i)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profiles", type=int, default=2000)
    parser.add_argument("--friends", type=int, default=50)
    parser.add_argument("--samples", type=int, default=200, help="profiles whose status changes")
    parser.add_argument("--invites", type=int, default=200)
    parser.add_argument("--kill", action="store_true",
                        help="then kill process 1: how soon its profiles are offline")  # fmt: skip
    args = parser.parse_args()
    if args.friends % 2 or args.friends >= args.profiles:
        raise SystemExit("--friends is even and fewer than --profiles")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, args.profiles * 3 + 1000))
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))  # servers inherit it
    from tests import sandbox

    reason = sandbox.missing()
    if reason:
        raise SystemExit(f"needs PostgreSQL and Redis: {reason}")
    postgres, redis = sandbox.LocalPostgres(), sandbox.LocalRedis()
    postgres.start()
    redis.start()
    servers: list[Server] = []
    try:
        db = postgres.new_database()
        servers = [Server(db, redis.url, f"n{n}") for n in range(2)]
        for server in servers:
            server.wait()
        asyncio.run(run(args, servers, db))
    finally:
        for server in servers:
            server.stop()
        redis.close()
        postgres.close()


if __name__ == "__main__":
    main()
