"""Bot seats: the table's bot decides for the seats the host filled with bots and for away
players, after ``bot_delay``, off the event loop (docs/protocol.md section 5).

A decision asked for is only played if it is still due when the bot answers: the player may
have come back, or the decision may be gone (a window closed, the table paused).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..errors import TableError

if TYPE_CHECKING:
    from .core import TableCore as Table

log = logging.getLogger(__name__)


class BotSeats:
    """The bot decisions of one table in flight, one per (seat, offered version)."""

    __slots__ = ("_pending", "_table")

    def __init__(self, table: Table) -> None:
        self._table = table
        self._pending: set[tuple[int, int]] = set()

    def schedule(self, seat: int) -> None:
        """Have the bot decide ``seat``'s pending decision after ``bot_delay`` (once)."""
        table = self._table
        prompt_v = table.prompt_v.get(seat, 0)
        key = (seat, prompt_v)
        if key in self._pending:
            return
        self._pending.add(key)
        table.scheduler.call_later(table.services.bot_delay, lambda: self._go(seat, prompt_v))

    def _still_due(self, seat: int, prompt_v: int) -> bool:
        table = self._table
        return (
            not table.current.paused
            and seat in table.views.prompts()
            and table.prompt_v.get(seat) == prompt_v
            and table.bot_controlled(seat)
        )

    def _go(self, seat: int, prompt_v: int) -> None:
        table = self._table
        if not self._still_due(seat, prompt_v):
            self._pending.discard((seat, prompt_v))
            return
        view, legal = table.views.pending_decision(seat)
        current = table.current
        bot_seed = hash((table.seed, current.match_number, current.move_count, seat)) & 0xFFFFFFFF
        table.services.bots.run(
            current.options.bot,
            view,
            legal,
            bot_seed,
            lambda move: self._done(seat, prompt_v, move),
        )

    def _done(self, seat: int, prompt_v: int, move: str) -> None:
        table = self._table
        if not self._still_due(seat, prompt_v):
            self._pending.discard((seat, prompt_v))
            return  # the player came back, or the decision is gone
        if table.postponed(lambda: self._done(seat, prompt_v, move)):
            return
        self._pending.discard((seat, prompt_v))
        try:
            table.decide(seat, move, table.views.prompts()[seat], by_bot=True)
        except TableError as error:  # a bot bug must not stall the table
            log.error(
                "table %s: bot move %r for seat %s refused: %s",
                table.code,
                move,
                seat,
                error.message,
            )
            _, legal = table.views.prompts()[seat]
            table.decide(seat, legal[-1], table.views.prompts()[seat], by_bot=True)
