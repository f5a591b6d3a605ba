"""A decision at the table as pure functions of the table's state: what it may be, what it
does to the match, what everyone is told and what is written.

No clock, socket or database: :class:`~.table.Table` calls these with its state (a frozen
:class:`~.state.TableState`, the time included) and stores, versions, sends and arms timers with
what they return (tests/server/test_play.py drives them alone). :func:`advance` is the step
from one state to the next once a move (or a closed claim window's moves) is known.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ...engine import IllegalMove, Match, canonical
from ..errors import ErrorCode, TableError
from ..storage import ChangeExtra, StoredClaim
from .events import move_event, progress_events, round_ended
from .model import Prompt, RoundEnd, Status
from .records import match_record
from .roundend import pause_after
from .state import Step, TableState, evolve, with_seats
from .windows import Claimable, Window, next_window, refuse_unoffered, resolve, window_event

#: The longest move text (the longest legal move is far shorter).
MOVE_CHARS = 200


def check_decision(
    status: Status,
    paused: bool,
    move: object,
    v: object,
    version: int,
    offered_at: int,
    offered: bool,
) -> str:
    """``move`` if a seat may take it now, the decision having been offered to it at version
    ``offered_at`` (``offered``: one is pending for the seat); the refusal otherwise."""
    if status != "playing":
        raise TableError(ErrorCode.WRONG_STATUS, f"no match is being played ({status})")
    if paused:
        raise TableError(ErrorCode.PAUSED, "the host has paused the table")
    if not isinstance(move, str) or not move:
        raise TableError(ErrorCode.BAD_MESSAGE, "move must be non-empty text")
    if len(move) > MOVE_CHARS:
        too_long = f"a move has at most {MOVE_CHARS} characters, not {len(move)}"
        raise TableError(ErrorCode.BAD_MESSAGE, too_long)
    if not offered:
        return move  # (the caller refuses it: whose turn it is, it knows)
    if isinstance(v, bool) or not isinstance(v, int):
        raise TableError(ErrorCode.BAD_MESSAGE, "v must be an integer version")
    if v > version or v < offered_at:
        raise TableError(
            ErrorCode.STALE_VERSION,
            f"v {v} does not match the decision offered at v {offered_at} (table at v {version})",
        )
    return move


def chosen_answer(move: str, legal: list[str]) -> str:
    """A claim window's answer as the table records it (``legal``: the seat's choices)."""
    if move in legal:
        return move
    try:
        chosen = canonical(move)
    except IllegalMove as error:
        raise TableError(ErrorCode.ILLEGAL_MOVE, str(error)) from None
    if chosen not in legal:
        raise TableError(ErrorCode.ILLEGAL_MOVE, f"{move!r}: the choice is {' or '.join(legal)}")
    return chosen


@dataclass(frozen=True, slots=True)
class Played:
    """What one move did: the match after it, the move as recorded, its public events, whether
    it ended the round, and what a claim window may now be opened for."""

    after: Match
    chosen: str
    events: list[dict[str, Any]]
    ended: bool
    claimable: Claimable | None


def play(before: Match, seat: int, prompt: Prompt, move: str, match_number: int) -> Played:
    """``seat``'s ``move`` for its turn ``prompt`` on ``before`` (a claim window's answers
    are :func:`chosen_answer`'s)."""
    decision, legal = prompt
    try:
        after = before.apply(move)
    except IllegalMove as error:
        raise TableError(ErrorCode.ILLEGAL_MOVE, str(error)) from None
    chosen = move if move in legal else canonical(move)
    ended = round_ended(before, after)
    events = [move_event(before.round, decision, seat, chosen)]
    events.extend(progress_events(before, after, match_number, ended))
    claimable: Claimable | None = None
    if decision == "play" and len(chosen) == 1 and chosen not in "BR" and not ended:
        claimable = ("hook", chosen, seat, False)
    return Played(after, chosen, events, ended, claimable)


def written_with(
    after: Match,
    match_number: int,
    move_count: int,
    claims_kept: bool,
    analysed: bool,
) -> ChangeExtra | None:
    """What a change that brings the match to ``after`` writes besides its moves: the match's
    result once it is over, the end of a claim window whose answers were written
    (``claims_kept``), and a round analysis due (``analysed``: the moves ended a round and
    the server analyses rounds). ``move_count``: the decisions of the match after them."""
    result = None
    if after.is_over:
        assert after.winning_team is not None
        result = (after.winning_team, len(after.results))
    claims_done = (match_number, move_count) if claims_kept else None
    analysis = (match_number, len(after.results)) if analysed else None
    if result is None and claims_done is None and analysis is None:
        return None
    return ChangeExtra(result=result, claims_done=claims_done, analysis=analysis)


@dataclass(frozen=True, slots=True)
class Written:
    """What a step writes besides its events (storage's ``Change``)."""

    moves: tuple[str, ...]
    first_move_index: int
    match_over: bool
    #: The table's row changes (a match over, a pause begun), and its seldom-changing
    #: columns too (``row``: a pause begun).
    table_row: bool
    row: bool
    extra: ChangeExtra | None


@dataclass(frozen=True, slots=True)
class Advanced:
    """The outcome of :func:`advance`: the next state, the match, what everyone is told,
    the claim window or end-of-round pause now open, and what is written."""

    state: TableState
    match: Match
    events: list[dict[str, Any]]
    window: Window | None
    pause: RoundEnd | None
    written: Written
    #: The moves ended a round the server analyses (it is due from this change).
    analysed: bool

    def step(self) -> Step:
        """The step the table takes (the match, window and pause are the table's to keep)."""
        written = self.written
        return Step(
            self.state,
            tuple(self.events),
            row=written.row,
            extra=written.extra,
            new_prompts=True,
            moves=written.moves,
            first_move_index=written.first_move_index,
            match_over=written.match_over,
            table_row=written.table_row,
        )


def advance(
    state: TableState,
    before: Match,
    after: Match,
    moves: list[str],
    events: list[dict[str, Any]],
    claimable: Claimable | None,
    ended: bool,
    claims_kept: bool = False,
) -> Advanced:
    """The table after ``moves`` brought its match from ``before`` to ``after`` (``events``
    their public events so far; ``ended``: they ended a round; ``claimable``: what a claim
    window may be opened for; ``claims_kept``: the window they close had answers written):
    the end-of-round pause or the next claim window, the match's end, and what is written."""
    events = list(events)
    over = after.is_over
    first = state.move_count
    move_count = first + len(moves)
    pause = None
    if ended and not over:
        now = None if state.paused else state.now
        seconds = state.settings.round_pause_seconds
        pause = pause_after(before, moves, after, seconds, state.bots_only, state.trick_start, now)
        if pause is not None:  # the next round's start waits for the pause's end
            start = events.pop()
            assert start["type"] == "round_start", start
    r = after.round
    trick_start = r.log_size if r.top is None else state.trick_start
    options = state.options
    window = next_window(after, claimable, options.rules.hooking, options.hook_mode == "fast",
                         options.hook_seconds, state.now)  # fmt: skip
    opened = window_event(window)
    if opened is not None:
        events.append(opened)
    status: Status = "finished" if over else state.status
    if over:
        events.append({"type": "status", "status": status, "match_number": state.match_number})
    analysed = ended and state.analysing
    extra = written_with(after, state.match_number, move_count, claims_kept, analysed)
    if over:  # the players' record of it, written with its result (records.py)
        record = match_record(
            state.code, state.match_number, state.options, state.seats, after, state.now
        )
        if record is not None:
            extra = replace(extra or ChangeExtra(), record=record)
    pausing = pause is not None
    return Advanced(
        evolve(
            state,
            move_count=move_count,
            status=status,
            trick_start=trick_start,
            match=after,
            round_end=pause,
            window=window,
        ),
        after,
        events,
        window,
        pause,
        Written(tuple(moves), first, over, over or pausing, pausing, extra),
        analysed,
    )


@dataclass(frozen=True, slots=True)
class Decided:
    """What a seat's decision did: the step the table takes, the move as recorded (an
    answer to a claim window: ``claim``), and the match's advance, if it made one."""

    step: Step
    chosen: str
    claim: bool = False
    advanced: Advanced | None = None


def decide(state: TableState, seat: int, move: str, prompt: Prompt, by_bot: bool) -> Decided:
    """``seat``'s ``move`` for its pending decision ``prompt`` (``by_bot``: the table's bot
    decided it): an answer to the open claim window, which a decided fast window closes,
    or a move the match advances by."""
    _, legal = prompt
    window = state.window
    if window is not None:
        chosen = chosen_answer(move, legal)
        after, events = _back(state, seat, by_bot)
        answered = window.answered(seat, chosen)
        if state.options.hook_mode == "fast" and answered.decided():
            advanced = close_window(replace(after, window=answered), events)
            return Decided(advanced.step(), chosen, True, advanced)
        if by_bot:
            return Decided(Step(replace(after, window=answered), tuple(events)), chosen, True)
        # A player's answer is acknowledged before the window closes: it is written now, so
        # that a restart (or another process taking the table over) keeps it.
        claim = StoredClaim(state.match_number, state.move_count, seat, chosen)
        kept = replace(after, window=window.answered(seat, chosen, kept=True))
        return Decided(Step(kept, tuple(events), extra=ChangeExtra(claims=(claim,))), chosen, True)
    before = state.match
    assert before is not None
    played = play(before, seat, prompt, move, state.match_number)
    after, events = _back(state, seat, by_bot)
    events.extend(played.events)
    advanced = advance(after, before, played.after, [played.chosen], events, played.claimable,
                       played.ended)  # fmt: skip
    return Decided(advanced.step(), played.chosen, advanced=advanced)


def close_window(state: TableState, events: Sequence[dict[str, Any]] = ()) -> Advanced:
    """The open window closes (its time ran out, or a fast one is decided): its answers are
    fed to the engine by nearness (:func:`.windows.resolve`) and the match advances."""
    window, before = state.window, state.match
    assert window is not None and before is not None
    closed = resolve(window, before, state.match_number)
    after = replace(state, window=None, closed_offers=frozenset(window.offers))
    ended = round_ended(before, closed.after)
    return advance(after, before, closed.after, closed.moves, [*events, *closed.events],
                   closed.claimable, ended, claims_kept=window.kept)  # fmt: skip


def check_offered(state: TableState, seat: int, offered: bool) -> None:
    """Refuse a decision from a seat with none pending (``offered`` False)."""
    if offered:
        return
    refuse_unoffered(state.window, state.closed_offers, seat)
    raise TableError(ErrorCode.NOT_YOUR_TURN, f"seat {seat} has no decision to take")


def _back(state: TableState, seat: int, by_bot: bool) -> tuple[TableState, list[dict[str, Any]]]:
    """An away player who decides is back (told with the decision's events)."""
    occupant = state.seats[seat]
    if by_bot or not occupant.away:
        return state, []
    back = occupant.with_away(False)
    return with_seats(state, back), [{"type": "seat", **back.public()}]
