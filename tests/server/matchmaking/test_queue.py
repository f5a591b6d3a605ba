"""The quick-match queue's contract, kept by both its stores: this process's (LocalQueue)
and a cluster's (RedisQueue, on a real Redis). One entry a profile; leaving and joining
again goes to the back after a cooldown; a table's people claimed all or none; one
matcher at a time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest

from fouronefour.server.cluster.broker import Broker
from fouronefour.server.matchmaking.errors import MatchCode, MatchError
from fouronefour.server.matchmaking.queue import MAKING, LocalQueue, QueueRules, QueueStore
from fouronefour.server.matchmaking.redisqueue import ROOT, RedisQueue
from fouronefour.server.storage.sqlite import GroupCommitStorage
from tests import sandbox

RULES = QueueRules(cooldown_seconds=0.3, max_waiting=5)

Opened = Callable[[], Awaitable[QueueStore]]


@asynccontextmanager
async def local() -> AsyncIterator[Callable[[], Awaitable[QueueStore]]]:
    shared = LocalQueue(RULES)

    async def same() -> QueueStore:  # (one process: every "process" shares the queue)
        return shared

    yield same


@asynccontextmanager
async def in_redis(url: str) -> AsyncIterator[Callable[[], Awaitable[QueueStore]]]:
    storage = GroupCommitStorage(":memory:")
    brokers: list[Broker] = []

    async def another() -> QueueStore:  # (each call: a process of its own)
        broker = Broker(url, storage)
        await broker.open()
        brokers.append(broker)
        return RedisQueue(broker, RULES)

    first = Broker(url, storage)
    await first.open()
    brokers.append(first)
    assert first.redis is not None
    redis = first.redis

    async def clear() -> None:  # (the session's Redis: nothing left for other tests)
        for key in await redis.keys(ROOT + "*"):
            await redis.delete(key)

    await clear()
    try:
        yield another
    finally:
        await clear()
        for broker in brokers:
            await broker.shutdown()
        storage.close()


@pytest.fixture(params=["local", "redis"])
def stores(request: pytest.FixtureRequest) -> Callable[[], object]:
    if request.param == "local":
        return local
    redis_server: sandbox.LocalRedis = request.getfixturevalue("redis_server")
    return lambda: in_redis(redis_server.url)


class refused:
    """The block is refused with ``code``."""

    def __init__(self, code: MatchCode) -> None:
        self.code = code

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: object, tb: object) -> bool:
        assert isinstance(error, MatchError), f"expected {self.code}, nothing was refused"
        assert error.code == self.code
        return True


def run(stores: Callable[[], object], scenario: Callable[..., Awaitable[None]]) -> None:
    async def go() -> None:
        async with stores() as opened:  # type: ignore[attr-defined]
            await scenario(opened)

    asyncio.run(go())


def test_one_entry_a_profile_across_processes(stores: Callable[[], object]) -> None:
    async def scenario(opened: Opened) -> None:
        one, two = await opened(), await opened()
        now = time.time()
        entry = await one.join("ann", "Ann", 10.0, now)
        assert entry.profile == "ann"
        with refused(MatchCode.ALREADY_QUEUED):
            await two.join("ann", "Ann", 10.0, now + 1)
        assert [e.profile for e in await two.waiting()] == ["ann"]
        assert await two.count() == 1
        assert (await two.entry("ann")) == entry

    run(stores, scenario)


def test_leaving_and_joining_again_goes_to_the_back_after_a_cooldown(
    stores: Callable[[], object],
) -> None:
    async def scenario(opened: Opened) -> None:
        queue = await opened()
        now = time.time()
        first = await queue.join("ann", "Ann", 10.0, now)
        await queue.join("bob", "Bob", 10.0, now + 1)
        assert await queue.leave("ann", now + 2)
        assert not await queue.leave("ann", now + 2)  # (not in it any more)
        with refused(MatchCode.COOLING_DOWN):
            await queue.join("ann", "Ann", 10.0, now + 2)
        await asyncio.sleep(RULES.cooldown_seconds + 0.05)
        again = await queue.join("ann", "Ann", 10.0, now + 3)
        assert again.seq > first.seq and again.joined_at == now + 3
        bob = await queue.entry("bob")
        assert bob is not None and (bob.joined_at, bob.seq) < (again.joined_at, again.seq)

    run(stores, scenario)


def test_the_queue_holds_at_most_its_limit(stores: Callable[[], object]) -> None:
    async def scenario(opened: Opened) -> None:
        queue = await opened()
        for i in range(RULES.max_waiting):
            await queue.join(f"p{i}", "P", 0.0, time.time())
        with refused(MatchCode.QUEUE_FULL):
            await queue.join("late", "Late", 0.0, time.time())
        assert len(await queue.waiting()) == RULES.max_waiting

    run(stores, scenario)


def test_a_table_is_claimed_whole_or_not_at_all(stores: Callable[[], object]) -> None:
    async def scenario(opened: Opened) -> None:
        queue = await opened()
        now = time.time()
        for name in ("a", "b", "c"):
            await queue.join(name, name.upper(), 5.0, now)
        assert await queue.claim(["a", "b", "gone"], now) is None
        assert len(await queue.waiting()) == 3
        assert await queue.seat_of("a", now) is None
        taken = await queue.claim(["a", "b"], now)
        assert taken is not None and [e.profile for e in taken] == ["a", "b"]
        assert [e.profile for e in await queue.waiting()] == ["c"]
        # Neither waiting nor seated meanwhile: their pages see the table being made.
        assert await queue.seat_of("a", now) == MAKING
        await queue.put_back(taken)  # (the table could not be made: back in their places)
        assert sorted(e.profile for e in await queue.waiting()) == ["a", "b", "c"]
        assert await queue.entry("a") == taken[0]
        assert await queue.seat_of("a", now) is None

    run(stores, scenario)


def test_a_seat_is_kept_for_its_profile_only(stores: Callable[[], object]) -> None:
    async def scenario(opened: Opened) -> None:
        one, two = await opened(), await opened()
        now = time.time()
        await one.seated("ann", {"code": "ABCDEF", "seat": 2, "token": "t"}, now)
        assert await two.seat_of("ann", now) == {"code": "ABCDEF", "seat": 2, "token": "t"}
        assert await two.seat_of("bob", now) is None
        await two.join("ann", "Ann", 1.0, now)  # (joining again: the old seat is let go)
        assert await one.seat_of("ann", now) is None
        await one.forget("ann")
        assert await two.entry("ann") is None

    run(stores, scenario)


def test_one_matcher_at_a_time(stores: Callable[[], object]) -> None:
    async def scenario(opened: Opened) -> None:
        one, two = await opened(), await opened()
        assert await one.lock("p1", 0.3)
        assert not await two.lock("p2", 0.3)
        await two.unlock("p2")  # (not its lock: nothing happens)
        assert not await two.lock("p2", 0.3)
        await one.unlock("p1")
        assert await two.lock("p2", 0.3)
        await asyncio.sleep(0.35)  # (its holder died: the lock expires)
        assert await one.lock("p1", 0.3)

    run(stores, scenario)


def test_the_entries_of_some_profiles_are_read_at_once(stores: Callable[[], object]) -> None:
    async def scenario(opened: Opened) -> None:
        one, two = await opened(), await opened()
        now = time.time()
        ann = await one.join("ann", "Ann", 1.0, now)
        bob = await one.join("bob", "Bob", 2.0, now + 1)
        found = await two.entries(["bob", "nobody", "ann"])
        assert sorted(found, key=lambda e: e.seq) == [ann, bob]
        assert await two.entries([]) == []
        await one.claim(["ann"], now)
        assert await two.entries(["ann", "bob"]) == [bob]

    run(stores, scenario)
