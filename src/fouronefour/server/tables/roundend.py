"""The end-of-round pause: between two rounds the table shows how the round ended (the
last trick, every hand still holding cards face up, the result and the tribute to come)
until every player has said ``ready`` or the table's pause has run out
(docs/protocol.md section 5; docs/rules.md section 9: once a round is over its hands are
public).

The engine deals the next round as soon as one ends; the table holds it back: nobody is
offered a decision and no timer runs until the pause ends, then the next round's
``round_start`` goes out as if it had just been dealt.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...engine import Match, Round, Rules
from ..errors import ErrorCode, TableError
from .events import round_start_event
from .model import Ack, RoundEnd

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


class RoundPause:
    """The end-of-round pause of one table (``current`` while it lasts)."""

    __slots__ = ("_table", "current", "trick_start")

    def __init__(self, table: Table) -> None:
        self._table = table
        self.current: RoundEnd | None = None
        #: Where the current trick begins in the current round's log (for the last trick).
        self.trick_start = 0

    # -- entering (a pause begins: :func:`pause_after`, then :meth:`hold_round`)

    def restore(self, replayed: Replayed, round_number: int) -> None:
        """After a restart: hold the pause again (from full length once resumed), with only
        bots and away seats ready."""
        self.trick_start = replayed.trick_start
        match = replayed.match
        if (
            round_number <= 0
            or replayed.ended is None
            or match.is_over
            or round_number != len(match.results)
        ):
            return
        ended = replayed.ended
        self.current = RoundEnd(
            round_number=round_number,
            ended=ended,
            result={"round_number": round_number, **match.results[-1].to_dict()},
            last_trick=last_trick(ended, replayed.ended_trick_start),
            tributes=[{"from": t["from"], "to": t["to"]} for t in match.round.tributes],
            until=None,
        )

    # -- during

    def counted_ready(self) -> list[int]:
        current = self.current
        assert current is not None
        table = self._table
        return [s for s in range(table.players) if s in current.ready or table.bot_controlled(s)]

    def public(self) -> dict[str, Any] | None:
        current = self.current
        return None if current is None else current.public(self.counted_ready())

    def ready(self, seat: int) -> Ack:
        """``seat``'s player is ready for the next round."""
        table = self._table
        table.check_writable()
        current = self.current
        if current is None or table.status != "playing":
            raise TableError(ErrorCode.WRONG_STATUS, "there is no end-of-round pause to end")
        if table.paused:
            raise TableError(ErrorCode.PAUSED, "the host has paused the table")
        if seat in self.counted_ready():
            return Ack(table.version)  # nothing changes
        current.ready.add(seat)
        events: list[dict[str, Any]] = [{"type": "ready", "seat": seat}]
        if len(self.counted_ready()) == table.players:
            self.end(events)
        else:
            table.commit(events)
        return Ack(table.version)

    def hold_round(self, pause: RoundEnd) -> None:
        """``pause`` begins (:func:`pause_after`'s)."""
        self.current = pause

    def trick_begins(self, at: int) -> None:
        """The current trick begins at ``at`` in the round's log."""
        self.trick_start = at

    def unready(self, seat: int) -> None:
        """``seat`` has a new player, who has not read the results yet."""
        if self.current is not None:
            self.current.ready.discard(seat)

    def hold(self) -> None:
        """The host paused the table: the pause's timer stops."""
        current = self.current
        if current is not None:
            if current.handle is not None:
                current.handle.cancel()
                current.handle = None
            current.until = None

    def release(self) -> None:
        """The host resumed: the pause runs again from full length."""
        current = self.current
        if current is not None and current.until is None:
            table = self._table
            current.until = table.scheduler.now() + table.settings.round_pause_seconds

    def arm(self) -> None:
        current = self.current
        if current is None or current.handle is not None or current.until is None:
            return
        scheduler = self._table.scheduler
        current.handle = scheduler.call_later(
            current.until - scheduler.now(), lambda: self._due(current)
        )

    def _due(self, pause: RoundEnd) -> None:
        table = self._table
        if self.current is not pause or table.paused:
            return
        if table.postponed(lambda: self._due(pause)):
            return
        self.end([])

    # -- leaving

    def end(self, events: list[dict[str, Any]]) -> None:
        """Start the next round: its ``round_start``, and everybody's new hand and prompt."""
        table = self._table
        current = self.current
        assert current is not None and table.match is not None
        if current.handle is not None:
            current.handle.cancel()
        self.current = None
        events.append(round_start_event(table.match))
        table.commit(events, new_prompts=True, row=True)
