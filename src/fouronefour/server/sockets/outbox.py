"""What one WebSocket is sent: one queue, in order, and one loop that sends it.

Every message a connection is sent goes through its :class:`Outbox`: updates (encoded for
its seat when they leave, with the connection's ack inside if they carry one), acks and
answers, welcomes and snapshots, presence, and the close. Each message waits for the write
of the change it follows (its sequence number in the :class:`~.storage.Storage`), so
nothing leaves the server ahead of the disk.

One loop sends, :meth:`Outbox.drain`: it sends from the head of the queue for as long as
the head is written and the socket takes it at once, and when either must be waited for,
it is called again once it can go on (the storage calls back after its write; a task
finishes a send the socket's flow control held up). It is called from three places: the
reader task once it has handled a message (the client's own answer leaves in the same pass
of the loop), :class:`Sender` for everything else (fan-out, timers, bots), and those
callbacks.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Coroutine
from typing import Any, Final, Protocol

from ..storage import Storage
from ..tables.model import Update

#: Messages queued for one slow connection before it is dropped (it can reconnect).
MAX_QUEUED = 2000
#: Fan-out sent in one go before the loop looks at its sockets again: a move that arrives
#: meanwhile is answered after this slice, not after the whole fan-out (docs/operations.md).
FANOUT_SLICE_SECONDS = 0.0001


class Socket(Protocol):
    """The side of a WebSocket an outbox writes to (Starlette's WebSocket)."""

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class _Closing:
    __slots__ = ("code", "reason")

    def __init__(self, code: int, reason: str) -> None:
        self.code = code
        self.reason = reason


#: (the sequence number it waits for, what is sent, the seat an update is encoded for)
_Item = tuple[int, "bytes | Update | _Closing", "int | None"]


class Outbox:
    """One connection's messages and the loop that sends them."""

    __slots__ = (
        "_due",
        "_gate",
        "_items",
        "_sender",
        "_sending",
        "_socket",
        "closed",
        "connection",
        "done",
        "woken",
    )

    def __init__(self, socket: Socket, gate: Storage, sender: Sender, connection: int) -> None:
        self._socket = socket
        self._gate = gate
        self._sender = sender
        self._items: deque[_Item] = deque()
        #: A send held up by the socket (or the close), run to its end by a task.
        self._sending: asyncio.Future[bool] | None = None
        #: Waiting for the storage to write the head's change.
        self._due = False
        #: The connection id an update's ack is addressed to.
        self.connection: Final = connection
        #: A close is queued: nothing more is.
        self.closed = False
        #: Set once the socket is closed (the close sent, or the client gone).
        self.done = asyncio.Event()
        #: Waiting in the Sender's list (once: several messages need one drain).
        self.woken = False

    def __len__(self) -> int:
        return len(self._items)

    # ------------------------------------------------------------ queueing

    def update(self, update: Update, seat: int | None) -> None:
        """``update`` as ``seat`` sees it, once its change is written."""
        self._put((0 if update.written else self._gate.staged_seq, update, seat))

    def send(self, data: bytes, seq: int) -> None:
        """``data`` once the change ``seq`` is written (0: needing no write)."""
        self._put((seq, data, None))

    def notice(self, message: bytes) -> None:
        self.send(message, 0)

    def follow(self, version: int, seat: int | None) -> None:
        """(Every update reaches a socket of the table's own process.)"""

    def abort(self, code: int, reason: str) -> None:
        """Close the socket now, dropping what is queued."""
        self._items.clear()
        self.closed = False
        self.close(code, reason)

    def close(self, code: int, reason: str) -> None:
        """Close the socket after what is queued; nothing queued later is sent."""
        if self.closed:
            return
        self.closed = True
        # (Its number is the last's before it: a close never goes ahead of what it follows.)
        self._items.append((self._items[-1][0] if self._items else 0, _Closing(code, reason), None))
        self._sender.wake(self)

    def _put(self, item: _Item) -> None:
        if self.closed:
            return
        if len(self._items) >= MAX_QUEUED:
            self.close(1008, "too slow")
            return
        self._items.append(item)
        self._sender.wake(self)

    # ------------------------------------------------------------ sending

    def drain(self) -> None:
        """Send from the head for as long as it is written and the socket takes it at once;
        arrange to go on when it cannot."""
        if self._sending is not None or self.done.is_set():
            return
        items = self._items
        gate = self._gate
        while items:
            seq, what, seat = items[0]
            if seq > gate.durable_seq:
                if gate.failed and self._skip_writes():
                    continue
                if not self._due:
                    self._due = True
                    gate.when_durable(seq, self._written)
                return
            items.popleft()
            if isinstance(what, _Closing):
                self._run(self._close(what))
                return
            data = what if isinstance(what, bytes) else what.message_for(seat, self.connection)
            sending = self._send(data)
            try:
                awaited = sending.send(None)
            except StopIteration as stop:
                if not stop.value:
                    self._gone()
                    return
                continue
            self._run(_finish(sending, awaited))
            return

    async def unblocked(self) -> None:
        """Return once no send is held up by the socket: a client that does not read what it
        is sent is not read from either (its own answers would only pile up)."""
        sending = self._sending
        if sending is not None:
            await asyncio.wait((sending,))

    def _skip_writes(self) -> bool:
        """While the storage cannot write, answers that need no write go out past the
        messages that wait for it, so that clients learn why nothing happens. True if some
        were moved to the head."""
        items = self._items
        free = [item for item in items if item[0] == 0 and not isinstance(item[1], _Closing)]
        if not free:
            return False
        waiting = [item for item in items if item[0] != 0 or isinstance(item[1], _Closing)]
        items.clear()
        items.extend(free)
        items.extend(waiting)
        return True

    def _written(self) -> None:
        self._due = False
        self._sender.wake(self)

    def _run(self, sending: Coroutine[Any, Any, bool]) -> None:
        task = asyncio.ensure_future(sending)
        self._sending = task
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Future[bool]) -> None:
        self._sending = None
        if task.cancelled() or task.exception() is not None or not task.result():
            self._gone()
            return
        self.drain()

    async def _send(self, data: bytes) -> bool:
        try:
            await self._socket.send_text(data.decode())
        except Exception:  # the client is gone; the reader sees the disconnect and ends
            return False
        return True

    async def _close(self, closing: _Closing) -> bool:
        with contextlib.suppress(Exception):
            await self._socket.close(closing.code, closing.reason)
        return False  # nothing is sent after a close

    def _gone(self) -> None:
        self.closed = True
        self._items.clear()
        self.done.set()


class Sender:
    """Drains the outboxes that were given something by another task (fan-out, timers,
    bots) or whose storage write is done, from a callback after the loop's pass, without a
    task switch per connection.

    A move's update goes to every seat of the table. Waking a task per connection for it cost
    a task switch per seat; instead this callback drains each connection's outbox itself.
    Coming after the pass, it lets every mover of the pass be answered (update and ack)
    before the fan-out of any of them; and it drains in slices of ``FANOUT_SLICE_SECONDS``,
    each after the loop has looked at its sockets again, so a move that arrives during a
    long fan-out is answered before the rest of it (the fan-out is a socket write per seat,
    the costliest part of a move). A send that would wait (the socket's buffer is full:
    uvicorn awaits its ``writable`` event) is finished by a task of its own, so a client that
    stops reading never holds up the others."""

    def __init__(self) -> None:
        self._due: list[Outbox] = []
        self._scheduled = False

    def wake(self, outbox: Outbox) -> None:
        if outbox.woken:
            return
        outbox.woken = True
        self._due.append(outbox)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._drain_due)

    def _drain_due(self) -> None:
        due = self._due
        budget_ends = time.perf_counter() + FANOUT_SLICE_SECONDS
        drained = 0
        try:
            while drained < len(due):
                drained += 1
                outbox = due[drained - 1]
                outbox.woken = False
                outbox.drain()
                if time.perf_counter() > budget_ends:
                    break
        finally:  # (an outbox that raised is not retried; the others still get theirs)
            del due[:drained]
            if due:  # the rest after the loop's next look at the sockets
                asyncio.get_running_loop().call_soon(self._drain_due)
            else:
                self._scheduled = False


async def _finish(coroutine: Coroutine[Any, Any, bool], awaited: Any) -> bool:
    """Run ``coroutine``, already started and suspended on ``awaited``, to its end: what a
    task would do (Python 3.12's eager tasks do this for any task started at once)."""
    while True:
        try:
            if awaited is None:  # a bare yield: give the loop one pass
                await asyncio.sleep(0)
            else:
                await awaited
        except BaseException as error:  # cancelled: let the coroutine see it
            try:
                awaited = coroutine.throw(error)
            except StopIteration as stop:
                result: bool = stop.value
                return result
            continue
        try:
            awaited = coroutine.send(None)
        except StopIteration as stop:
            result = stop.value
            return result
