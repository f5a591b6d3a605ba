"""The Fanout contract: what every implementation (in-process, Redis) does alike.

A "peer" is the fan-out of one server process; in-process there is one process, so every
peer is the same fan-out; with Redis each peer is a process's own, over one Redis. An
update published by any peer reaches every subscriber of its table, on every peer, in
order, each seat getting the bytes the publisher would have sent it. (One process publishes
a table's updates: its owner.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from fouronefour.server.tables.fanout import Fanout, InProcessFanout
from fouronefour.server.tables.model import Update
from tests import sandbox

PEERS = 3


class Written:
    """A storage's durability as a fan-out sees it: everything is written at once."""

    staged_seq = 0
    durable_seq = 0
    failed = False

    async def wait_durable(self, seq: int) -> None:
        return None


class Recorder:
    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.messages: list[bytes] = []
        self.resyncs = 0

    def deliver(self, update: Update) -> None:
        self.messages.append(update.message(self.seat))

    def resync(self) -> None:
        self.resyncs += 1


MakePeers = Callable[[], Awaitable[list[Fanout]]]


@pytest.fixture(params=["in-process", "redis"])
def make_peers(request: pytest.FixtureRequest) -> MakePeers:
    if request.param == "in-process":

        async def one_process() -> list[Fanout]:
            fanout = InProcessFanout()
            await fanout.open()
            return [fanout] * PEERS

        return one_process
    server: sandbox.LocalRedis = request.getfixturevalue("redis_server")
    from fouronefour.server.cluster.broker import Broker
    from fouronefour.server.cluster.redisfanout import RedisFanout

    async def processes() -> list[Fanout]:
        peers: list[Fanout] = [
            RedisFanout(Broker(server.url, Written()))  # type: ignore[arg-type]
            for _ in range(PEERS)
        ]
        for peer in peers:
            await peer.open()
        return peers

    return processes


def run(make_peers: MakePeers, scenario: Callable[[list[Fanout]], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        peers = await make_peers()
        try:
            return await scenario(peers)
        finally:
            for peer in set(peers):
                await peer.shutdown()

    return asyncio.run(main())


async def until(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "not delivered in time"
        await asyncio.sleep(0.005)


def update(v: int, seat_hands: dict[int, str]) -> Update:
    you = {seat: {"seat": seat, "hand": hand} for seat, hand in seat_hands.items()}
    return Update(v, 1000 + v, [{"type": "play", "seat": v % 4, "move": "3"}], {"v": v}, you)


def test_every_subscriber_on_every_peer_gets_every_update_of_its_owner_in_order(
    make_peers: MakePeers,
) -> None:
    async def scenario(peers: list[Fanout]) -> None:
        audiences = [None, 0, 1, 2]
        recorders = {(p, seat): Recorder(seat) for p in range(PEERS) for seat in audiences}
        for (p, _), recorder in recorders.items():
            peers[p].subscribe("AAAAAA", recorder)
        for peer in peers:
            await peer.subscribed("AAAAAA")
        expected: dict[int | None, list[bytes]] = {seat: [] for seat in audiences}
        for v in range(1, 31):
            sent = update(v, {v % 3: f"hand{v}", 1: "x"})
            for seat in audiences:
                expected[seat].append(sent.message(seat))
            peers[1].publish("AAAAAA", sent)
        await until(lambda: all(len(r.messages) == 30 for r in recorders.values()))
        for (_, seat), recorder in recorders.items():
            assert recorder.messages == expected[seat]
        assert all(r.resyncs == 0 for r in recorders.values())

    run(make_peers, scenario)


def test_other_tables_and_unsubscribed_subscribers_get_nothing(make_peers: MakePeers) -> None:
    async def scenario(peers: list[Fanout]) -> None:
        here, there, gone = Recorder(None), Recorder(None), Recorder(None)
        peers[0].subscribe("AAAAAA", here)
        peers[1].subscribe("BBBBBB", there)
        peers[2].subscribe("AAAAAA", gone)
        for peer, code in ((peers[0], "AAAAAA"), (peers[1], "BBBBBB"), (peers[2], "AAAAAA")):
            await peer.subscribed(code)
        peers[2].unsubscribe("AAAAAA", gone)
        assert peers[1].count("BBBBBB") == 1
        peers[1].publish("AAAAAA", update(1, {}))
        peers[2].publish("BBBBBB", update(1, {}))
        await until(lambda: len(here.messages) == 1 and len(there.messages) == 1)
        await asyncio.sleep(0.1)  # nothing more comes
        assert len(here.messages) == 1 and len(there.messages) == 1 and gone.messages == []

    run(make_peers, scenario)


def test_count_is_the_subscribers_of_this_process(make_peers: MakePeers) -> None:
    async def scenario(peers: list[Fanout]) -> list[int]:
        a, b = Recorder(0), Recorder(1)
        peers[0].subscribe("CCCCCC", a)
        peers[0].subscribe("CCCCCC", b)
        counts = [peers[0].count("CCCCCC")]
        peers[0].unsubscribe("CCCCCC", a)
        peers[0].unsubscribe("CCCCCC", a)  # twice: no harm
        counts.append(peers[0].count("CCCCCC"))
        return counts

    assert run(make_peers, scenario) == [2, 1]
