"""The per-address limits of a cluster are its processes' together (shared.py): two servers
over one PostgreSQL database and one Redis, every client address (a loopback address of its
own per test, limited as any other) spending one budget whichever process it reaches."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets

from fouronefour.server.cluster.broker import Broker
from fouronefour.server.cluster.shared import SharedBuckets, SharedCounts
from fouronefour.server.storage.sqlite import GroupCommitStorage
from tests import sandbox

from .conftest import ThreadServer, thread_cluster

LIMITS: dict[str, Any] = {
    "limit_loopback": True,
    "http_rate_burst": 4,
    "http_rate_per_second": 0.001,
    "lookup_burst": 3,
    "lookup_rate_per_second": 0.001,
    "max_spectators_per_address": 3,
}


@pytest.fixture(scope="module")
def pair(
    postgres: sandbox.LocalPostgres, redis_server: sandbox.LocalRedis
) -> Iterator[list[ThreadServer]]:
    with thread_cluster(db=postgres.new_database(), broker=redis_server.url, **LIMITS) as servers:
        yield servers


def http_from(address: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(local_address=address), timeout=10)


async def alternate(pair: list[ThreadServer], address: str, path: str, count: int) -> list[int]:
    """``count`` POSTs of a new table's body to ``path``, to each process in turn."""
    async with http_from(address) as http:
        return [
            (await http.post(pair[n % 2].url + path, json={"name": "A"})).status_code
            for n in range(count)
        ]


def test_tables_created_and_seats_taken_spend_one_budget(pair: list[ThreadServer]) -> None:
    statuses = asyncio.run(alternate(pair, "127.0.0.21", "/api/tables", 6))
    assert statuses == [201, 201, 201, 201, 429, 429]  # a burst of 4, not 4 a process
    # Another address has a budget of its own.
    assert asyncio.run(alternate(pair, "127.0.0.22", "/api/tables", 1)) == [201]


def test_codes_that_are_no_table_spend_one_budget(pair: list[ThreadServer]) -> None:
    async def run() -> tuple[list[int], bool]:
        async with httpx.AsyncClient(timeout=10) as host:  # (loopback: not limited)
            made = await host.post(pair[0].url + "/api/tables", json={"name": "Host"})
            assert made.status_code == 201, made.text
            code = made.json()["code"]
        async with http_from("127.0.0.23") as http:
            misses = [
                (await http.get(f"{pair[n % 2].url}/api/tables/ZZZZZ{n}")).status_code
                for n in range(2, 5)
            ]
            # Out of tries on both processes, for a real table's code too.
            real = [(await http.get(f"{s.url}/api/tables/{code}")).status_code for s in pair]
            url = pair[1].url.replace("http", "ws", 1) + f"/ws/{code}"
            async with websockets.connect(url, local_addr=("127.0.0.23", 0)) as ws:
                error = await asyncio.wait_for(ws.recv(), 10)
                ws_refused = '"rate_limited"' in str(error)
        return misses + real, ws_refused

    statuses, ws_refused = asyncio.run(run())
    assert statuses == [404, 404, 404, 429, 429]
    assert ws_refused


def test_spectators_of_one_address_are_counted_across_processes(pair: list[ThreadServer]) -> None:
    async def run() -> list[str]:
        async with httpx.AsyncClient(timeout=10) as host:
            codes = [
                (await host.post(pair[n].url + "/api/tables", json={"name": "Host"})).json()["code"]
                for n in range(2)
            ]
        sockets = []
        answers = []
        try:
            # Two tables owned by two processes, watched through both: 3 in all, not 3 each.
            for n in range(5):
                base = pair[n % 2].url.replace("http", "ws", 1)
                ws = await websockets.connect(
                    f"{base}/ws/{codes[n // 2 % 2]}", local_addr=("127.0.0.24", 0)
                )
                sockets.append(ws)
                await ws.send('{"type": "hello", "protocol": 3}')
                answers.append(str(await asyncio.wait_for(ws.recv(), 10)))
            # One leaves: its place is given back, in the whole cluster.
            await sockets[0].close()
            for _ in range(50):
                base = pair[1].url.replace("http", "ws", 1)
                async with websockets.connect(
                    f"{base}/ws/{codes[1]}", local_addr=("127.0.0.24", 0)
                ) as ws:
                    await ws.send('{"type": "hello", "protocol": 3}')
                    last = str(await asyncio.wait_for(ws.recv(), 10))
                if '"welcome"' in last:
                    break
                await asyncio.sleep(0.05)
            answers.append(last)
        finally:
            for ws in sockets:
                await ws.close()
        return answers

    answers = asyncio.run(run())
    kinds = ["welcome" if '"welcome"' in a else "too_many" for a in answers]
    assert kinds[:3] == ["welcome"] * 3
    assert kinds[3:5] == ["too_many"] * 2
    assert all('"too_many_connections"' in a for a in answers[3:5])
    assert kinds[5] == "welcome"


def test_a_gone_process_holds_no_places(redis_server: sandbox.LocalRedis) -> None:
    """A process's count goes with it: killed, its alive key expires and the others no longer
    count its connections (shut down here, which deletes the key at once)."""

    async def run() -> tuple[bool, bool]:
        storage = GroupCommitStorage(":memory:")
        brokers = [Broker(redis_server.url, storage) for _ in range(2)]
        for broker in brokers:
            await broker.open()
        counts = [SharedCounts(b, "test-gone", 2) for b in brokers]
        try:
            assert await counts[0].acquire("10.0.0.1")
            assert await counts[0].acquire("10.0.0.1")
            full = not await counts[1].acquire("10.0.0.1")
            await brokers[0].shutdown()
            freed = await counts[1].acquire("10.0.0.1")
        finally:
            await brokers[1].shutdown()
            storage.close()
        return full, freed

    assert asyncio.run(run()) == (True, True)


def test_one_process_a_period_looks_for_tables_without_an_owner(
    redis_server: sandbox.LocalRedis,
) -> None:
    """The look reads every table being played: one process does it each period, whichever
    asks first (Broker.take_turn)."""

    async def run() -> list[bool]:
        storage = GroupCommitStorage(":memory:")
        brokers = [Broker(redis_server.url, storage) for _ in range(2)]
        for broker in brokers:
            await broker.open()
        try:
            turns = [await b.take_turn("test-look", 0.2) for b in (*brokers, *brokers)]
            await asyncio.sleep(0.25)
            return [*turns, await brokers[1].take_turn("test-look", 0.2)]
        finally:
            for broker in brokers:
                await broker.shutdown()
            storage.close()

    assert asyncio.run(run()) == [True, False, False, False, True]


def test_without_redis_each_limit_is_the_process_own() -> None:
    """While Redis does not answer (here: never reached), a limit is counted by the process,
    as with a single process: it errs towards letting in, never refuses everybody."""

    async def run() -> tuple[list[float], list[bool]]:
        storage = GroupCommitStorage(":memory:")
        broker = Broker("redis://127.0.0.1:1/0", storage)  # (not opened: no Redis)
        buckets = SharedBuckets(broker, "test-away", 0.001, 2)
        counts = SharedCounts(broker, "test-away", 1)
        try:
            waits = [await buckets.take("10.0.0.2") for _ in range(3)]
            places = [await counts.acquire("10.0.0.2"), await counts.acquire("10.0.0.2")]
            counts.release("10.0.0.2")
            places.append(await counts.acquire("10.0.0.2"))
        finally:
            storage.close()
        return waits, places

    waits, places = asyncio.run(run())
    assert waits[:2] == [0.0, 0.0] and waits[2] > 0  # a burst of 2, this process's
    assert places == [True, False, True]
