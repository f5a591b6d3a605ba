"""The end-of-round pause: between two rounds the table shows how the round ended (the
last trick, every hand still holding cards face up, the result and the tribute to come)
until every player has said ``ready`` or the table's pause has run out
(docs/protocol.md section 5; docs/rules.md section 9: once a round is over its hands are
public).

The engine deals the next round as soon as one ends; the table holds it back: nobody is
offered a decision and no timer runs until the pause ends, then the next round's
``round_start`` goes out as if it had just been dealt.

The pause is a frozen :class:`~.model.RoundEnd` in the table's state: :func:`.play.advance`
begins it, :func:`ready` and :func:`end` are the pure steps that end it
(tests/server/test_round_end_steps.py); :class:`RoundPause` keeps its timer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ...engine import Match, Round, Rules
from ..clock import TimerHandle
from ..errors import ErrorCode, TableError
from .events import round_start_event
from .model import Ack, RoundEnd, SeatState
from .state import Step, TableState

if TYPE_CHECKING:
    from .core import TableCore as Table

#: The events of a trick, as the engine logs them.
_TRICK_EVENTS = frozenset({"play", "pass", "hook", "unhook"})


def ended_round(before: Round, moves: Iterable[str]) -> Round:
    """The round ``before`` after ``moves``, the last of which ended it (the engine's match
    has moved on to the next round by then)."""
    r = before
    for move in moves:
        r = r.apply(move)
    return r


def last_trick(r: Round, trick_start: int) -> list[dict[str, Any]]:
    return [event for event in r.log_since(trick_start) if event["type"] in _TRICK_EVENTS]


@dataclass(slots=True)
class Replayed:
    """A match rebuilt from its moves, with what the end-of-round pause needs to know."""

    match: Match
    #: Where the current round's current trick begins in its log.
    trick_start: int
    #: The last round that ended, as it ended, and where its last trick began.
    ended: Round | None = None
    ended_trick_start: int = 0


def replay(rules: Rules, seed: int, moves: Iterable[str]) -> Replayed:
    """:meth:`Match.replay`, keeping where each trick begins and the last round's end."""
    match = Match(rules, seed)
    state = Replayed(match, match.round.log_size)
    for move in moves:
        before = match
        match = match.apply(move)
        if match.is_over or match.round_number != before.round_number:
            state.ended = before.round.apply(move)
            state.ended_trick_start = state.trick_start
            state.trick_start = match.round.log_size
        elif match.round.top is None:
            state.trick_start = match.round.log_size
    state.match = match
    return state


def pause_after(
    before: Match,
    moves: list[str],
    after: Match,
    seconds: float,
    bots_only: bool,
    trick_start: int,
    now: float | None,
) -> RoundEnd | None:
    """The end-of-round pause due after ``moves`` ended a round of ``before`` (``after`` goes
    on), if any: none of ``seconds`` <= 0 or at a table of bots only (``bots_only``: every
    seat bot-controlled). It lasts ``seconds`` from ``now`` (None: the table is paused, the
    pause waits). ``trick_start``: where the round's last trick began in its log. (The
    next round's ``round_start`` is held back until the pause ends.)"""
    if seconds <= 0 or bots_only:
        return None
    ended = ended_round(before.round, moves)
    return RoundEnd(
        round_number=len(after.results),
        ended=ended,
        result={"round_number": len(after.results), **after.results[-1].to_dict()},
        last_trick=last_trick(ended, trick_start),
        tributes=[{"from": t["from"], "to": t["to"]} for t in after.round.tributes],
        until=None if now is None else now + seconds,
    )


def counted_ready(pause: RoundEnd, seats: Sequence[SeatState]) -> list[int]:
    """The seats ready for the next round: their players said so, or a bot plays them."""
    return [seat.seat for seat in seats if seat.seat in pause.ready or seat.bot_controlled]


def ready(state: TableState, seat: int) -> Step:
    """``seat``'s player is ready for the next round; the last one ready ends the pause."""
    pause = state.round_end
    if pause is None or state.status != "playing":
        raise TableError(ErrorCode.WRONG_STATUS, "there is no end-of-round pause to end")
    if state.paused:
        raise TableError(ErrorCode.PAUSED, "the host has paused the table")
    if seat in counted_ready(pause, state.seats):
        return Step(state)  # nothing changes
    pause = pause.with_ready(seat)
    after = replace(state, round_end=pause)
    said = {"type": "ready", "seat": seat}
    if len(counted_ready(pause, state.seats)) == state.players:
        return end(after, said)
    return Step(after, (said,))


def end(state: TableState, *events: dict[str, Any]) -> Step:
    """The pause ends (everyone ready, or its time ran out): the next round's
    ``round_start``, and everybody's new hand and prompt."""
    assert state.round_end is not None and state.match is not None
    start = round_start_event(state.match)
    return Step(replace(state, round_end=None), (*events, start), row=True, new_prompts=True)


def restored(replayed: Replayed, round_number: int) -> RoundEnd | None:
    """After a restart: the pause of round ``round_number`` (as written; 0: none) held
    again (from full length once resumed), with only bots and away seats ready."""
    match = replayed.match
    if (
        round_number <= 0
        or replayed.ended is None
        or match.is_over
        or round_number != len(match.results)
    ):
        return None
    ended = replayed.ended
    return RoundEnd(
        round_number=round_number,
        ended=ended,
        result={"round_number": round_number, **match.results[-1].to_dict()},
        last_trick=last_trick(ended, replayed.ended_trick_start),
        tributes=[{"from": t["from"], "to": t["to"]} for t in match.round.tributes],
        until=None,
    )


class RoundPause:
    """The end-of-round pause of one table (``current`` while it lasts) and its timer; the
    table hands it each pause its state holds (:meth:`keep`)."""

    __slots__ = ("_armed", "_handle", "_table", "current")

    def __init__(self, table: Table) -> None:
        self._table = table
        self.current: RoundEnd | None = None
        self._handle: TimerHandle | None = None
        #: The pause the timer was armed for: (round number, end).
        self._armed: tuple[int, float] | None = None

    def public(self) -> dict[str, Any] | None:
        current = self.current
        if current is None:
            return None
        return current.public(counted_ready(current, self._table.seats))

    def keep(self, pause: RoundEnd | None) -> None:
        """``pause`` is on now (None: none); a timer for another end than its stops."""
        self.current = pause
        if self._handle is not None and self._armed != _due_key(pause):
            self._handle.cancel()
            self._handle = None
            self._armed = None

    def ready(self, seat: int) -> Ack:
        """``seat``'s player is ready for the next round."""
        return self._table.carry_out(lambda state: ready(state, seat))

    def arm(self) -> None:
        key = _due_key(self.current)
        if key is None or self._handle is not None:
            return
        scheduler = self._table.scheduler
        self._armed = key
        self._handle = scheduler.call_later(key[1] - scheduler.now(), lambda: self._due(key))

    def _due(self, key: tuple[int, float]) -> None:
        table = self._table
        if _due_key(self.current) != key or table.paused:
            return  # ended, or held and run again since
        if not table.postponed(lambda: self._due(key)):
            table.take(end(table.state()))


def _due_key(pause: RoundEnd | None) -> tuple[int, float] | None:
    """What a pause's timer is armed for: its round and end (None: it waits, or none)."""
    if pause is None or pause.until is None:
        return None
    return pause.round_number, pause.until
