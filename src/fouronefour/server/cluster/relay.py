"""Relaying a table's clients to the process that owns it (docs/architecture.md, "Relay").

In a cluster each table has one owner process (:meth:`~.storage.Ownership.own`); a load
balancer may send a client to any process. A process that holds a client's socket (or HTTP
call) for a table another process owns relays it, through the broker:

- **requests** (hello, every message after it, the end of the connection, an HTTP call)
  go on the table's request channel, which its owner alone listens to, in the order the
  client sent them;
- **answers** (welcome, snapshot, errors, acks that ride in no update, a close, the seat a
  connection now acts for, an HTTP answer) come back on the relaying process's own channel,
  each once the change it follows is written;
- **updates** come on the table's update channel (:mod:`.redisfanout`), published once per
  table version for every process that relays the table, and carry the mover's ack
  (:meth:`~.model.Update.attach_ack`).

The owner runs one :class:`~.session.Session` per relayed connection, exactly as for its own
sockets, with a :class:`RelayOutlet` as its outlet: admission, seats and presence are the
owner's to decide. Both kinds of message leave the owner in one ordered queue and reach a
relaying process on one connection (:mod:`.broker`), so a client sees them in the order its
owner sent them.

When an owner goes, its relaying processes close the sockets they relayed to it (close
code 1012): the clients reconnect, and the process they reach owns the table or relays to
whoever does now.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import ErrorCode, TableError
from ..sockets.outbox import Outbox
from ..sockets.session import Session, error_message
from ..tables.fanout import FanoutError
from ..tables.model import Update
from .broker import Broker, channel

if TYPE_CHECKING:
    from ..sockets.admission import Admission
    from ..storage import Storage
    from ..tables.table import Table
    from .redisfanout import RedisFanout

log = logging.getLogger(__name__)

#: How often relaying processes and owners look at whether the other side still runs.
WATCH_SECONDS = 0.5
#: How long a relayed hello or HTTP call waits for its owner's answer.
ANSWER_SECONDS = 5.0
#: How long a new owner waits for Redis to confirm it listens for a table's requests.
READY_SECONDS = 2.0

#: An HTTP call carried out at a table: the request's body -> the answer's body.
Operation = Callable[["Table", dict[str, Any]], dict[str, Any]]


def request_channel(code: str) -> bytes:
    """Where a table's owner listens for requests."""
    return channel("requests:" + code)


def _frame(header: list[Any], data: bytes = b"") -> bytes:
    return orjson.dumps(header) + b"\n" + data


def _unframe(message: bytes) -> tuple[list[Any], bytes]:
    head, _, data = message.partition(b"\n")
    header = orjson.loads(head)
    if not isinstance(header, list) or not header:
        raise ValueError("not a relay frame")
    return header, data


class OwnerGone(Exception):
    """No process answers for the table: its owner is gone or just changing
    (``owner_unavailable``), or Redis is away and no owner can be reached
    (``broker_unavailable``)."""

    def __init__(self, message: str, code: ErrorCode = ErrorCode.OWNER_UNAVAILABLE) -> None:
        super().__init__(message)
        self.code = code

    def error(self) -> TableError:
        return TableError(self.code, f"{self}: try again")


# ---------------------------------------------------------------- the owner's side


class RelayOutlet:
    """A relayed connection's outlet at its table's owner: answers go back to the relaying
    process through the broker; updates go on the table's channel instead (the relaying
    process picks what the connection sees), so only the seat it acts for is sent, when it
    changes."""

    __slots__ = ("_broker", "_code", "_gate", "_to", "closed", "connection", "live", "seat")

    def __init__(
        self, broker: Broker, gate: Storage, process: str, connection: int, code: str
    ) -> None:
        self._broker = broker
        self._gate = gate
        self._to = channel("process:" + process)
        self._code = code
        self.connection = connection
        self.closed = False
        #: The hello was answered: updates reach the connection on the table's channel.
        self.live = False
        self.seat: int | None = None

    def _publish(self, header: list[Any], data: bytes = b"", seq: int = 0) -> None:
        self._broker.publish(
            self._to,
            _frame([header[0], self._broker.process, self.connection, *header[1:]], data),
            seq,
            self._code,
        )

    def update(self, update: Update, seat: int | None) -> None:
        if not self.live:  # (missed updates replayed to a hello with ``since``)
            self.send(update.message(seat), 0 if update.written else self._gate.staged_seq)
            return
        if seat != self.seat:
            self.seat = seat
            self._publish(["seat", seat])

    def send(self, data: bytes, seq: int) -> None:
        if not self.closed:
            self._publish(["send"], data, seq)

    def notice(self, message: bytes) -> None:
        """Presence reaches the relaying process on the table's channel."""

    def follow(self, version: int, seat: int | None) -> None:
        self.live = True
        self.seat = seat
        self._publish(["live", version, seat])

    def close(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self._publish(["close", code, reason])

    def abort(self, code: int, reason: str) -> None:
        self.closed = True
        self._publish(["abort", code, reason])


class RelayServer:
    """What a process does for the tables it owns whose clients are elsewhere."""

    def __init__(
        self,
        broker: Broker,
        gate: Storage,
        fanout: RedisFanout,
        admission: Admission,
        operations: dict[str, Operation],
        status: Callable[[TableError], int],
        hold: Callable[[str], None],
        release: Callable[[str], None],
    ) -> None:
        self._broker = broker
        # A relayed connection keeps its table in memory, as a socket here does.
        self._hold = hold
        self._release = release
        self._gate = gate
        self._fanout = fanout
        self._admission = admission
        self._operations = operations
        self._status = status
        #: (relaying process, connection id) -> its session here.
        self._sessions: dict[tuple[str, int], Session] = {}
        self._by_table: dict[str, set[tuple[str, int]]] = defaultdict(set)
        self._watching: asyncio.Task[None] | None = None
        broker.on_lost(self._broker_lost)
        # A table's updates go through Redis only while a connection of it is relayed here.
        fanout.relayed = self._by_table.__contains__

    def start(self) -> None:
        self._watching = asyncio.get_running_loop().create_task(self._watch())

    def serve(self, table: Table) -> None:
        """Take requests for ``table`` (owned here now) and tell the processes that relayed
        it to another owner before that their connections are over."""
        code = table.code
        self._broker.subscribe(request_channel(code), lambda data: self._request(table, data))
        self._fanout.announce(code)

    async def ready(self, code: str) -> None:
        """Return once requests for ``code`` reach this process (Redis confirmed the
        subscription), or after :data:`READY_SECONDS` (Redis away: relayed clients retry)."""
        if not self._broker.connected:
            return  # (no confirmation is coming: none is waited for)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._broker.subscribed(request_channel(code)), READY_SECONDS)

    def stop(self, code: str, written: bool = True) -> None:
        """No more requests for ``code`` (no longer owned here): its relayed connections are
        closed, after what is queued for them if it is ``written`` (else at once, dropping
        it: the table was taken over and none of it will be)."""
        self._broker.unsubscribe(request_channel(code))
        if not written:  # (what it queued about the table follows changes never written)
            self._broker.forget(code)
        for key in list(self._by_table.get(code, ())):
            session = self._sessions.get(key)
            if session is not None:
                outlet = session.outlet
                assert isinstance(outlet, RelayOutlet)
                if written:
                    outlet.close(1012, "reconnect")
                else:
                    outlet.abort(1012, "reconnect")
                self._end(key)

    # -- requests

    def _request(self, table: Table, message: bytes) -> None:
        try:
            request = orjson.loads(message)
            op = request["op"]
            process = str(request["proc"])
        except (orjson.JSONDecodeError, KeyError, TypeError):
            log.error("table %s: a request on its channel is not one", table.code)
            return
        if table.retired:
            return  # (its requests stop with the next unsubscription)
        if op == "http":
            self._http(table, process, request)
        else:
            key = (process, int(request["conn"]))
            if op == "hello":
                self._hello(table, key, request)
            elif op == "msg":
                session = self._sessions.get(key)
                if session is None:  # it was closed here meanwhile: the client reconnects
                    outlet = RelayOutlet(self._broker, self._gate, process, key[1], table.code)
                    outlet.close(1012, "reconnect")
                else:
                    session.handle(str(request["kind"]), request["data"], request["data"].get("id"))
                    if session.outlet.closed:
                        self._end(key)
            elif op == "bye":
                self._end(key)
        self._gate.flush()

    def _hello(self, table: Table, key: tuple[str, int], request: dict[str, Any]) -> None:
        process, connection = key
        outlet = RelayOutlet(self._broker, self._gate, process, connection, table.code)
        session = Session(
            table, self._fanout, self._admission, request.get("address"), outlet, self._broker.node
        )
        data = request["data"]
        # Counted as relayed before the hello is handled: what it publishes (its presence)
        # goes through Redis too.
        keys = self._by_table[table.code]
        keys.add(key)
        session.handle("hello", data, data.get("id"))
        if outlet.closed or not session.greeted:
            if not session.greeted and not outlet.closed:  # refused: it may say hello again
                outlet.close(1008, "no hello")
            keys.discard(key)
            if not keys:
                del self._by_table[table.code]
            session.leave()
            return
        self._sessions[key] = session
        self._hold(table.code)

    def _http(self, table: Table, process: str, request: dict[str, Any]) -> None:
        operation = self._operations.get(str(request.get("what")))
        seq = self._gate.staged_seq
        try:
            if operation is None:
                raise TableError(ErrorCode.UNKNOWN_TYPE, "no such call")
            body, status = operation(table, request.get("body") or {}), 200
            body = {**body, "node": self._broker.node}  # (the owner's: where sockets go)
        except TableError as error:
            # A refusal changed nothing: it waits for no write (while the database cannot be
            # written it goes past the answers that do, instead of timing out).
            body, status, seq = {"error": error.to_dict()}, self._status(error), 0
        # (Once what the call changed is written: a seat's token is handed out after it.)
        self._broker.publish(
            channel("process:" + process),
            _frame(["http", self._broker.process, request.get("req"), status], orjson.dumps(body)),
            seq,
            table.code,
        )

    def _end(self, key: tuple[str, int]) -> None:
        session = self._sessions.pop(key, None)
        if session is None:
            return
        code = session.table.code
        keys = self._by_table.get(code)
        if keys is not None:
            keys.discard(key)
            if not keys:
                del self._by_table[code]
        session.leave()
        self._release(code)

    # -- processes that went away

    def _broker_lost(self) -> None:
        """Redis is away: the relaying processes close their sockets (updates to them may be
        lost), and so do we with their sessions."""
        for key in list(self._sessions):
            self._end(key)

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            processes = {process for process, _ in self._sessions}
            if not processes:
                continue
            with contextlib.suppress(Exception):
                alive = await self._broker.alive(processes)
                for key in [k for k in self._sessions if k[0] not in alive]:
                    self._end(key)

    async def shutdown(self) -> None:
        if self._watching is not None:
            self._watching.cancel()
            with contextlib.suppress(BaseException):
                await self._watching


# ---------------------------------------------------------------- the relaying side


class RelayClient:
    """A socket of this process at a table another process owns: the connection's handler
    (its checked messages go to the owner) and its subscriber (the table's updates come
    from the owner's channel)."""

    def __init__(self, relay: Relay, code: str, outbox: Outbox, address: str | None) -> None:
        self._relay = relay
        self.code = code
        self.outbox = outbox
        self.address = address
        #: A hello was sent (the owner checks it: a refused one closes the connection).
        self.greeted = False
        self.seat: int | None = None
        #: The version the connection was brought to by the owner's answer to its hello;
        #: None until then (updates before it are not this connection's).
        self.since: int | None = None
        #: The owner, once it answered.
        self.owner: str | None = None

    # -- from the client

    def handle(self, kind: str, data: dict[str, Any], request_id: object) -> None:
        if kind == "ping":  # answered here: the owner's clock is no better
            self.outbox.send(
                orjson.dumps(
                    {"type": "pong", "id": request_id, "server_time": int(time.time() * 1000)}
                ),
                0,
            )
            return
        if kind == "hello" and not self.greeted:
            self.greeted = True
            self._relay.hello(self, data)
            return
        self._relay.forward(
            self.code,
            {"op": "msg", "conn": self.outbox.connection, "kind": kind, "data": data},
        )

    def leave(self) -> None:
        self._relay.leave(self)

    # -- from the owner

    def answer(self, header: list[Any], data: bytes) -> None:
        op = header[0]
        outbox = self.outbox
        if op == "send":
            outbox.send(data, 0)
        elif op == "seat":
            self.seat = header[3]
        elif op == "live":
            self.since, self.seat = header[3], header[4]
        elif op == "close":
            outbox.close(int(header[3]), str(header[4]))
        elif op == "abort":
            outbox.abort(int(header[3]), str(header[4]))

    def deliver(self, update: Update) -> None:
        since = self.since
        if since is not None and update.v > since:
            self.outbox.update(update, self.seat)

    def notice(self, message: bytes) -> None:
        if self.since is not None:
            self.outbox.send(message, 0)

    def resync(self) -> None:
        """Updates may have been lost (Redis was away), or the table has a new owner: the
        client reconnects, with ``since``."""
        self.outbox.close(1012, "reconnect")


class Relay:
    """This process's relayed sockets and HTTP calls."""

    def __init__(self, broker: Broker, fanout: RedisFanout) -> None:
        self._broker = broker
        self._fanout = fanout
        self._clients: dict[int, RelayClient] = {}
        self._calls: dict[int, asyncio.Future[tuple[int, bytes]]] = {}
        self._numbers = itertools.count(1)
        self._watching: asyncio.Task[None] | None = None
        broker.subscribe(broker.channel, self._answer)

    def start(self) -> None:
        self._watching = asyncio.get_running_loop().create_task(self._watch())

    async def connect(self, code: str, outbox: Outbox, address: str | None) -> RelayClient:
        """A relayed connection's handler, subscribed to the table's updates."""
        client = RelayClient(self, code, outbox, address)
        self._clients[outbox.connection] = client
        self._fanout.subscribe(code, client)
        # Not without a deadline: while Redis is away no confirmation comes, and the hello
        # must still be answered (it is refused then, broker_unavailable).
        if self._broker.connected:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._fanout.subscribed(code), READY_SECONDS)
        return client

    def hello(self, client: RelayClient, data: dict[str, Any]) -> None:
        request = {
            "op": "hello",
            "proc": self._broker.process,
            "conn": client.outbox.connection,
            "address": client.address,
            "data": data,
        }
        task = asyncio.ensure_future(self._hello(client, request))
        task.add_done_callback(_log_failure)

    async def _hello(self, client: RelayClient, request: dict[str, Any]) -> None:
        """Send the hello; no owner listening, or no answer in time: the client reconnects
        (and finds the table's owner then, maybe this process)."""
        refusal = TableError(
            ErrorCode.OWNER_UNAVAILABLE,
            "this table is moving to another server process: reconnect",
        )
        try:
            if not self._broker.connected:
                raise FanoutError("Redis is away")
            reached = await self._broker.deliver(
                request_channel(client.code), orjson.dumps(request)
            )
        except FanoutError:
            reached = 0
            refusal = TableError(
                ErrorCode.BROKER_UNAVAILABLE,
                "this server cannot reach the table's server process just now: reconnect",
            )
        if reached:
            deadline = time.monotonic() + ANSWER_SECONDS
            while client.since is None and not client.outbox.closed:
                if time.monotonic() > deadline:
                    reached = 0
                    break
                await asyncio.sleep(0.05)
        if not reached and not client.outbox.closed:
            client.outbox.send(error_message(None, refusal.code, refusal.message), 0)
            client.outbox.close(1012, "reconnect")

    def forward(self, code: str, request: dict[str, Any]) -> None:
        request["proc"] = self._broker.process
        self._broker.publish(request_channel(code), orjson.dumps(request))

    def leave(self, client: RelayClient) -> None:
        self._clients.pop(client.outbox.connection, None)
        self._fanout.unsubscribe(client.code, client)
        if client.greeted:
            self.forward(client.code, {"op": "bye", "conn": client.outbox.connection})

    async def call(
        self, code: str, what: str, body: dict[str, Any], address: str | None
    ) -> tuple[int, bytes]:
        """An HTTP call carried out by the table's owner: its status and body; raises
        :class:`OwnerGone` if no process listens for the table."""
        number = next(self._numbers)
        answer: asyncio.Future[tuple[int, bytes]] = asyncio.get_running_loop().create_future()
        self._calls[number] = answer
        request = {
            "op": "http",
            "proc": self._broker.process,
            "req": number,
            "what": what,
            "body": body,
            "address": address,
        }
        try:
            try:
                reached = await self._broker.deliver(request_channel(code), orjson.dumps(request))
            except FanoutError as error:
                raise OwnerGone(str(error), ErrorCode.BROKER_UNAVAILABLE) from None
            if not reached:
                raise OwnerGone(f"no process owns table {code} just now")
            try:
                return await asyncio.wait_for(answer, ANSWER_SECONDS)
            except TimeoutError:
                raise OwnerGone(f"the owner of table {code} did not answer") from None
        finally:
            self._calls.pop(number, None)

    def _answer(self, message: bytes) -> None:
        try:
            header, data = _unframe(message)
        except ValueError:
            log.error("a message on this process's channel is not a relay frame")
            return
        if header[0] == "http":
            call = self._calls.get(int(header[2]))
            if call is not None and not call.done():
                call.set_result((int(header[3]), data))
            return
        client = self._clients.get(int(header[2]))
        if client is None:
            return  # (closed here meanwhile)
        client.owner = str(header[1])
        client.answer(header, data)

    async def _watch(self) -> None:
        """Close the sockets relayed to an owner that is gone."""
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            owners = {c.owner for c in self._clients.values() if c.owner is not None}
            if not owners:
                continue
            with contextlib.suppress(Exception):
                alive = await self._broker.alive(owners)
                for client in list(self._clients.values()):
                    if client.owner is not None and client.owner not in alive:
                        client.resync()

    async def shutdown(self) -> None:
        if self._watching is not None:
            self._watching.cancel()
            with contextlib.suppress(BaseException):
                await self._watching


def _log_failure(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("relaying failed: %s", task.exception())
