"""A table as its pure steps see it, and what a step makes of it.

A step is a function of a frozen :class:`TableState` (the time included) and a request or a
timer: it refuses (``TableError``, nothing changed) or returns a :class:`Step`, the next
state with what everyone is told and what is written. :class:`~.table.Table` is the shell
that applies it (``Table.take``): it keeps the new state, writes, versions and publishes,
and keeps the clocks. A decision's and a claim window's steps are :mod:`.play`'s; a match
dealt, seating, chat, handoffs, the host's tools, the end-of-round pause and the turn
timer have theirs in their own modules.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...engine import Match
from ..errors import ErrorCode, TableError
from ..storage import ChangeExtra, NewMatch, StoredSeat
from .model import RoundEnd, SeatChanges, SeatState, Status, TableOptions
from .settings import TableSettings
from .windows import Window


@dataclass(frozen=True, slots=True)
class Handoff:
    """A seat's pending handoff: its secret's hash, when it expires (seconds), and whether
    the host offered it (which may let a player the host removed back)."""

    secret_hash: str
    expires_at: float
    by_host: bool = False


@dataclass(frozen=True, slots=True)
class TableState:
    """A table as a step sees it: what the step's outcome depends on, the time included."""

    code: str
    options: TableOptions
    match_number: int
    #: Decisions taken in the current match (the next move's index in storage).
    move_count: int
    status: Status
    paused: bool
    #: What the host may change at any time (the longest end-of-round pause among them).
    settings: TableSettings
    #: Where the current trick begins in the current round's log.
    trick_start: int
    #: Every seat is played by a bot (a bot's or an away player's): no pause between rounds.
    bots_only: bool
    #: The server analyses the rounds that end (background/analyst.py).
    analysing: bool
    seats: Sequence[SeatState]
    now: float
    host_seat: int = 0
    #: The table's version (the next change makes ``version + 1``).
    version: int = 0
    #: The token hashes of the players the host removed (kick): not seated here again
    #: unless the host hands them a seat.
    removed: frozenset[str] = frozenset()
    #: The match being played (or the last one), its next round dealt during a pause.
    match: Match | None = None
    #: The end-of-round pause on (roundend.py).
    round_end: RoundEnd | None = None
    #: The claim window open (windows.py), and who the last one closed had asked.
    window: Window | None = None
    closed_offers: frozenset[int] = frozenset()
    #: Pending seat handoffs by seat (handoff.py).
    handoffs: Mapping[int, Handoff] = field(default_factory=dict)

    @property
    def players(self) -> int:
        return self.options.rules.players


@dataclass(frozen=True, slots=True)
class Step:
    """A step's outcome: the next state, the public events it sends (none: it makes no
    version), and what is written (storage's ``Change``)."""

    state: TableState
    events: tuple[dict[str, Any], ...] = ()
    #: Seats whose stored occupant changed.
    seats: tuple[StoredSeat, ...] = ()
    #: The table's seldom-changing columns changed (host, settings, removed, paused, the
    #: end-of-round pause).
    row: bool = False
    extra: ChangeExtra | None = None
    seat_changes: SeatChanges | None = None
    #: Seats with a new occupant (or none): what the table remembered of the old one goes
    #: (chat limits, answered move ids).
    renewed: tuple[int, ...] = ()
    #: The decisions offered changed (a round started): their versions are the new one's.
    new_prompts: bool = False
    #: A match begins (matches.py).
    new_match: NewMatch | None = None
    #: Decisions taken, their index in the match (play.py), and the match's end.
    moves: tuple[str, ...] = ()
    first_move_index: int = 0
    match_over: bool = False
    #: The table's row (status, version) is written too; a move within a round leaves it.
    table_row: bool = True


_STATE_VALUES = operator.attrgetter(*TableState.__slots__)  # (all fields in one C call)
_STATE_INDEX = {name: i for i, name in enumerate(TableState.__slots__)}


def evolve(state: TableState, **changes: Any) -> TableState:
    """``dataclasses.replace(state, **changes)`` for the two copies every decision makes
    (the state a step starts from, the state it ends in): ``replace`` builds the copy
    through ``__init__`` field by field, 10 us a call, 5% of a bot table's CPU a decision
    (cProfile of a match in-process); this sets the slots directly, in about 2."""
    values = list(_STATE_VALUES(state))
    try:
        for name, value in changes.items():
            values[_STATE_INDEX[name]] = value
    except KeyError as error:
        raise TypeError(f"TableState has no field {error.args[0]!r}") from None
    copy = object.__new__(TableState)
    setter = object.__setattr__
    for name, value in zip(TableState.__slots__, values, strict=True):
        setter(copy, name, value)
    return copy


def check_host(state: TableState, actor: int | None) -> None:
    if actor is None or actor != state.host_seat:
        raise TableError(ErrorCode.NOT_HOST, "only the host may do that")


def check_not_event_table(options: TableOptions, what: str) -> None:
    """A club event's table is the event's to seat, to start and to follow: its host
    removes or moves nobody (or they could take an opponent's place in the event away),
    starts it early for nobody, and it is not played again (the event makes the next
    round's tables). ``what`` says which, in the refusal. (A table stored before the
    ``event`` flag is known by its rules' ``goal``, shorter than a match.)"""
    if options.event or options.rules.goal != "match":
        raise TableError(ErrorCode.WRONG_STATUS, f"an event's table: {what}")


def with_seats(state: TableState, *changed: SeatState) -> TableState:
    """``state`` with ``changed`` in their seats."""
    seats = list(state.seats)
    for seat in changed:
        seats[seat.seat] = seat
    return replace(state, seats=tuple(seats))
