"""The Redis fan-out beyond the contract: nothing leaves the process before it is written,
and whatever breaks the chain of versions (Redis restarting, a lost message) makes the
subscribers catch up instead of missing an update unseen."""

from __future__ import annotations

import asyncio

import pytest

from fouronefour.server.cluster.broker import Broker
from fouronefour.server.cluster.redisfanout import RedisFanout
from fouronefour.server.tables.model import Update
from tests import sandbox

from .contract.test_fanout_contract import Recorder, until


class Gate:
    """A storage's durability, moved by hand."""

    failed = False

    def __init__(self) -> None:
        self.staged_seq = 0
        self.durable_seq = 0
        self._written = asyncio.Event()

    async def wait_durable(self, seq: int) -> None:
        while self.durable_seq < seq:
            await self._written.wait()
            self._written.clear()

    def write(self) -> None:
        self.durable_seq = self.staged_seq
        self._written.set()


def an_update(v: int) -> Update:
    return Update(v, 0, [{"type": "pass", "seat": 0}], None, {0: {"hand": "3"}})


def test_other_processes_get_an_update_only_once_it_is_written(
    redis_server: sandbox.LocalRedis,
) -> None:
    async def scenario() -> None:
        gate = Gate()
        owner = RedisFanout(Broker(redis_server.url, gate))  # type: ignore[arg-type]
        other = RedisFanout(Broker(redis_server.url, gate))  # type: ignore[arg-type]
        await owner.open()
        await other.open()
        mine, theirs = Recorder(0), Recorder(0)
        owner.subscribe("DDDDDD", mine)
        other.subscribe("DDDDDD", theirs)
        await other.subscribed("DDDDDD")
        gate.staged_seq = 1
        owner.publish("DDDDDD", an_update(1))
        assert len(mine.messages) == 1  # in-process: its connection waits for the disk
        await asyncio.sleep(0.2)
        assert theirs.messages == []
        gate.write()
        await until(lambda: len(theirs.messages) == 1)
        assert theirs.messages == mine.messages
        await owner.shutdown()
        await other.shutdown()

    asyncio.run(scenario())


def test_a_gap_in_the_versions_makes_the_subscribers_catch_up(
    redis_server: sandbox.LocalRedis,
) -> None:
    async def scenario() -> None:
        gate = Gate()
        owner = RedisFanout(Broker(redis_server.url, gate))  # type: ignore[arg-type]
        other = RedisFanout(Broker(redis_server.url, gate))  # type: ignore[arg-type]
        await owner.open()
        await other.open()
        theirs = Recorder(None)
        other.subscribe("EEEEEE", theirs)
        await other.subscribed("EEEEEE")
        for v in (1, 2, 4):  # 3 was lost on the way
            owner.publish("EEEEEE", an_update(v))
        gate.write()
        await until(lambda: theirs.resyncs == 1)
        assert len(theirs.messages) == 2
        await owner.shutdown()
        await other.shutdown()

    asyncio.run(scenario())


def test_redis_restarting_makes_every_subscriber_catch_up_and_delivery_resumes() -> None:
    reason = sandbox.missing()
    if reason:
        pytest.skip(reason)
    server = sandbox.LocalRedis()  # its own: this test stops it
    server.start()

    async def scenario() -> None:
        gate = Gate()
        owner = RedisFanout(Broker(server.url, gate))  # type: ignore[arg-type]
        other = RedisFanout(Broker(server.url, gate))  # type: ignore[arg-type]
        await owner.open()
        await other.open()
        theirs = Recorder(1)
        other.subscribe("FFFFFF", theirs)
        await other.subscribed("FFFFFF")
        await asyncio.to_thread(server.stop)
        await until(lambda: theirs.resyncs >= 1)
        assert not other.broker.connected
        owner.publish("FFFFFF", an_update(1))  # waits for Redis
        gate.write()
        await asyncio.to_thread(server.start)
        await until(lambda: other.broker.connected, 10)
        await other.subscribed("FFFFFF")
        owner.publish("FFFFFF", an_update(2))
        gate.write()
        await until(lambda: any(b'"v":2' in m for m in theirs.messages), 10)
        await owner.shutdown()
        await other.shutdown()

    try:
        asyncio.run(scenario())
    finally:
        server.close()
