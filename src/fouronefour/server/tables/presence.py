"""Who watches a table: its spectators' names, told to every connection of the table in a
``presence`` message (docs/protocol.md section 3).

Presence is no table change: it is not versioned, written or resent. Changes are
coalesced: at most one message a second, whatever the crowd does in between.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..clock import Scheduler
from .chat import Speaker
from .fanout import Fanout
from .model import ms

#: Spectators named in a presence message (the count covers them all).
WATCHERS_SHOWN = 20
#: Least seconds between two presence messages of a table.
PRESENCE_SECONDS = 1.0


class Presence:
    """The spectators of one table, in the order they came."""

    __slots__ = (
        "_code",
        "_fanout",
        "_guests",
        "_last_sent",
        "_scheduled",
        "_scheduler",
        "_watching",
    )

    def __init__(self, code: str, fanout: Fanout, scheduler: Scheduler) -> None:
        self._code = code
        self._fanout = fanout
        self._scheduler = scheduler
        self._watching: list[Speaker] = []
        self._guests = 0
        self._last_sent = float("-inf")
        self._scheduled = False

    def arrive(self, name: str | None) -> Speaker:
        """A spectator connected; ``name`` None: the server names them ``Guest n``."""
        if name is None:
            self._guests += 1
            name = f"Guest {self._guests}"
        speaker = Speaker(name, self._scheduler.now())
        self._watching.append(speaker)
        self._changed()
        return speaker

    def leave(self, speaker: Speaker) -> None:
        for i, watching in enumerate(self._watching):
            if watching is speaker:
                del self._watching[i]
                self._changed()
                return

    @property
    def count(self) -> int:
        return len(self._watching)

    def message(self) -> dict[str, Any]:
        return {
            "type": "presence",
            "spectators": len(self._watching),
            "watchers": [s.name for s in self._watching[:WATCHERS_SHOWN]],
            "server_time": ms(self._scheduler.now()),
        }

    def _changed(self) -> None:
        if self._scheduled:
            return  # the message on its way will say it
        self._scheduled = True
        delay = max(0.0, self._last_sent + PRESENCE_SECONDS - self._scheduler.now())
        self._scheduler.call_later(delay, self._send)

    def _send(self) -> None:
        self._scheduled = False
        self._last_sent = self._scheduler.now()
        self._fanout.notify(self._code, orjson.dumps(self.message()))
