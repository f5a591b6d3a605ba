"""One WebSocket connection: a seat's player or a spectator (docs/protocol.md section 3).

It reads, checks and rate-limits the client's messages, drives its :class:`Table`, and
writes that connection's own view of every update, never sending ahead of the disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import deque
from collections.abc import Coroutine
from typing import Any

import orjson
from fastapi import WebSocket
from starlette.websockets import WebSocketDisconnect

from .admission import Admission
from .botrunner import HINT_BOT, decide, resolve_bot
from .chat import Speaker
from .config import ServerConfig
from .errors import ErrorCode, TableError
from .model import Ack, SeatChanges, check_name
from .ratelimit import TokenBucket
from .registry import TableRegistry
from .storage import Storage
from .table import Table, Update

#: 3: the end-of-round pause, chat, presence, host tools and seat handoff; since 2, an ack
#: that follows its request's own update rides in it (docs/protocol.md section 3).
PROTOCOL = 3
#: Messages queued for one slow connection before it is dropped (it can reconnect).
MAX_QUEUED = 2000
#: Fan-out sent in one go before the loop looks at its sockets again: a move that arrives
#: meanwhile is answered after this slice, not after the whole fan-out (docs/operations.md).
FANOUT_SLICE_SECONDS = 0.0001
CLIENT_TYPES = frozenset(
    {
        "hello",
        "move",
        "back",
        "hint",
        "ready",
        "chat",
        "handoff",
        "fill_bots",
        "kick",
        "move_seat",
        "settings",
        "pause",
        "resume",
        "start",
        "play_again",
        "ping",
    }
)


async def refuse(websocket: WebSocket, error: TableError, close_code: int = 1008) -> None:
    with contextlib.suppress(Exception):
        await websocket.send_text(
            orjson.dumps({"type": "error", "id": None, **error.to_dict()}).decode()
        )
        await websocket.close(close_code, error.code)


class Sender:
    """Sends what connections were queued by another task (fan-out), from a callback after
    the loop's pass, without a task switch per connection.

    A move's update goes to every seat of the table. Waking each connection's writer task
    for it cost a task switch per seat; instead this callback sends every connection's
    written messages itself (:meth:`Connection.send_ready`). Coming after the pass, it lets
    every mover of the pass be answered (update and ack) before the fan-out of any of them;
    and it sends in slices of ``FANOUT_SLICE_SECONDS``, each after the loop has looked at
    its sockets again, so a move that arrives during a long fan-out is answered before the
    rest of it (the fan-out is a socket write per seat, the costliest part of a move).
    A send that would wait (the socket's buffer is full: uvicorn awaits its ``writable``
    event) is finished by a task of its own, so a client that stops reading never holds up
    the others; its connection's later messages wait behind it."""

    def __init__(self) -> None:
        self._due: list[Connection] = []
        self._scheduled = False

    def wake(self, connection: Connection) -> None:
        self._due.append(connection)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._send_due)

    def _send_due(self) -> None:
        due = self._due
        budget_ends = time.perf_counter() + FANOUT_SLICE_SECONDS
        sent = 0
        try:
            while sent < len(due):
                sent += 1
                due[sent - 1].send_ready()
                if time.perf_counter() > budget_ends:
                    break
        finally:  # (a connection that raised is not retried; the others still get theirs)
            del due[:sent]
            if due:  # the rest after the loop's next look at the sockets
                asyncio.get_running_loop().call_soon(self._send_due)
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


#: Refusals of a hello that close the connection.
_CLOSING = (ErrorCode.BAD_TOKEN, ErrorCode.BAD_PROTOCOL, ErrorCode.TOO_MANY_CONNECTIONS)


def _valid_id(request_id: object) -> bool:
    """An ``id`` a client may give: text up to 64 characters, or an integer."""
    return (isinstance(request_id, str) and len(request_id) <= 64) or (
        isinstance(request_id, int) and not isinstance(request_id, bool)
    )


class _Close(Exception):
    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class Connection:
    """One WebSocket: a player of one seat or a spectator. Receives its own view only."""

    def __init__(
        self,
        websocket: WebSocket,
        table: Table,
        registry: TableRegistry,
        config: ServerConfig,
        gate: Storage,
        sender: Sender,
        admission: Admission,
        address: str | None,
    ) -> None:
        self.gate = gate
        self.admission = admission
        #: The client's address key (ratelimit.address_key); None: not limited.
        self.address = address
        self.sender = sender
        self.websocket = websocket
        self.table = table
        self.registry = registry
        self.config = config
        self.seat: int | None = None
        #: A spectator's name and chat limit.
        self.speaker: Speaker | None = None
        self.greeted = False
        # (durability sequence number it waits for, message); None: close. Sent in order by
        # one sender at a time (``_sending``): the writer task, or the reader task at once.
        # An Update is another seat's move, encoded for this seat when it is sent.
        self._outbox: deque[tuple[int, bytes | Update] | None] = deque()
        self._wake = asyncio.Event()
        self._sending = False
        self._reading = False  # the reader task is handling a message: it sends after
        self._own_update = False  # the last message queued is the handled request's update
        self._bucket = TokenBucket(config.rate_per_second, config.rate_burst, time.monotonic())
        # Refused messages sent before the time the last refusal named: a client that waits
        # as told never gets one; one forgiven a second (``rate_strikes`` close).
        self._strikes = 0.0
        self._struck_at = 0.0
        self._retry_at = 0.0
        self._closing: tuple[int, str] | None = None
        self._direct: set[asyncio.Future[bool]] = set()

    # -- outgoing

    def deliver(self, update: Update) -> None:
        changes = update.seat_changes
        if changes is not None and self.seat is not None and not self._follow(changes):
            return
        outbox = self._outbox
        queued = len(outbox)
        # This connection's own request's update is encoded now (its ack goes inside it);
        # another's is encoded when sent, after the mover has been answered.
        self._put(update.message(self.seat) if self._reading else update, self._written_first())
        # Queued while this connection's own request is handled: the update it made (unless
        # the connection is closing and nothing was queued).
        self._own_update = self._reading and len(outbox) > queued and outbox[-1] is not None

    def _follow(self, changes: SeatChanges) -> bool:
        """Follow this connection's seat through an update's changes; False if its token
        stopped working (it is told why, sent nothing more of the seat's, and closed)."""
        seat = self.seat
        code = changes.revoked.get(seat) if seat is not None else None
        if code is not None:
            self.seat = None  # from now on, nothing private: the seat is another's
            self.admission.leave(self)
            why = (
                "the host removed you from this table"
                if code == ErrorCode.KICKED
                else "this seat was handed to another device"
            )
            self._put(
                orjson.dumps({"type": "error", "id": None, "code": str(code), "message": why}),
                self._written_first(),
            )
            self._closing = (1008, str(code))
            self._end()
            return False
        if changes.swapped is not None and seat in changes.swapped:
            first, second = changes.swapped
            self.seat = second if seat == first else first
            self.admission.moved(self, self.seat)
        return True

    def notice(self, message: bytes) -> None:
        """A message that is no table version (presence): in order, needing no write."""
        self._put(message, 0)

    def resync(self) -> None:
        """Updates may have been lost on their way here (the broker was away): close after
        what is queued, so that the client reconnects with ``since`` and catches up
        (docs/protocol.md section 4)."""
        if self._closing is None:
            self._closing = (1012, "reconnect")
            self._end()

    def ack(self, body: dict[str, Any]) -> None:
        """The answer to a request that was carried out: sent once written. If the request
        sent this connection an update (the last thing queued), the ack goes inside it, as
        its ``ack`` field: one message, one socket write, instead of two
        (docs/protocol.md section 3)."""
        data = orjson.dumps(body)
        outbox = self._outbox
        last = outbox[-1] if self._own_update and outbox else None
        if last is None:
            self._put(data, self._written_first())
            return
        seq, update = last
        assert isinstance(update, bytes)  # encoded when queued (``deliver``)
        outbox[-1] = (seq, b"".join((update[:-1], b',"ack":', data, b"}")))
        self._own_update = False

    def send_state(self, body: dict[str, Any]) -> None:
        """Welcome and snapshot: sent as soon as their turn comes, needing no write."""
        self._put(orjson.dumps(body), 0)

    def reply(self, body: dict[str, Any]) -> None:
        """An answer that changes nothing (error, pong, hint). In order with the rest, except
        while the database cannot be written: then it goes out at once, past the updates that
        wait for the disk, so that clients learn why nothing happens."""
        data = orjson.dumps(body)
        if self.gate.failed and self._closing is None:
            task = asyncio.ensure_future(self._send_text(data))
            self._direct.add(task)
            task.add_done_callback(self._direct.discard)
            return
        self._put(data, 0)

    def error(self, request_id: object, code: ErrorCode, message: str) -> None:
        self.reply({"type": "error", "id": request_id, "code": str(code), "message": message})

    def replaced(self) -> None:
        """A newer connection of this seat took this one's place (admission.py): say so,
        then close."""
        self.error(
            None,
            ErrorCode.TOO_MANY_CONNECTIONS,
            f"this seat has {self.admission.per_seat} newer connections: this one is closed",
        )
        if self._closing is None:
            self._closing = (1008, "too_many_connections")
            self._end()

    def _written_first(self) -> int:
        return self.gate.staged_seq

    def _put(self, data: bytes | Update, seq: int) -> None:
        self._own_update = False
        if self._closing is not None:
            return
        if len(self._outbox) >= MAX_QUEUED:
            self._closing = (1008, "too slow")
            self._end()
            return
        self._outbox.append((seq, data))
        if not self._reading:
            self.sender.wake(self)

    def _end(self) -> None:
        """Queue the close, after what is queued."""
        self._outbox.append(None)
        self._wake.set()

    async def _send_text(self, data: bytes | Update) -> bool:
        if not isinstance(data, bytes):
            data = data.message(self.seat)
        try:
            await self.websocket.send_text(data.decode())
        except Exception:  # the client is gone; the reader sees the disconnect and ends
            return False
        return True

    async def _writer(self) -> None:
        """Send what the reader task left: fan-out from other seats, timers, bots."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            if not await self._send_queued(wait=True):
                return

    def send_ready(self) -> None:
        """Send what is queued and written, now, without a task switch; the writer task
        takes over at the first message that must wait (for the disk, a close, or the
        socket's flow control)."""
        if self._sending:
            return  # the other sender is at it, and goes on to the end of the queue
        gate = self.gate
        outbox = self._outbox
        while outbox:
            item = outbox[0]
            if item is None or item[0] > gate.durable_seq:
                self._wake.set()
                return
            outbox.popleft()
            sending = self._send_text(item[1])
            try:
                awaited = sending.send(None)
            except StopIteration as stop:
                if not stop.value:
                    self._wake.set()  # gone: the writer task finds out and ends
                    return
                continue
            self._sending = True
            task = asyncio.ensure_future(_finish(sending, awaited))
            self._direct.add(task)
            task.add_done_callback(self._sent_later)
            return

    def _sent_later(self, task: asyncio.Future[bool]) -> None:
        self._direct.discard(task)
        self._sending = False
        self._wake.set()  # the rest of the queue, or the end of a closed connection

    async def _send_queued(self, wait: bool) -> bool:
        """Send the queue in order, waiting for the disk (``wait``) or stopping at the first
        message not yet written. False once the connection is closed or gone."""
        if self._sending:
            return True  # the other sender is at it, and goes on to the end of the queue
        gate = self.gate
        outbox = self._outbox
        self._sending = True
        try:
            while outbox:
                item = outbox[0]
                if item is None:
                    code, reason = self._closing or (1000, "")
                    with contextlib.suppress(Exception):
                        await self.websocket.close(code, reason)
                    return False
                seq, data = item
                if seq > gate.durable_seq:
                    if not wait:
                        self._wake.set()  # the writer task waits for the disk instead
                        return True
                    await gate.wait_durable(seq)  # never send ahead of the disk
                outbox.popleft()
                if not await self._send_text(data):
                    return False
        finally:
            self._sending = False
        return True

    # -- incoming

    async def serve(self) -> None:
        writer = asyncio.create_task(self._writer())
        try:
            await self._read_loop(writer)
        except (WebSocketDisconnect, RuntimeError):
            pass  # the client went away (RuntimeError: receive after a close)
        except _Close as close:
            self._closing = (close.code, close.reason)
            self._end()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 2.0)
        finally:
            self.registry.fanout.unsubscribe(self.table.code, self)
            self.admission.leave(self)
            if self.greeted and self.seat is not None:
                self.table.seating.disconnect(self.seat)
            if self.speaker is not None:
                self.table.presence.leave(self.speaker)
            if not writer.done():
                self._closing = self._closing or (1000, "")
                self._end()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(writer, 1.0)
            writer.cancel()

    async def _read_loop(self, writer: asyncio.Task[None]) -> None:
        while True:
            if self.greeted:  # (no wait_for: one coroutine less a message)
                message = await self.websocket.receive()
            else:
                try:
                    message = await asyncio.wait_for(
                        self.websocket.receive(), self.config.hello_timeout
                    )
                except TimeoutError:
                    self.error(None, ErrorCode.HELLO_REQUIRED, "send hello first")
                    raise _Close(1008, "no hello") from None
            if message["type"] == "websocket.disconnect":
                return
            if writer.done():
                return
            self._reading = True
            self._own_update = False
            try:
                self._handle_frame(message.get("text"), message.get("bytes"))
            finally:
                self._reading = False
            await self._answer_now()

    async def _answer_now(self) -> None:
        """Send this client's answer (its update and ack, an error) from the reader task, in
        this pass of the loop, rather than wake the writer task for the next one: the change
        is written first (with whatever else is staged), as it would have been then."""
        if self._outbox:
            self.gate.flush()
            if not await self._send_queued(wait=False):
                self._wake.set()  # closed: the writer task ends too
        # The other seats' updates go out at the end of this pass (Sender): every mover of the
        # pass is answered first.

    def _handle_frame(self, text: str | None, binary: bytes | None) -> None:
        size = len(text) if text is not None else len(binary or b"")
        if size > self.config.max_message_bytes:
            self.error(
                None,
                ErrorCode.TOO_LARGE,
                f"messages are limited to {self.config.max_message_bytes} bytes",
            )
            raise _Close(1009, "message too large")
        data = None
        if text is not None:
            with contextlib.suppress(orjson.JSONDecodeError):
                data = orjson.loads(text)
        # Parsed before the rate limit, so that a refusal names the message it refused.
        request_id = data.get("id") if isinstance(data, dict) else None
        id_valid = request_id is None or _valid_id(request_id)
        now = time.monotonic()
        if not self._bucket.take(now):
            answer_to = request_id if id_valid else None
            if now < self._retry_at:
                self._strikes = max(0.0, self._strikes - (now - self._struck_at)) + 1
                self._struck_at = now
                if self._strikes > self.config.rate_strikes:
                    self.error(answer_to, ErrorCode.RATE_LIMITED, "too many messages: closing")
                    raise _Close(1008, "flooding")
            wait = self._bucket.wait(now)
            self._retry_at = now + wait
            retry_ms = max(1, math.ceil(wait * 1000))
            self.reply(
                {
                    "type": "error",
                    "id": answer_to,
                    "code": str(ErrorCode.RATE_LIMITED),
                    "message": f"too many messages: send this one again in {retry_ms} ms",
                    "retry_after_ms": retry_ms,
                }
            )
            return
        if not isinstance(data, dict):
            if text is None:
                self.error(None, ErrorCode.BAD_JSON, "messages are JSON text, not binary frames")
            else:
                self.error(None, ErrorCode.BAD_JSON, "a message is one JSON object")
            if not self.greeted:  # whatever this is, it does not speak the protocol
                raise _Close(1008, "no hello")
            return
        if not id_valid:
            self.error(None, ErrorCode.BAD_MESSAGE, "id must be text (up to 64) or an integer")
            return
        kind = data.get("type")
        if kind not in CLIENT_TYPES:
            if not self.greeted:
                self.error(request_id, ErrorCode.HELLO_REQUIRED, "send hello first")
                raise _Close(1008, "no hello")
            self.error(request_id, ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind!r}")
            return
        if not self.greeted and kind != "hello":
            self.error(request_id, ErrorCode.HELLO_REQUIRED, "send hello first")
            raise _Close(1008, "no hello")
        try:
            self._dispatch(kind, data, request_id)
        except TableError as error:
            self.reply({"type": "error", "id": request_id, **error.to_dict()})
            if error.code in _CLOSING:
                raise _Close(1008, str(error.code)) from None

    def _dispatch(self, kind: str, data: dict[str, Any], request_id: object) -> None:
        table = self.table
        seat = self.seat
        if kind == "move":  # first: the message of nearly every request
            if seat is None:
                raise TableError(ErrorCode.NOT_SEATED, "spectators watch; take a seat to play")
            if request_id is None:
                raise TableError(
                    ErrorCode.BAD_MESSAGE,
                    "a move needs an id: its ack or error names it, and a resent move is "
                    "recognised by it",
                )
            ack = table.act(seat, data.get("move"), data.get("v"), str(request_id))
        elif kind == "hello":
            self._hello(data)
            return
        elif kind == "ping":
            self.reply({"type": "pong", "id": request_id, "server_time": int(time.time() * 1000)})
            return
        elif kind == "chat":
            ack = table.chat.say(seat, self.speaker, data)
        elif seat is None:
            raise TableError(ErrorCode.NOT_SEATED, "spectators watch; take a seat to play")
        elif kind == "hint":
            self._hint(seat, request_id)
            return
        else:
            ack = self._seat_action(kind, seat, data)
        self.ack(ack.to_dict(request_id))

    def _seat_action(self, kind: str, seat: int, data: dict[str, Any]) -> Ack:
        """A request of a seat's player other than a move, a hint or a chat line."""
        table = self.table
        if kind == "back":
            return table.seating.back(seat)
        if kind == "ready":
            return table.round_pause.ready(seat)
        if kind == "handoff":
            return table.handoffs.offer(seat, data.get("seat"))
        if kind == "kick":
            return table.seating.kick(seat, data.get("seat"))
        if kind == "move_seat":
            return table.seating.move_seat(seat, data.get("from"), data.get("to"))
        if kind == "fill_bots":
            return table.seating.fill_bots(seat)
        if kind == "settings":
            return table.host.settings(seat, data)
        if kind == "pause":
            return table.host.pause(seat)
        if kind == "resume":
            return table.host.resume(seat)
        if kind == "start":
            return table.start(seat)
        assert kind == "play_again", kind
        return table.play_again(seat)

    def _hello(self, data: dict[str, Any]) -> None:
        table = self.table
        if self.greeted:
            raise TableError(ErrorCode.ALREADY_HELLO, "hello is sent once per connection")
        protocol = data.get("protocol")
        if type(protocol) is not int or protocol != PROTOCOL:  # (2.0 and true are not 2)
            raise TableError(
                ErrorCode.BAD_PROTOCOL, f"this server speaks protocol {PROTOCOL} (an integer)"
            )
        since = data.get("since")
        if since is not None and (isinstance(since, bool) or not isinstance(since, int | float)):
            raise TableError(ErrorCode.BAD_MESSAGE, "since must be a version number")
        if isinstance(since, float):  # (JSON integers beyond 64 bits come as floats)
            since = None  # no version the server holds: a snapshot
        token = data.get("token")
        seat = None
        if token is not None:
            seat = table.seat_for_token(token)
            if seat is None:
                raise TableError(ErrorCode.BAD_TOKEN, "this token holds no seat at this table")
        name = data.get("name")
        if seat is None:
            if name is not None:
                name = check_name(name)
            self.admission.admit_spectator(table.code, self.address, self)
        # From here to the subscription nothing yields: no update can slip in between.
        self.seat = seat
        self.greeted = True
        if seat is not None:
            self.admission.admit_player(table.code, seat, self)
            table.seating.connect(seat)
            name = table.seats[seat].name
        else:
            self.speaker = table.presence.arrive(name)
            name = self.speaker.name
        self.send_state(
            {
                "type": "welcome",
                "protocol": PROTOCOL,
                "role": "spectator" if seat is None else "player",
                "seat": seat,
                "host": seat == table.host_seat,
                "name": name,
                "v": table.version,
                "server_time": int(time.time() * 1000),
            }
        )
        missed = None if since is None else table.updates_since(since)
        if missed and any(update.seat_changes is not None for update in missed):
            missed = None  # seats changed hands meanwhile: start afresh from a snapshot
        if missed is None:
            self.send_state(table.snapshot(seat))
        else:
            for update in missed:
                self.deliver(update)
        self.send_state(table.presence.message())
        self.registry.fanout.subscribe(table.code, self)

    def _hint(self, seat: int, request_id: object) -> None:
        view, legal = self.table.views.pending_decision(seat)
        bot = resolve_bot(HINT_BOT)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(None, decide, bot, view, legal, 0)

        def done(f: asyncio.Future[str]) -> None:
            if f.cancelled() or f.exception() is not None:
                self.error(request_id, ErrorCode.NO_DECISION, "no hint available")
                return
            self.reply({"type": "hint", "id": request_id, "move": f.result(), "bot": bot})

        future.add_done_callback(done)
