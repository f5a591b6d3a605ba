"""One client at a table, as its table's process sees it (docs/protocol.md section 3).

A :class:`Session` takes a connection's checked messages (hello and every request after),
carries them out on the :class:`~.table.Table`, and writes what the client is sent to an
:class:`Outlet`: the connection's own :class:`~.outbox.Outbox` when its socket is in this
process, or the way back to the process that holds the socket when the request was relayed
(:mod:`.relay`). Which seat it acts for, what it is admitted as, and what it is sent of every
update are decided here, the same way for both.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

import orjson

from ..background.botrunner import HINT_BOT, decide, resolve_bot
from ..errors import ErrorCode, TableError
from ..tables import invites
from ..tables.chat import Speaker
from ..tables.fanout import Fanout
from ..tables.model import Ack, SeatChanges, check_name
from ..tables.table import Table, Update
from .admission import Admission

#: 3: the end-of-round pause, chat, presence, host tools and seat handoff; since 2, an ack
#: that follows its request's own update rides in it (docs/protocol.md section 3).
PROTOCOL = 3
#: Every message type a client may send.
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
        "visibility",
    }
)
#: Refusals of a hello that close the connection.
CLOSING = frozenset(
    {
        ErrorCode.BAD_TOKEN,
        ErrorCode.BAD_PROTOCOL,
        ErrorCode.TOO_MANY_CONNECTIONS,
        ErrorCode.TABLE_NOT_FOUND,  # (a private table's, asked for without its invite)
    }
)


class Outlet(Protocol):
    """Where a session's messages go, in order."""

    #: The id an update's ack is addressed to (unique in the cluster).
    @property
    def connection(self) -> int: ...

    def update(self, update: Update, seat: int | None) -> None:
        """``update`` as ``seat`` sees it (with the ack it carries for this connection)."""
        ...

    def send(self, data: bytes, seq: int) -> None:
        """``data``, once the change numbered ``seq`` is written (0: it needs no write)."""
        ...

    @property
    def closed(self) -> bool:
        """A close is queued: nothing more is sent."""
        ...

    def notice(self, message: bytes) -> None:
        """A message that is no table version (presence), in order, needing no write."""
        ...

    def follow(self, version: int, seat: int | None) -> None:
        """The hello is answered: from ``version`` on, the connection gets every update."""
        ...

    def close(self, code: int, reason: str) -> None:
        """Close after what is queued."""
        ...

    def abort(self, code: int, reason: str) -> None:
        """Close at once, dropping what is queued (none of it will be written)."""
        ...


def error_message(request_id: object, code: ErrorCode, message: str) -> bytes:
    return orjson.dumps({"type": "error", "id": request_id, "code": str(code), "message": message})


class Session:
    """A player of one seat, or a spectator, at one table."""

    __slots__ = (
        "address",
        "admission",
        "fanout",
        "greeted",
        "hidden",
        "node",
        "outlet",
        "seat",
        "speaker",
        "table",
    )

    def __init__(
        self,
        table: Table,
        fanout: Fanout,
        admission: Admission,
        address: str | None,
        outlet: Outlet,
        node: str | None = None,
    ) -> None:
        self.table = table
        #: In a cluster, the name of the process that owns the table (this one): the
        #: welcome says it, so that a client that asked for another (a node that died and
        #: whose tables moved) asks for this one from then on (docs/hosting.md, section 4).
        self.node = node
        self.fanout = fanout
        self.admission = admission
        #: The client's address key (ratelimit.address_key); None: not limited.
        self.address = address
        self.outlet = outlet
        self.seat: int | None = None
        #: A spectator's name and chat limit.
        self.speaker: Speaker | None = None
        self.greeted = False
        #: The client said its page is hidden (``visibility``): a turn of its seat may be
        #: told by Web Push (push/turns.py). Clients that never say so are looking.
        self.hidden = False

    # ------------------------------------------------------------ requests

    def handle(self, kind: str, data: dict[str, Any], request_id: object) -> None:
        """Carry out one checked message (its type is one of :data:`CLIENT_TYPES`); a
        refusal is answered, and closes if it must."""
        if not self.greeted and kind != "hello":
            self.outlet.send(
                error_message(request_id, ErrorCode.HELLO_REQUIRED, "send hello first"), 0
            )
            self.outlet.close(1008, "no hello")
            return
        try:
            self._dispatch(kind, data, request_id)
        except TableError as error:
            self.outlet.send(
                orjson.dumps({"type": "error", "id": request_id, **error.to_dict()}), 0
            )
            if error.code in CLOSING:
                self.outlet.close(1008, str(error.code))

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
            ack = table.answer(
                lambda: table.act(seat, data.get("move"), data.get("v"), str(request_id))
            )
        elif kind == "hello":
            self._hello(data)
            return
        elif kind == "ping":
            self.outlet.send(
                orjson.dumps(
                    {"type": "pong", "id": request_id, "server_time": int(time.time() * 1000)}
                ),
                0,
            )
            return
        elif kind == "visibility":
            hidden = data.get("hidden")
            if not isinstance(hidden, bool):
                raise TableError(ErrorCode.BAD_MESSAGE, "hidden is true or false")
            self.hidden = hidden  # (no answer: nothing of the table changed)
            return
        elif kind == "chat":
            speaker = self.speaker
            ack = table.answer(lambda: table.chat.say(seat, speaker, data))
        elif seat is None:
            raise TableError(ErrorCode.NOT_SEATED, "spectators watch; take a seat to play")
        elif kind == "hint":
            self._hint(seat, request_id)
            return
        else:
            ack = table.answer(lambda: self._seat_action(kind, seat, data))
        self._acknowledge(ack, request_id)

    def _acknowledge(self, ack: Ack, request_id: object) -> None:
        """The ack rides in the update the request made, if it did and that update can still
        carry it; otherwise it goes on its own, once what the request wrote is written."""
        data = orjson.dumps(ack.to_dict(request_id))
        update = ack.update
        if update is None or not update.attach_ack(self.outlet.connection, data):
            self.outlet.send(data, self.table.staged_seq)

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
        if table.retired:  # (taken over by another process while this connection opened)
            self.moved()
            return
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
        seat = None if token is None else table.seat_for_token(token)
        if seat is None and not invites.admits(table.options.invite_hash, data.get("invite")):
            raise invites.not_found(table.code)  # a private table: as if there were none
        if token is not None and seat is None:
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
        outlet = self.outlet
        outlet.send(
            orjson.dumps(
                {
                    "type": "welcome",
                    "protocol": PROTOCOL,
                    "role": "spectator" if seat is None else "player",
                    "seat": seat,
                    "host": seat == table.host_seat,
                    "name": name,
                    "v": table.version,
                    "server_time": int(time.time() * 1000),
                    **({} if self.node is None else {"node": self.node}),
                }
            ),
            0,
        )
        missed = None if since is None else table.updates_since(since)
        if missed and any(update.seat_changes is not None for update in missed):
            missed = None  # seats changed hands meanwhile: start afresh from a snapshot
        if missed is None:
            outlet.send(orjson.dumps(table.snapshot(seat)), 0)
        else:
            for update in missed:
                outlet.update(update, seat)
        outlet.send(orjson.dumps(table.presence.message()), 0)
        outlet.follow(table.version, seat)
        self.fanout.subscribe(table.code, self)

    def _hint(self, seat: int, request_id: object) -> None:
        view, legal = self.table.views.pending_decision(seat)
        bot = resolve_bot(HINT_BOT)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(None, decide, bot, view, legal, 0)

        def done(f: asyncio.Future[str]) -> None:
            if f.cancelled() or f.exception() is not None:
                body = error_message(request_id, ErrorCode.NO_DECISION, "no hint available")
            else:
                body = orjson.dumps(
                    {"type": "hint", "id": request_id, "move": f.result(), "bot": bot}
                )
            self.outlet.send(body, 0)

        future.add_done_callback(done)

    # ------------------------------------------------------------ what the table sends

    def deliver(self, update: Update) -> None:
        changes = update.seat_changes
        if changes is not None and self.seat is not None and not self._follow(changes):
            return
        self.outlet.update(update, self.seat)

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
            self.outlet.send(error_message(None, code, why), self.table.staged_seq)
            self.outlet.close(1008, str(code))
            return False
        if changes.swapped is not None and seat in changes.swapped:
            first, second = changes.swapped
            self.seat = second if seat == first else first
            self.admission.moved(self, self.seat)
        return True

    def notice(self, message: bytes) -> None:
        self.outlet.notice(message)

    def resync(self) -> None:
        """Nothing to catch up: a session is where its table is, and gets every update of
        it in this process (the sockets relayed elsewhere catch up themselves, relay.py)."""

    def moved(self) -> None:
        """The table is no longer this process's (another took it over): close at once,
        dropping what is queued (its changes will not be written); the client reconnects
        and reaches the table where it is now."""
        self.outlet.abort(1012, "reconnect")

    def replaced(self) -> None:
        """A newer connection of this seat took this one's place (admission.py): say so,
        then close."""
        self.outlet.send(
            error_message(
                None,
                ErrorCode.TOO_MANY_CONNECTIONS,
                f"this seat has {self.admission.per_seat} newer connections: this one is closed",
            ),
            0,
        )
        self.outlet.close(1008, "too_many_connections")

    def leave(self) -> None:
        """The connection ended: nothing of the table is its any more."""
        table = self.table
        self.fanout.unsubscribe(table.code, self)
        self.admission.leave(self)
        if self.greeted and self.seat is not None:
            table.seating.disconnect(self.seat)
        if self.speaker is not None:
            table.presence.leave(self.speaker)
