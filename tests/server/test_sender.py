"""The fan-out sender: every woken outbox is drained, in order, in slices that let the
loop look at its sockets (run other callbacks) in between."""

from __future__ import annotations

import asyncio
import time

from fouronefour.server.sockets import outbox
from fouronefour.server.sockets.outbox import Sender


class _Recorder:
    """Stands in for an Outbox: its drain takes ``cost`` seconds of the loop's time."""

    def __init__(self, name: str, log: list[str], cost: float) -> None:
        self.name = name
        self.log = log
        self.cost = cost
        self.woken = False

    def drain(self) -> None:
        ends = time.perf_counter() + self.cost
        while time.perf_counter() < ends:
            pass
        self.log.append(self.name)


def test_sender_sends_every_connection_in_order_in_one_slice_when_quick() -> None:
    async def scenario() -> list[str]:
        log: list[str] = []
        sender = Sender()
        for n in range(5):
            sender.wake(_Recorder(f"c{n}", log, 0.0))  # type: ignore[arg-type]
        asyncio.get_running_loop().call_soon(log.append, "other")
        await asyncio.sleep(0.01)
        return log

    # Quick sends fit one slice: the callback queued after the wake runs after all of them.
    assert asyncio.run(scenario()) == ["c0", "c1", "c2", "c3", "c4", "other"]


def test_a_long_fan_out_yields_to_the_loop_between_slices() -> None:
    async def scenario() -> tuple[list[str], Sender]:
        log: list[str] = []
        sender = Sender()
        cost = outbox.FANOUT_SLICE_SECONDS  # each send uses up a slice
        for n in range(4):
            sender.wake(_Recorder(f"c{n}", log, cost))  # type: ignore[arg-type]
        loop = asyncio.get_running_loop()
        # A callback that arrives after the first slice (as a move's handling would) runs
        # before the rest of the fan-out, not after all of it.
        loop.call_soon(lambda: loop.call_soon(log.append, "move"))
        await asyncio.sleep(0.05)
        sender.wake(_Recorder("later", log, 0.0))  # type: ignore[arg-type]
        await asyncio.sleep(0.01)
        return log, sender

    log, _ = asyncio.run(scenario())
    assert [name for name in log if name != "move"] == ["c0", "c1", "c2", "c3", "later"]
    assert log.index("move") < log.index("c3")
    assert log.index("move") > log.index("c0")


class _Broken:
    woken = False

    def drain(self) -> None:
        raise RuntimeError("a bug in one connection")


def test_a_connection_that_raises_does_not_stop_the_fan_out() -> None:
    async def scenario() -> tuple[list[str], list[str]]:
        log: list[str] = []
        reported: list[str] = []
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _, context: reported.append(str(context["exception"])))
        sender = Sender()
        sender.wake(_Broken())  # type: ignore[arg-type]
        sender.wake(_Recorder("after", log, 0.0))  # type: ignore[arg-type]
        await asyncio.sleep(0.01)
        sender.wake(_Recorder("later", log, 0.0))  # type: ignore[arg-type]
        await asyncio.sleep(0.01)
        return log, reported

    log, reported = asyncio.run(scenario())
    assert log == ["after", "later"]
    assert reported == ["a bug in one connection"]
