"""Delivery of a table's updates to the connections watching it.

A :class:`~fouronefour.server.tables.table.Update` holds the public part once and each seat's
private part separately; the subscriber (a connection) picks its own. Messages that are no
table version (presence) go to every subscriber as they are. In-process by default;
between the processes of a cluster through Redis (:mod:`.redisfanout`). tests/server/contract
holds the suite every implementation passes.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .model import Update


class Subscriber(Protocol):
    def deliver(self, update: Update) -> None:
        """Take an update (must not block: queue it)."""
        ...

    def notice(self, message: bytes) -> None:
        """Take a message that is no table version (presence; must not block)."""
        ...

    def resync(self) -> None:
        """Updates may have been lost (the broker was away): catch up from the table (a
        connection closes, and its client reconnects with the version it has)."""
        ...


class Fanout(Protocol):
    async def open(self) -> None:
        """Connect (raises :class:`FanoutError` if the broker cannot be reached)."""
        ...

    def subscribe(self, code: str, subscriber: Subscriber) -> None: ...

    async def subscribed(self, code: str) -> None:
        """Return once every update published after now reaches this process's
        subscribers of ``code``."""
        ...

    def unsubscribe(self, code: str, subscriber: Subscriber) -> None: ...

    def publish(self, code: str, update: Update) -> None:
        """Deliver ``update`` to every subscriber of ``code``: in this process at once (each
        subscriber waits for the disk itself), in the others once its change is written."""
        ...

    def notify(self, code: str, message: bytes) -> None:
        """Deliver a message that is no table version (presence) to every subscriber of
        ``code``, here and in the other processes."""
        ...

    def count(self, code: str) -> int:
        """This process's subscribers of ``code``."""
        ...

    async def shutdown(self) -> None: ...


class FanoutError(Exception):
    """The broker cannot be reached."""


class InProcessFanout:
    """Subscribers of each table in this process."""

    def __init__(self) -> None:
        self._subscribers: dict[str, list[Subscriber]] = defaultdict(list)

    async def open(self) -> None:
        pass

    async def subscribed(self, code: str) -> None:
        pass

    async def shutdown(self) -> None:
        pass

    def subscribe(self, code: str, subscriber: Subscriber) -> None:
        self._subscribers[code].append(subscriber)

    def unsubscribe(self, code: str, subscriber: Subscriber) -> None:
        subscribers = self._subscribers.get(code)
        if subscribers and subscriber in subscribers:
            subscribers.remove(subscriber)
            if not subscribers:
                del self._subscribers[code]

    def publish(self, code: str, update: Update) -> None:
        for subscriber in tuple(self._subscribers.get(code, ())):
            subscriber.deliver(update)

    def notify(self, code: str, message: bytes) -> None:
        for subscriber in tuple(self._subscribers.get(code, ())):
            subscriber.notice(message)

    def count(self, code: str) -> int:
        return len(self._subscribers.get(code, ()))

    def codes(self) -> list[str]:
        """The tables with subscribers here."""
        return list(self._subscribers)

    def subscribers(self, code: str) -> tuple[Subscriber, ...]:
        return tuple(self._subscribers.get(code, ()))
