"""Fan-out between the processes of a cluster, through Redis publish/subscribe.

Each table has an update channel. A process publishes a table's updates there (encoded by
:meth:`Update.encode`, the same bytes its own sockets get, and the acks they carry) once
their change is written, and subscribes to the channels of the tables its own connections
watch. Its own subscribers get its updates at once, in-process, as with
:class:`InProcessFanout`; what it reads back from its own publications is skipped by the mark
each message starts with. Publications leave through the process's :class:`~.broker.Broker`,
in one order with everything else it sends.

An owner publishes a table's updates and notices only while another process relays one of
its connections (:attr:`RedisFanout.relayed`, set by the relay): behind a load balancer
that sends sockets to their table's owner, most tables have none, and their updates cost
Redis nothing.

Redis keeps nothing for a subscriber that is away, so whatever breaks the chain of versions
makes the subscribers catch up from the table instead (:meth:`Subscriber.resync`): the
connection to Redis lost, an update whose version is not the next one, or a new owner of
the table (its earlier owner's updates stop).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable

from ..tables.fanout import InProcessFanout, Subscriber
from ..tables.model import Update
from .broker import Broker, channel

log = logging.getLogger(__name__)

#: What follows a message's mark: an encoded update, a notice (presence) as it is sent, or
#: the word that a process owns the table now.
_UPDATE = b"U"
_NOTICE = b"N"
_OWNER = b"O"


def update_channel(code: str) -> bytes:
    return channel("table:" + code)


class RedisFanout:
    """One process's side of the cluster's fan-out."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self._broker = broker
        self._local = InProcessFanout()
        #: Starts every message this process publishes (skipped when read back).
        self._mark = secrets.token_bytes(8)
        self._last_v: dict[str, int] = {}  # the last version delivered here, per table
        #: Whether another process relays a connection of table ``code`` (owned here), so
        #: needs its updates (relay.py sets it; by default every table's are published).
        self.relayed: Callable[[str], bool] = _always
        broker.on_lost(self._lost)

    async def open(self) -> None:
        await self._broker.open()

    async def shutdown(self) -> None:
        await self._broker.shutdown()

    # ------------------------------------------------------------ subscribing

    def subscribe(self, code: str, subscriber: Subscriber) -> None:
        first = self._local.count(code) == 0
        self._local.subscribe(code, subscriber)
        if first:
            self._broker.subscribe(update_channel(code), lambda data: self._received(code, data))

    def unsubscribe(self, code: str, subscriber: Subscriber) -> None:
        self._local.unsubscribe(code, subscriber)
        if self._local.count(code) == 0:
            self._last_v.pop(code, None)
            self._broker.unsubscribe(update_channel(code))

    async def subscribed(self, code: str) -> None:
        await self._broker.subscribed(update_channel(code))

    def count(self, code: str) -> int:
        return self._local.count(code)

    def subscribers(self, code: str) -> tuple[Subscriber, ...]:
        return self._local.subscribers(code)

    # ------------------------------------------------------------ publishing

    def publish(self, code: str, update: Update) -> None:
        # Here first: what a relayed connection's session sends about it (the seat it now
        # acts for, a revoked token's close) goes out before the update does.
        self._local.publish(code, update)
        self._last_v[code] = update.v
        if not self.relayed(code):
            return
        mark = self._mark
        self._broker.publish(
            update_channel(code),
            # (Encoded when it leaves: the mover's ack is attached after this.)
            lambda: b"".join((mark, _UPDATE, update.encode())),
            0 if update.written else self._broker.staged_seq,
            code,
        )

    def notify(self, code: str, message: bytes) -> None:
        self._local.notify(code, message)
        if not self.relayed(code):
            return
        self._broker.publish(update_channel(code), self._mark + _NOTICE + message, 0, code)

    def announce(self, code: str) -> None:
        """This process owns ``code`` now: the processes that relayed it to another owner
        close those connections (their clients reconnect and reach this one)."""
        self._broker.publish(update_channel(code), self._mark + _OWNER, 0, code)

    # ------------------------------------------------------------ receiving

    def _received(self, code: str, data: bytes) -> None:
        if data[:8] == self._mark:
            return  # this process's own: delivered here when published
        kind = data[8:9]
        if kind == _NOTICE:
            self._local.notify(code, data[9:])
            return
        if kind == _OWNER:
            self._resync(code)
            return
        try:
            update = Update.decode(data[9:])
        except ValueError:
            log.error("table %s: a message on its channel is not an update", code)
            return
        last = self._last_v.get(code)
        if last is not None and update.v <= last:
            return  # seen already
        self._last_v[code] = update.v
        if last is not None and update.v > last + 1:
            self._resync(code)  # some were lost on the way
            return
        self._local.publish(code, update)

    def _resync(self, code: str) -> None:
        self._last_v.pop(code, None)
        for subscriber in self._local.subscribers(code):
            subscriber.resync()

    def _lost(self) -> None:
        """The subscription connection broke: what was published meanwhile is lost."""
        for code in self._local.codes():
            self._resync(code)


def _always(code: str) -> bool:
    return True
