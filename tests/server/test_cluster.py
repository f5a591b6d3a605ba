"""A cluster: four ``fouronefour serve`` processes sharing one PostgreSQL database and one
Redis, each client reaching whichever process it is given (docs/architecture.md), or going
through HAProxy in front, which routes a table's sockets to its owner by ``?node=``
(docs/hosting.md, section 4).

A whole match with every seat on a different process; the table's owner killed (SIGKILL)
mid-match, several times, once at the very moment a client reads an ack; Redis restarted
mid-match; PostgreSQL stopped and started. Every acknowledged move is checked in the stored
match afterwards, and none is there twice."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import asyncpg
import httpx
import pytest
import redis
import websockets

from fouronefour.server.storage.postgres import lock_key
from tests import sandbox

from .conftest import Client, ServeProcess, free_port, load_example_client

PROCESSES = 4
example = load_example_client()


@dataclass
class Cluster:
    processes: list[ServeProcess]
    db: str
    redis: sandbox.LocalRedis
    postgres: sandbox.LocalPostgres
    #: HAProxy in front of the processes (None: not installed).
    balancer: sandbox.LocalHaproxy | None = None

    @property
    def urls(self) -> list[str]:
        return [p.url for p in self.processes]

    def publishes(self) -> int:
        """How many PUBLISH commands Redis has run."""
        client = redis.Redis.from_url(self.redis.url)
        try:
            stats = client.info("commandstats")
        finally:
            client.close()
        return int(stats.get("cmdstat_publish", {}).get("calls", 0))

    def sockets(self) -> dict[str, int]:
        """The sockets served by their table's owner and relayed, in all processes, since
        each started (``/api/sockets``)."""
        total = {"here_total": 0, "relayed_total": 0}
        for url in self.urls:
            with contextlib.suppress(httpx.HTTPError):
                counts = httpx.get(f"{url}/api/sockets", timeout=10).json()
                for key in total:
                    total[key] += counts[key]
        return total

    def owner(self, code: str) -> ServeProcess | None:
        """The process that owns table ``code`` now (by its advisory lock)."""

        async def ask() -> int | None:
            conn = await asyncpg.connect(self.db)
            try:
                name = await conn.fetchval(
                    "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a"
                    " ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.classid = 414"
                    " AND l.objid = $1 AND l.granted",
                    lock_key(code),
                )
            finally:
                await conn.close()
            return None if name is None else int(name.split()[-1])

        pid = asyncio.run(ask())
        for process in self.processes:
            if process.process is not None and process.process.pid == pid:
                return process
        return None

    def restart(self, process: ServeProcess) -> None:
        with contextlib.suppress(Exception):
            process.kill()
        process.start()


@pytest.fixture(scope="module")
def cluster(postgres: sandbox.LocalPostgres, redis_server: sandbox.LocalRedis) -> Iterator[Cluster]:
    db = postgres.new_database()
    processes = [
        ServeProcess(db, free_port(), "--broker", redis_server.url, "--node", f"n{n}")
        for n in range(PROCESSES)
    ]
    balancer = None
    if sandbox.haproxy() is not None:
        balancer = sandbox.LocalHaproxy([(f"n{n}", p.port) for n, p in enumerate(processes)])
    try:  # (one that does not start stops the others too)
        with ThreadPoolExecutor(PROCESSES) as pool:
            list(pool.map(lambda p: p.start(), processes))
        if balancer is not None:
            balancer.start()
        yield Cluster(processes, db, redis_server, postgres, balancer)
    finally:
        if balancer is not None:
            balancer.close()
        for process in processes:
            process.stop()


class RoundRobinPlayer(example.Player):  # type: ignore[name-defined,misc]
    """A player whose every (re)connection goes to the next process, as a load balancer
    spreading connections round-robin would send it; ``on_ack`` is called as an ack of one
    of its moves is read."""

    def __init__(self, servers: list[str], first: int, *args: Any, **kwargs: Any) -> None:
        super().__init__(servers[first], *args, **kwargs)
        self.servers = servers
        self.first = first
        self.on_ack: Callable[[], None] | None = None

    @property
    def ws_url(self) -> str:
        server = self.servers[(self.first + self.reconnects) % len(self.servers)]
        return str(server.replace("http", "ws", 1) + f"/ws/{self.code}")

    def _receive(self, message: dict[str, Any]) -> bool:
        acks = len(self.acked)
        over = bool(super()._receive(message))
        if len(self.acked) > acks and self.on_ack is not None:
            self.on_ack()
        return over


OPTIONS = {"players": 4, "hook_mode": "fast", "hook_seconds": 2, "turn_seconds": 20}


async def seat_four(cluster: Cluster, **options: Any) -> tuple[str, list[RoundRobinPlayer]]:
    """A table made on the first process, its seats joined through the others, each player
    connected to a process of its own."""
    urls = cluster.urls
    async with httpx.AsyncClient(timeout=10) as http:
        created = (
            (await http.post(f"{urls[0]}/api/tables", json={"name": "Host", **OPTIONS, **options}))
            .raise_for_status()
            .json()
        )
        code = created["code"]
        players = [
            RoundRobinPlayer(urls, 0, code, created["token"], 0, random.Random(0), host=True)
        ]
        for seat in range(1, 4):
            joined = (
                (
                    await http.post(
                        f"{urls[seat]}/api/tables/{code}/join",
                        json={"name": f"Guest {seat}", "seat": seat},
                    )
                )
                .raise_for_status()
                .json()
            )
            assert joined["seat"] == seat
            players.append(
                RoundRobinPlayer(urls, seat, code, joined["token"], seat, random.Random(seat))
            )
    return code, players


def check_acknowledged(url: str, code: str, players: list[RoundRobinPlayer]) -> None:
    """Every acknowledged move is in the stored match, in order, and none is there twice."""
    replay = httpx.get(f"{url}/api/tables/{code}/replays/1", timeout=10).json()
    for player in players:
        stored = [
            s["move"]
            for s in replay["steps"]
            if s["seat"] == player.seat
            and not (s["decision"] in ("hook", "unhook") and s["move"] == "pass")
        ]
        acked = [move for _, move in player.acked]
        remaining = iter(stored)
        assert all(any(move == m for m in remaining) for move in acked), player.seat
        versions = [v for v, _ in player.acked]
        assert len(set(versions)) == len(versions)  # no move applied (acknowledged) twice


async def play(players: list[RoundRobinPlayer], during: Any = None, seconds: float = 90) -> None:
    start = asyncio.Event()
    tasks = [asyncio.create_task(p.play(retry_seconds=seconds)) for p in players[1:]]
    await asyncio.sleep(0.2)
    tasks.append(asyncio.create_task(players[0].play(start, retry_seconds=seconds)))
    try:
        if during is not None:
            await during(tasks)
        await asyncio.wait_for(asyncio.gather(*tasks), seconds)
    finally:
        for task in tasks:
            task.cancel()


async def seat_four_through(balancer: str, **options: Any) -> tuple[str, list[Any]]:
    """A table made and its seats joined through the load balancer (so on any process);
    each player connects its socket through it, with the node the answers named."""
    async with httpx.AsyncClient(base_url=balancer, timeout=10) as http:
        body = {"name": "Host", **OPTIONS, **options}
        created = (await http.post("/api/tables", json=body)).raise_for_status().json()
        code = created["code"]
        players = [
            example.Player(
                balancer,
                code,
                created["token"],
                0,
                random.Random(0),
                host=True,
                node=created["node"],
            )
        ]
        for seat in range(1, 4):
            joined = (
                (
                    await http.post(
                        f"/api/tables/{code}/join", json={"name": f"Guest {seat}", "seat": seat}
                    )
                )
                .raise_for_status()
                .json()
            )
            assert joined["node"] == created["node"]  # (the owner's, whoever answered)
            players.append(
                example.Player(
                    balancer,
                    code,
                    joined["token"],
                    seat,
                    random.Random(seat),
                    node=joined["node"],
                )
            )
    return code, players


def balanced(cluster: Cluster) -> str:
    if cluster.balancer is None:
        pytest.skip("HAProxy is not installed (Debian: apt-get install haproxy)")
    return cluster.balancer.url


def test_through_the_balancer_every_socket_lands_on_its_tables_owner(cluster: Cluster) -> None:
    """Issue 26: behind round-robin, 3 sockets in 4 reached a process that did not own their
    table and were relayed. Through HAProxy routing by ``?node=`` (the owner's name, in the
    create and join answers) none is: three tables, made on whichever process the balancer
    picked, each played through by four sockets. And with no connection relayed, their
    owners publish their updates in Redis no more (1.6 PUBLISH a decision before)."""
    url = balanced(cluster)
    before = cluster.sockets()
    published = cluster.publishes()

    async def scenario() -> list[tuple[str, list[Any]]]:
        tables = [await seat_four_through(url) for _ in range(3)]
        await asyncio.gather(*(play(players) for _, players in tables))  # type: ignore[arg-type]
        return tables

    tables = asyncio.run(scenario())
    after = cluster.sockets()
    here = after["here_total"] - before["here_total"]
    relayed = after["relayed_total"] - before["relayed_total"]
    assert here >= 12 and relayed == 0, (here, relayed)
    # (What is left: each table's owner announced, the joins relayed over HTTP.)
    decisions = sum(len(p.acked) for _, players in tables for p in players)
    published = cluster.publishes() - published
    assert published < decisions / 4, (decisions, published)
    for code, players in tables:
        owner = cluster.owner(code)
        assert owner is not None and players[0].node == f"n{cluster.processes.index(owner)}"
        table = httpx.get(f"{url}/api/tables/{code}", timeout=10).json()
        assert table["status"] == "finished" and table["node"] == players[0].node
        check_acknowledged(url, code, players)  # type: ignore[arg-type]


def test_through_the_balancer_a_killed_owners_table_is_served_again(cluster: Cluster) -> None:
    """The owner SIGKILLed mid-match: its players reconnect through the balancer with its
    node, which is down, so HAProxy sends them to another process, which takes the table
    over; play goes on within seconds, no acknowledged move lost or applied twice. The
    killed process restarts meanwhile (its node comes back) and play still goes on."""
    url = balanced(cluster)
    measured: dict[str, float] = {}
    before = cluster.sockets()

    async def scenario() -> tuple[str, list[Any]]:
        code, players = await seat_four_through(url)

        def acked() -> int:
            return sum(len(p.acked) for p in players)

        async def during(tasks: list[asyncio.Task[None]]) -> None:
            while acked() < 30 and not any(t.done() for t in tasks):
                await asyncio.sleep(0.01)
            owner = await asyncio.to_thread(cluster.owner, code)
            assert owner is not None and owner.process is not None
            reconnects = sum(p.reconnects for p in players)
            os.kill(owner.process.pid, signal.SIGKILL)
            killed = time.monotonic()
            # Played again: a move acknowledged after a player reconnected (not one that
            # was on its way when the owner died).
            while sum(p.reconnects for p in players) == reconnects:
                if time.monotonic() - killed > 20:
                    return
                await asyncio.sleep(0.01)
            count = acked()
            while acked() == count and time.monotonic() - killed < 20:
                await asyncio.sleep(0.01)
            measured["played"] = time.monotonic() - killed
            await asyncio.to_thread(cluster.restart, owner)

        await play(players, during, seconds=120)  # type: ignore[arg-type]
        return code, players

    code, players = asyncio.run(scenario())
    after = cluster.sockets()
    print(  # (how many of the reconnected sockets were relayed: not asserted, a race)
        "failover through the balancer:",
        measured,
        {key: after[key] - before[key] for key in after},
    )
    # Served again within the 2 s on a quiet machine (played again: plus a move);
    # a loaded test run is given more.
    assert measured.get("played", 99) < 6, measured
    # The welcome named the new owner, and each player went to it rather than staying on
    # a relay while its socket lasted.
    owner = httpx.get(f"{url}/api/tables/{code}", timeout=10).json()["node"]
    assert [p.node for p in players] == [owner] * 4, owner
    assert any(p.reconnects for p in players)
    table = httpx.get(f"{url}/api/tables/{code}", timeout=10).json()
    assert table["status"] == "finished"
    check_acknowledged(url, code, players)  # type: ignore[arg-type]


def test_a_whole_match_with_every_seat_on_a_different_process(cluster: Cluster) -> None:
    async def scenario() -> tuple[str, list[RoundRobinPlayer]]:
        code, players = await seat_four(cluster)
        await play(players)
        return code, players

    code, players = asyncio.run(scenario())
    assert all(p.reconnects == 0 for p in players)  # nobody had to: one process each
    for url in cluster.urls:  # every process answers for the table alike
        table = httpx.get(f"{url}/api/tables/{code}", timeout=10).json()
        assert table["status"] == "finished" and table["finished_matches"] == [1]
    check_acknowledged(cluster.urls[1], code, players)


def test_the_owner_killed_mid_match_again_and_again(cluster: Cluster) -> None:
    """The owner is SIGKILLed three times: twice when the match has gone some way, once at
    the moment a client reads an ack; another process takes the table over and the clients
    carry on after reconnecting, losing no acknowledged move."""
    kills: list[float] = []

    async def scenario() -> tuple[str, list[RoundRobinPlayer]]:
        code, players = await seat_four(cluster)
        loop = asyncio.get_running_loop()

        def kill_owner() -> ServeProcess | None:
            owner = cluster.owner(code)
            if owner is not None and owner.process is not None:
                os.kill(owner.process.pid, signal.SIGKILL)
                kills.append(time.monotonic())
            return owner

        async def during(tasks: list[asyncio.Task[None]]) -> None:
            def acked() -> int:
                return sum(len(p.acked) for p in players)

            for threshold in (30, 90):
                while acked() < threshold and not any(t.done() for t in tasks):
                    await asyncio.sleep(0.01)
                owner = await loop.run_in_executor(None, kill_owner)
                if owner is not None:
                    await loop.run_in_executor(None, cluster.restart, owner)
            # At the moment an ack is read: the kill happens inside the client's read.
            victim = await loop.run_in_executor(None, cluster.owner, code)
            fired = asyncio.Event()

            def at_ack() -> None:
                players[2].on_ack = None
                if victim is not None and victim.process is not None:
                    os.kill(victim.process.pid, signal.SIGKILL)
                    kills.append(time.monotonic())
                fired.set()

            players[2].on_ack = at_ack
            await fired.wait()
            if victim is not None:
                await loop.run_in_executor(None, cluster.restart, victim)

        await play(players, during, seconds=120)
        return code, players

    code, players = asyncio.run(scenario())
    assert len(kills) == 3, "the match ended before the owner could be killed three times"
    assert any(p.reconnects for p in players)
    table = httpx.get(f"{cluster.urls[0]}/api/tables/{code}", timeout=10).json()
    assert table["status"] == "finished"
    check_acknowledged(cluster.urls[0], code, players)


def test_redis_restarting_mid_match_loses_nothing(cluster: Cluster) -> None:
    async def scenario() -> tuple[str, list[RoundRobinPlayer]]:
        code, players = await seat_four(cluster)

        async def during(tasks: list[asyncio.Task[None]]) -> None:
            while sum(len(p.acked) for p in players) < 40:
                await asyncio.sleep(0.01)
            await asyncio.to_thread(cluster.redis.stop)
            await asyncio.sleep(1.0)
            await asyncio.to_thread(cluster.redis.start)

        await play(players, during, seconds=120)
        return code, players

    code, players = asyncio.run(scenario())
    check_acknowledged(cluster.urls[2], code, players)


def test_postgres_stopped_and_started_mid_match(cluster: Cluster) -> None:
    """While the database is down changes are refused (storage_error: here a chat line
    sent through another process than the owner) and nothing acknowledged is lost; once it
    is back play goes on by itself."""

    async def scenario() -> tuple[str, list[RoundRobinPlayer], dict[str, Any]]:
        code, players = await seat_four(cluster)
        refusal: dict[str, Any] = {}

        async def during(tasks: list[asyncio.Task[None]]) -> None:
            while sum(len(p.acked) for p in players) < 40:
                await asyncio.sleep(0.01)
            owner = await asyncio.to_thread(cluster.owner, code)
            await asyncio.to_thread(cluster.postgres.stop)
            other = next(p for p in cluster.processes if p is not owner)
            deadline = time.monotonic() + 10
            try:
                while not refusal and time.monotonic() < deadline:
                    # (Another process cannot know the owner while the database is down: it
                    # refuses the socket; the owner refuses the line once it has noticed.)
                    client = await Client.connect(other.url, code)
                    with contextlib.suppress(websockets.ConnectionClosed):
                        await client.send(
                            {"type": "hello", "protocol": 3, "token": players[1].token}
                        )
                        await client.until(lambda m: m["type"] == "snapshot")
                        await client.send({"type": "chat", "id": "c", "text": "anyone?"})
                        await client.until(lambda m: m.get("id") == "c")
                    # (A hello the owner did not answer in time is refused as such, not as
                    # a change: the client reconnects; the chat line's refusal is looked for.)
                    refusal.update(
                        next(
                            (
                                m
                                for m in client.received
                                if m["type"] == "error" and m["code"] != "owner_unavailable"
                            ),
                            {},
                        )
                    )
                    await client.close()
                    await asyncio.sleep(0.2)
            finally:
                await asyncio.to_thread(cluster.postgres.start)

        await play(players, during, seconds=120)
        return code, players, refusal

    code, players, refusal = asyncio.run(scenario())
    assert refusal["code"] == "storage_error", refusal
    check_acknowledged(cluster.urls[3], code, players)


# ------------------------------------------------------------ faults of the cluster battery
# (issue 27): each on two processes of its own, with a Redis of its own where the test
# stops it, so that the module's cluster above is left alone.


@contextlib.contextmanager
def two_processes(db: str, broker: str, *extra: str) -> Iterator[list[ServeProcess]]:
    processes = [ServeProcess(db, free_port(), "--broker", broker, *extra) for _ in range(2)]
    try:
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda p: p.start(), processes))
        yield processes
    finally:
        for process in processes:
            process.stop()


def create_table(url: str) -> tuple[str, str]:
    """A table made through ``url``: its code and the host's token."""
    created = httpx.post(f"{url}/api/tables", json={"name": "Host", **OPTIONS}, timeout=10)
    created.raise_for_status()
    return created.json()["code"], created.json()["token"]


async def hello(url: str, code: str, token: str, timeout: float) -> dict[str, Any]:
    """The first answer to a hello on a new socket (welcome or error); for a refusal,
    ``closed``: the socket's close code."""
    client = await Client.connect(url, code)
    try:
        await client.send({"type": "hello", "protocol": 3, "token": token})
        answer = await client.recv(timeout)
        if answer["type"] == "error":
            with contextlib.suppress(websockets.ConnectionClosed, TimeoutError):
                await client.recv(timeout)
            answer["closed"] = client.ws.close_code
        return answer
    finally:
        await client.close()


def test_a_process_starts_while_redis_is_away_and_joins_the_cluster_once_it_answers(
    postgres: sandbox.LocalPostgres,
) -> None:
    """Issue 27, item 17: ``serve`` used to exit at once ("Redis does not answer"): a process
    restarted during a Redis outage stayed down. It starts, serves its own tables, and
    relays once Redis answers."""
    redis = sandbox.LocalRedis()  # (not started yet)
    db = postgres.new_database()
    first = ServeProcess(db, free_port(), "--broker", redis.url)
    second = ServeProcess(db, free_port(), "--broker", redis.url)
    try:
        first.start()  # (raised "serve exited: ... Redis does not answer")
        code, token = create_table(first.url)
        welcome = asyncio.run(hello(first.url, code, token, 5))
        assert welcome["type"] == "welcome" and welcome["seat"] == 0
        redis.start()
        second.start()
        deadline = time.monotonic() + 10
        while True:  # relayed to the first, once it is back in the cluster
            answer = httpx.get(f"{second.url}/api/tables/{code}", timeout=10)
            if answer.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert answer.status_code == 200 and answer.json()["code"] == code, answer.text
        welcome = asyncio.run(hello(second.url, code, token, 5))
        assert welcome["type"] == "welcome" and welcome["seat"] == 0
    finally:
        first.stop()
        second.stop()
        redis.close()


def test_a_socket_relayed_while_redis_is_away_is_answered_at_once(
    postgres: sandbox.LocalPostgres,
) -> None:
    """Issue 27, items 19 and 22: a new WebSocket to a process that does not own its table
    got no answer to its hello while Redis was away (the relay waited for its subscription
    without a deadline), and the refusals about Redis said ``storage_error``, the code of a
    database that cannot be written. Now it is refused at once with ``broker_unavailable``
    (closed 1012: the client reconnects), as is an HTTP call relayed meanwhile; once Redis
    is back the same hello is relayed."""
    redis = sandbox.LocalRedis()
    redis.start()
    try:
        with two_processes(postgres.new_database(), redis.url) as (owner, other):
            code, token = create_table(owner.url)
            redis.stop()
            time.sleep(0.5)  # (both processes notice)
            started = time.monotonic()
            refusal = asyncio.run(hello(other.url, code, token, 10))
            assert time.monotonic() - started < 3, "the hello waited"
            assert refusal["type"] == "error" and refusal["code"] == "broker_unavailable"
            assert refusal["closed"] == 1012
            joined = httpx.post(
                f"{other.url}/api/tables/{code}/join", json={"name": "Bob"}, timeout=10
            )
            assert joined.status_code == 503
            assert joined.json()["error"]["code"] == "broker_unavailable"
            # The owner's own socket plays on.
            assert asyncio.run(hello(owner.url, code, token, 5))["type"] == "welcome"
            redis.start()
            deadline = time.monotonic() + 10
            while True:
                answer = asyncio.run(hello(other.url, code, token, 5))
                if answer["type"] == "welcome" or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            assert answer["type"] == "welcome" and answer["seat"] == 0, answer
    finally:
        redis.close()


def test_a_table_read_during_a_postgres_outage_waits_for_no_write(
    postgres: sandbox.LocalPostgres, redis_server: sandbox.LocalRedis
) -> None:
    """Issue 27, item 18: during a PostgreSQL outage ``GET /api/tables/{code}`` on the
    process holding an unwritten change of the table waited for the database to come back
    (28.5 s seen), while another process answered 503 at once. A read waits for no write it
    does not show: both answer 503 ``storage_error`` at once; the change is written once the
    database is back."""
    db = postgres.new_database()
    with two_processes(db, redis_server.url) as (owner, other):
        code, token = create_table(owner.url)

        async def scenario() -> tuple[list[tuple[str, int, float]], dict[str, Any]]:
            host = await Client.connect(owner.url, code)
            await host.send({"type": "hello", "protocol": 3, "token": token})
            await host.until(lambda m: m["type"] == "snapshot")
            # A change staged and being written as the database goes: its write waits for a
            # lock held here, then fails with the database.
            blocker = await asyncpg.connect(db)
            # (the chat table too: a chat line is written without the table's row)
            await blocker.execute("BEGIN; LOCK TABLE tables, chat IN EXCLUSIVE MODE")
            await host.send({"type": "chat", "id": "c", "text": "still there?"})
            await asyncio.sleep(2.0)  # (the change staged, also on a loaded machine)
            await asyncio.to_thread(postgres.stop)
            blocker.terminate()
            reads: list[tuple[str, int, float]] = []
            try:
                await asyncio.sleep(1.0)
                async with httpx.AsyncClient(timeout=30) as http:
                    for process in (owner, other):
                        started = time.monotonic()
                        answer = await http.get(f"{process.url}/api/tables/{code}")
                        reads.append(
                            (
                                answer.json().get("error", {}).get("code", "ok"),
                                answer.status_code,
                                time.monotonic() - started,
                            )
                        )
            finally:
                await asyncio.to_thread(postgres.start)
            acked = await host.until(lambda m: m.get("id") == "c", timeout=20)
            await host.close()
            return reads, acked

        reads, acked = asyncio.run(scenario())
    assert acked["type"] == "ack", acked  # (staged, and written once the database is back)
    # Neither waits for the database (the owner waited 28.5 s before): the other process
    # answers 503 at once; the owner 503 at once while its change is unwritten, or the table
    # if its write had gone through first (under a loaded test run it sometimes has).
    (owner_error, owner_status, owner_seconds), other_read = reads
    assert other_read[:2] == ("storage_error", 503) and other_read[2] < 3, reads
    assert (owner_error, owner_status) in (("storage_error", 503), ("ok", 200)), reads
    assert owner_seconds < 3, reads


def test_a_hung_owner_loses_its_table_within_seconds_and_commits_nothing_when_it_wakes(
    postgres: sandbox.LocalPostgres, redis_server: sandbox.LocalRedis
) -> None:
    """Issue 27, item 20: an owner that hung (SIGSTOP) kept its database session and so its
    tables, frozen, for as long as it hung. Its session's lease lapses: another process
    ends that session and serves the table within 5 s; woken (SIGCONT, 8 s on), the old
    owner commits nothing more for it and its clients reconnect to the new owner; no
    acknowledged move is lost or applied twice."""
    db = postgres.new_database()
    with two_processes(db, redis_server.url) as processes:
        cluster = Cluster(processes, db, redis_server, postgres)
        urls = cluster.urls
        measured: dict[str, float] = {}

        async def scenario() -> tuple[str, list[RoundRobinPlayer]]:
            code, token = await asyncio.to_thread(create_table, urls[0])
            players = [RoundRobinPlayer(urls, 0, code, token, 0, random.Random(0), host=True)]
            async with httpx.AsyncClient(timeout=10) as http:
                for seat in range(1, 4):
                    joined = await http.post(
                        f"{urls[seat % 2]}/api/tables/{code}/join",
                        json={"name": f"Guest {seat}", "seat": seat},
                    )
                    players.append(
                        RoundRobinPlayer(
                            urls, seat % 2, code, joined.json()["token"], seat, random.Random(seat)
                        )
                    )

            async def during(tasks: list[asyncio.Task[None]]) -> None:
                while sum(len(p.acked) for p in players) < 30:
                    await asyncio.sleep(0.01)
                owner = await asyncio.to_thread(cluster.owner, code)
                assert owner is not None and owner.process is not None
                os.kill(owner.process.pid, signal.SIGSTOP)
                hung = time.monotonic()
                try:
                    while time.monotonic() - hung < 15:
                        now = await asyncio.to_thread(cluster.owner, code)
                        if now is not None and now is not owner:
                            measured["served"] = time.monotonic() - hung
                            break
                        await asyncio.sleep(0.1)
                    await asyncio.sleep(max(0.0, 8 - (time.monotonic() - hung)))
                finally:
                    os.kill(owner.process.pid, signal.SIGCONT)
                measured["woken"] = 1

            await play(players, during, seconds=120)
            return code, players

        code, players = asyncio.run(scenario())
        # Served again by the other process while the owner still hangs (it hangs 8 s): within
        # the 5 s on a quiet machine (2.1-2.5 s, docs/operations.md), within 8 s under
        # a loaded test run, whose processes may start the look and renew leases late.
        assert measured.get("served", 99) < 8, measured
        assert any(p.reconnects for p in players)
        for url in urls:  # (the woken one answers too, relaying to the new owner)
            table = httpx.get(f"{url}/api/tables/{code}", timeout=10).json()
            assert table["status"] == "finished", table
        check_acknowledged(urls[1], code, players)


def test_outages_are_told_in_one_line_each_way_and_a_stop_is_quiet(
    postgres: sandbox.LocalPostgres,
) -> None:
    """Issue 27, item 21: during a PostgreSQL outage each process logged an asyncpg
    traceback and "could not look for tables without an owner" about once a second, and
    during a Redis outage "cannot publish" twice a second. Now each outage is one line when
    it begins and one when it ends (with a count); and SIGTERM stops a process without a
    traceback or warning."""
    redis = sandbox.LocalRedis()
    redis.start()
    try:
        db = postgres.new_database()
        processes = [
            ServeProcess(db, free_port(), "--broker", redis.url, "--bot-delay", "0.05")
            for _ in range(2)
        ]
        try:
            with ThreadPoolExecutor(2) as pool:
                list(pool.map(lambda p: p.start(), processes))

            async def bots_play(url: str) -> Any:
                code, token = await asyncio.to_thread(create_table, url)
                client = await Client.connect(url, code)
                await client.send({"type": "hello", "protocol": 3, "token": token})
                for n, kind in enumerate(("fill_bots", "away", "start")):
                    await client.send({"type": kind, "id": n})
                return client

            async def scenario() -> None:
                clients = [await bots_play(p.url) for p in processes for _ in range(2)]
                await asyncio.sleep(1)
                await asyncio.to_thread(postgres.stop)
                await asyncio.sleep(4)
                await asyncio.to_thread(postgres.start)
                await asyncio.sleep(2)
                await asyncio.to_thread(redis.stop)
                await asyncio.sleep(3)
                await asyncio.to_thread(redis.start)
                await asyncio.sleep(2)
                for client in clients:
                    with contextlib.suppress(Exception):
                        await client.close()

            asyncio.run(scenario())
        finally:
            for process in processes:
                process.stop()
        for process in processes:
            assert process.process is not None and process.process.stderr is not None
            logged = [
                line
                for line in process.process.stderr.read().decode().splitlines()
                if not line.startswith("INFO")
            ]
            text = "\n".join(logged)
            assert "Traceback" not in text and "leaked" not in text, text
            for what in ("PostgreSQL", "Redis"):
                assert sum(line.startswith(f"{what} is away") for line in logged) == 1, text
                assert sum(line.startswith(f"{what} is back") for line in logged) == 1, text
            assert len(logged) <= 6, text
    finally:
        redis.close()


def test_a_bot_turn_after_the_bot_runner_closed_is_ignored() -> None:
    """Issue 27, item 21: on SIGTERM a bot seat's timer firing after the runner closed
    raised "RuntimeError: cannot schedule new futures after shutdown" (a traceback in the
    log). The server is stopping: the turn is not taken, and nothing is raised."""
    from fouronefour.server.background.botrunner import ExecutorBotRunner

    async def scenario() -> list[str]:
        runner = ExecutorBotRunner(asyncio.get_running_loop(), processes=0)
        runner.close()
        moves: list[str] = []
        runner.run("random", {}, ["pass"], 1, moves.append)  # (raised RuntimeError)
        await asyncio.sleep(0.05)
        return moves

    assert asyncio.run(scenario()) == []


def test_a_node_name_is_checked() -> None:
    """``--node`` goes into URLs and a load balancer's configuration as it is: a name that
    could not is refused, with what a name may be."""
    import argparse

    from fouronefour.server.command import node_name

    assert node_name("n-2_b") == "n-2_b"
    for bad in ("", "a b", "n2?x=1", "n" * 33, "n/2"):
        with pytest.raises(argparse.ArgumentTypeError, match="letters, digits"):
            node_name(bad)
