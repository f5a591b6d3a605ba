"""'Your turn' for a player who is not looking: when a turn falls to a seat held by a
signed-in profile and none of the seat's connections shows the table (none is open, or
every one said its page is hidden: the socket's ``visibility`` message), one notice is sent,
tagged per table (a newer one replaces it on the device), never twice for one turn, and
naming the table only: never a card.

The table calls :meth:`TurnNotices.turn` from its commit (tables/table.py): every session of
a table runs at its owner (relayed ones too), so the owner's admission knows them all.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable

from ..notify import Notice, Notifier
from ..sockets.admission import Admission

log = logging.getLogger(__name__)

#: Tables whose last turn told is remembered (the oldest are forgotten beyond).
REMEMBERED = 10_000


def turn_notice(code: str) -> Notice:
    return Notice("turn", f"/t/{code}", {"table": code}, tag=f"turn-{code}")


class TurnNotices:
    def __init__(self, admission: Admission, notifier: Callable[[], Notifier]) -> None:
        self._admission = admission
        #: The server's notifier as it is now (Web Push replaces the silent one at start).
        self._notifier = notifier
        self._told: OrderedDict[str, tuple[int, int, int]] = OrderedDict()
        self._sending: set[asyncio.Task[int]] = set()

    def looking(self, code: str, seat: int) -> bool:
        """Whether a connection of the seat shows the table now."""
        return any(
            not getattr(connection, "hidden", False)
            for connection in self._admission.at_seat(code, seat)
        )

    def turn(self, code: str, seat: int, profile: str, turn: tuple[int, int]) -> None:
        key = (*turn, seat)
        if self.looking(code, seat) or self._told.get(code) == key:
            return
        self._told[code] = key
        self._told.move_to_end(code)
        while len(self._told) > REMEMBERED:
            self._told.popitem(last=False)
        task = asyncio.get_running_loop().create_task(
            self._notifier().notify(profile, turn_notice(code))
        )
        self._sending.add(task)
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[int]) -> None:
        self._sending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("a turn's notice failed: %s", task.exception())
