"""The turn timer: a human player who lets their turn run out is away, and the table's bot
plays for them until they are back (docs/protocol.md section 5).

Pure: when a turn's time runs out (:func:`turn_deadline`) and what its end does
(:func:`turn_over`), tested alone (tests/server/test_turn_steps.py); the table arms the
timer and calls them when it fires.
"""

from __future__ import annotations

from .model import SeatState
from .seating import away
from .state import Step, TableState

#: How early a timer may fire (the event loop keeps milliseconds) and still count as due.
TIMER_SLACK_SECONDS = 0.001


def turn_deadline(
    deadline: float | None, turn: SeatState | None, paused: bool, now: float, seconds: float
) -> float | None:
    """The deadline of the turn of ``turn`` (None: no seat has a turn, a claim window is
    open instead) once a change is made: the one running (``deadline``; None once the
    decisions offered changed) or a full one from ``now``; none while the table is paused or
    the table's bot plays the seat."""
    if turn is None or paused or turn.bot_controlled:
        return None
    return now + seconds if deadline is None else deadline


def early(deadline: float, now: float) -> bool:
    """Whether a timer that fires at ``now`` is early for ``deadline`` (a later turn's)."""
    return deadline - now > TIMER_SLACK_SECONDS


def turn_over(state: TableState, seat: int) -> Step:
    """``seat``'s turn ran out: its player is away (the bot plays for them)."""
    return away(state, seat)
