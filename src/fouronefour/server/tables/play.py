"""A decision at the table as pure functions of the table's state: what it may be, what it
does to the match, what everyone is told and what is written.

No clock, socket or database: :class:`~.table.Table` calls these with its state and stores,
versions, sends and arms timers with what they return (tests/server/test_play.py drives
them alone).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...engine import IllegalMove, Match, canonical
from ..errors import ErrorCode, TableError
from ..storage import ChangeExtra
from .events import move_event, progress_events, round_ended
from .model import Prompt, Status
from .windows import Claimable

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
