"""Who sits where: taking a seat, bots for the empty ones, players' connections coming and
going, coming back after being away, the host removing a player or moving players between
seats, and a seat handed to a new device (docs/protocol.md sections 2, 3, 5 and 8).

Each change is a pure step from a :class:`~.state.TableState` to a :class:`~.state.Step`
(tests/server/test_seating_steps.py drives them alone); :class:`Seating` is what the table
exposes: it makes the tokens, reads the table's state and has the table take the step.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Set as AbstractSet
from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import ErrorCode, TableError
from ..storage import ChangeExtra, StoredHandoff
from .model import Ack, SeatChanges, SeatState, check_name, hash_token
from .state import Step, TableState, check_host, check_not_event_table, with_seats

if TYPE_CHECKING:
    from .core import TableCore as Table


def check_seat(seat: object, players: int, field: str = "seat") -> int:
    """``seat`` as a seat number: a missing or wrong-typed field is ``bad_message``, a number
    that is no seat here ``bad_seat``."""
    if seat is None:
        raise TableError(ErrorCode.BAD_MESSAGE, f"{field} is missing: a seat number")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise TableError(ErrorCode.BAD_MESSAGE, f"{field} must be a seat number (an integer)")
    if not 0 <= seat < players:
        raise TableError(ErrorCode.BAD_SEAT, f"no seat {seat} at this table (0 to {players - 1})")
    return seat


def was_removed(removed: AbstractSet[str], token: object) -> bool:
    """Whether ``token`` is a player's the host removed (``removed``: their tokens' hashes)."""
    if not isinstance(token, str) or not token or len(token) > 200:
        return False
    digest = hash_token(token)
    return any(hmac.compare_digest(digest, gone) for gone in removed)


def refuse_removed(state: TableState, token: object, profile: str | None = None) -> None:
    """``kicked`` for a player the host removed from the table (known by their token, or,
    signed in, by their ``profile``)."""
    by_profile = profile is not None and removed_profile(profile) in state.removed
    if by_profile or (token is not None and was_removed(state.removed, token)):
        raise TableError(
            ErrorCode.KICKED,
            "the host removed you from this table: only a seat handoff from the host seats "
            "you here again",
        )


def removed_profile(profile: str) -> str:
    """How a removed player's profile is kept among the removed tokens' hashes: a signed-in
    player is known by it too, so that a new token (a plain join) does not seat them again."""
    return f"profile:{profile}"


def _between_matches(state: TableState, what: str) -> None:
    if state.status == "playing":
        raise TableError(ErrorCode.WRONG_STATUS, what)


def _seat_event(seat: SeatState) -> dict[str, object]:
    return {"type": "seat", **seat.public()}


def _void_handoffs(state: TableState, *seats: int) -> tuple[TableState, ChangeExtra]:
    """``state`` without the pending handoffs of ``seats``, and what to write for it."""
    voided = tuple(StoredHandoff(seat, None) for seat in seats if seat in state.handoffs)
    kept = {seat: h for seat, h in state.handoffs.items() if seat not in seats}
    return replace(state, handoffs=kept), ChangeExtra(handoffs=voided)


def join(
    state: TableState, name: object, seat: object, token: object, token_hash: str,
    profile: str | None,
) -> Step:  # fmt: skip
    """A player takes a free (or bot) seat before a match or between matches, with the new
    token of ``token_hash``. ``token``: the one they had here, if any (a removed player's
    is refused, ``kicked``); ``profile``: theirs, if signed in."""
    refuse_removed(state, token, profile)
    clean = check_name(name)
    _between_matches(state, "seats are taken before a match starts or between matches")
    old = state.seats[check_seat(seat, state.players)]
    if old.kind == "human":
        raise TableError(ErrorCode.SEAT_TAKEN, f"seat {old.seat} is taken by {old.name}")
    new = old.with_player(clean, "human", token_hash, profile)
    return Step(with_seats(state, new), (_seat_event(new),), seats=(new.stored(),))


def fill_bots(state: TableState, actor: int | None) -> Step:
    """The host seats a bot in every empty seat between matches."""
    check_host(state, actor)
    _between_matches(state, "bots fill seats between matches only")
    bots = tuple(s.with_bot() for s in state.seats if s.kind == "empty")
    return Step(
        with_seats(state, *bots),
        tuple(_seat_event(s) for s in bots),
        seats=tuple(s.stored() for s in bots),
    )


def connected(state: TableState, seat: int) -> Step:
    """A player's connection arrived (a reconnect also ends being away); an event only if
    the others see a change."""
    new, changed = state.seats[seat].connected()
    return Step(with_seats(state, new), (_seat_event(new),) if changed else ())


def disconnected(state: TableState, seat: int) -> Step:
    """A player's connection left; an event only if the seat is now offline."""
    new, offline = state.seats[seat].disconnected()
    return Step(with_seats(state, new), (_seat_event(new),) if offline else ())


def away(state: TableState, seat: int) -> Step:
    """``seat``'s player is away: the table's bot plays for them until they are back (their
    turn ran out, or they were not there when their match began)."""
    new = state.seats[seat].with_away(True)
    return Step(with_seats(state, new), (_seat_event(new),))


def back(state: TableState, seat: int) -> Step:
    """An away player says they are back."""
    old = state.seats[seat]
    if not old.away:
        raise TableError(ErrorCode.NOT_AWAY, "the seat is not away")
    new = old.with_away(False)
    return Step(with_seats(state, new), (_seat_event(new),))


def kick(state: TableState, actor: int | None, seat: object) -> Step:
    """The host removes a player (or a bot) between matches: the seat is empty again and
    its token stops working (not seated here again unless the host hands them a seat);
    its connections are told and closed."""
    check_host(state, actor)
    check_not_event_table(state.options, "the event seats its players")
    _between_matches(state, "players are removed between matches only")
    old = state.seats[check_seat(seat, state.players)]
    if old.seat == state.host_seat or old.kind == "empty":
        raise TableError(ErrorCode.BAD_SEAT, f"seat {old.seat} is the host's or empty")
    removed = state.removed
    if old.token_hash is not None:  # (a player: known by the token they had)
        removed = removed | {old.token_hash}
    if old.profile is not None:  # (and, signed in, by their profile)
        removed = removed | {removed_profile(old.profile)}
    new = old.emptied()
    after, voided = _void_handoffs(replace(with_seats(state, new), removed=removed), old.seat)
    return Step(
        after,
        (_seat_event(new),),
        seats=(new.stored(),),
        row=True,
        extra=voided,
        seat_changes=SeatChanges(revoked={old.seat: ErrorCode.KICKED}),
        renewed=(old.seat,),
    )


def move_seat(state: TableState, actor: int | None, first: object, second: object) -> Step:
    """The host swaps two seats' occupants between matches (either may be empty); each
    keeps their token and connections, which now act for the other seat; the host's seat
    follows the host."""
    check_host(state, actor)
    check_not_event_table(state.options, "the event seats its players")
    _between_matches(state, "seats are moved between matches only")
    a = state.seats[check_seat(first, state.players, "from")]
    b = state.seats[check_seat(second, state.players, "to")]
    if a is b:
        raise TableError(ErrorCode.BAD_SEAT, "move a player to another seat")
    if a.kind == b.kind == "empty":
        raise TableError(ErrorCode.BAD_SEAT, f"seats {a.seat} and {b.seat} are both empty")
    new_a, new_b = b.moved_to(a.seat), a.moved_to(b.seat)
    host = {a.seat: b.seat, b.seat: a.seat}.get(state.host_seat, state.host_seat)
    after, voided = _void_handoffs(
        replace(with_seats(state, new_a, new_b), host_seat=host), a.seat, b.seat
    )
    return Step(
        after,
        (
            {"type": "seats_swapped", "seats": [a.seat, b.seat], "host_seat": host},
            _seat_event(new_a),
            _seat_event(new_b),
        ),
        seats=(new_a.stored(), new_b.stored()),
        row=True,
        extra=voided,
        seat_changes=SeatChanges(swapped=(a.seat, b.seat)),
        renewed=(a.seat, b.seat),
    )


def hand_over(
    state: TableState, seat: int, name: str, token_hash: str, let_back: str | None = None,
    profile: str | None = None,
) -> Step:  # fmt: skip
    """``seat`` becomes a claimant's (a handoff) with the new token of ``token_hash``; the
    old token's connections are told and closed. A human seat keeps its cards and pending
    decision. ``let_back``: the token hash of a removed player the host handed the seat
    to; ``profile``: the claimant's, if signed in."""
    new = state.seats[seat].handed_to(name, token_hash, profile)
    after = with_seats(state, new)
    if state.round_end is not None:  # the newcomer has not read the results yet
        after = replace(after, round_end=state.round_end.unready(seat))
    if let_back is not None:
        let_in = {let_back} | (set() if profile is None else {removed_profile(profile)})
        after = replace(after, removed=after.removed - let_in)
    after, voided = _void_handoffs(after, seat)
    return Step(
        after,
        (_seat_event(new),),
        seats=(new.stored(),),
        row=let_back is not None,
        extra=voided,
        seat_changes=SeatChanges(revoked={seat: ErrorCode.BAD_TOKEN}),
        renewed=(seat,),
    )


def profile_seat(state: TableState, profile: str) -> SeatState:
    """The seat ``profile`` holds at this table (a signed-in player on a new device)."""
    mine = [s for s in state.seats if s.kind == "human" and s.profile == profile]
    if not mine:
        raise TableError(ErrorCode.BAD_SEAT, "your profile holds no seat at this table")
    return mine[0]


def new_token() -> tuple[str, str]:
    """A new seat token and its hash (only the hash is kept)."""
    token = secrets.token_urlsafe(24)
    return token, hash_token(token)


class Seating:
    """The seats of one table as the table exposes them: each request a step it takes."""

    __slots__ = ("_table",)

    def __init__(self, table: Table) -> None:
        self._table = table

    def join(
        self, name: object, seat: object, token: object = None, profile: str | None = None
    ) -> str:
        """Take a free (or bot) seat before a match or between matches; returns its token."""
        table = self._table
        table.check_writable()
        new, new_hash = new_token()
        table.take(join(table.state(), name, seat, token, new_hash, profile))
        return new

    def fill_bots(self, actor: int | None) -> Ack:
        return self._table.carry_out(lambda state: fill_bots(state, actor))

    def connect(self, seat: int) -> None:
        """A player's connection arrived (a reconnect also ends being away)."""
        table = self._table
        # (presence is not worth refusing a connection for)
        table.take(connected(table.state(), seat), send=not table.storage_failed)

    def disconnect(self, seat: int) -> None:
        table = self._table
        table.take(disconnected(table.state(), seat), send=not table.storage_failed)

    def away(self, seat: int) -> None:
        """``seat``'s player is away (not there when their match began, say)."""
        self._table.take(away(self._table.state(), seat))

    def back(self, seat: int) -> Ack:
        return self._table.carry_out(lambda state: back(state, seat))

    def kick(self, actor: int | None, seat: object) -> Ack:
        return self._table.carry_out(lambda state: kick(state, actor, seat))

    def move_seat(self, actor: int | None, first: object, second: object) -> Ack:
        return self._table.carry_out(lambda state: move_seat(state, actor, first, second))

    def hand_over(
        self, seat: int, name: str, let_back: str | None = None, profile: str | None = None
    ) -> str:
        """``seat`` becomes the claimant's (a handoff); returns its new token."""
        table = self._table
        new, new_hash = new_token()
        table.take(hand_over(table.state(), seat, name, new_hash, let_back, profile))
        return new

    def come_back(self, profile: str) -> tuple[int, str]:
        """A signed-in player on a new device takes back the seat their profile holds here,
        as a handoff to themselves would: a new token; the other device's connections are
        told (``bad_token``) and closed. Returns the seat and its token."""
        table = self._table
        table.check_writable()
        seat = profile_seat(table.state(), profile)
        assert seat.name is not None
        return seat.seat, self.hand_over(seat.seat, seat.name, None, profile)
