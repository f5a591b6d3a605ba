"""A match begins: the host starts the first (``start``) or the next (``play_again``) once
every seat is filled (docs/protocol.md section 3).

Pure steps over a :class:`~.state.TableState` (tests/server/test_match_steps.py): the
checks (:func:`check_start`, :func:`check_play_again`), then :func:`deal` with the seed the
table draws for it.
"""

from __future__ import annotations

from dataclasses import replace

from ...engine import Match
from ..errors import ErrorCode, TableError
from ..storage import NewMatch
from .events import round_start_event
from .state import Step, TableState, check_host, check_not_event_table


def check_start(state: TableState, actor: int | None, *, by_event: bool = False) -> None:
    """The host starts a table's first match; an event's table is started by its event
    (``by_event``) once its players are there or its grace time is over, never early by
    its host, so that a paired player who comes in time finds their seat still theirs."""
    check_host(state, actor)
    if not by_event:
        check_not_event_table(state.options, EVENT_STARTS)
    if state.status != "lobby":
        raise TableError(ErrorCode.WRONG_STATUS, f"the table is {state.status}, not lobby")
    _check_seats_filled(state)


def check_play_again(state: TableState, actor: int | None) -> None:
    check_host(state, actor)
    if state.status != "finished":
        raise TableError(ErrorCode.WRONG_STATUS, "play again once the match is over")
    check_not_event_table(state.options, NEXT_TABLES)
    _check_seats_filled(state)  # (a player removed between matches leaves a seat empty)


#: Why an event's table is not played again, at it or at a new table.
NEXT_TABLES = "the event makes the next round's tables"
#: Why an event's host does not start its table.
EVENT_STARTS = "the event starts it when its players are here or its grace time is over"


def _check_seats_filled(state: TableState) -> None:
    empty = [s.seat for s in state.seats if s.kind == "empty"]
    if empty:
        raise TableError(ErrorCode.SEATS_EMPTY, f"seats {empty} are empty: fill them first")


def deal(state: TableState, seed: int) -> Step:
    """The next match, dealt from ``seed``: every seat is back (not away), nothing paused,
    the first round's decisions offered."""
    number = state.match_number + 1
    match = Match(state.options.rules, seed)
    after = replace(
        state,
        match_number=number,
        move_count=0,
        status="playing",
        paused=False,
        trick_start=match.round.log_size,
        match=match,
        round_end=None,
        seats=tuple(seat.with_away(False) for seat in state.seats),
    )
    events = (
        {"type": "status", "status": "playing", "match_number": number},
        {"type": "match_start", "match_number": number, "levels": list(match.levels)},
        round_start_event(match),
    )
    new_match = NewMatch(number, seed, state.options.rules.to_dict())
    return Step(after, events, row=True, new_prompts=True, new_match=new_match)
