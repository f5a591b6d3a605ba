"""Delivery of a table's updates to the connections watching it.

A :class:`~fouronefour.server.table.Update` holds the public part once and each seat's
private part separately; the subscriber (a connection) picks its own. Messages that are no
table version (presence) go to every subscriber as they are. In-process by default;
a message broker can stand behind the same two-method interface later.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .table import Update


class Subscriber(Protocol):
    def deliver(self, update: Update) -> None:
        """Take an update (must not block: queue it)."""
        ...

    def notice(self, message: bytes) -> None:
        """Take a message that is no table version (presence; must not block)."""
        ...


class Fanout(Protocol):
    def subscribe(self, code: str, subscriber: Subscriber) -> None: ...

    def unsubscribe(self, code: str, subscriber: Subscriber) -> None: ...

    def publish(self, code: str, update: Update) -> None: ...

    def notify(self, code: str, message: bytes) -> None: ...

    def count(self, code: str) -> int: ...


class InProcessFanout:
    """Subscribers of each table in this process."""

    def __init__(self) -> None:
        self._subscribers: dict[str, list[Subscriber]] = defaultdict(list)

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
