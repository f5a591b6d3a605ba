"""Who sits where: taking a seat, bots for the empty ones, players' connections coming and
going, coming back after being away, the host removing a player or moving players between
seats, and a seat handed to a new device (docs/protocol.md sections 2, 3, 5 and 8)."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from ..errors import ErrorCode, TableError
from ..storage import ChangeExtra
from .model import Ack, SeatChanges, check_name, hash_token

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


def refuse_removed(table: Table, token: object) -> None:
    """``kicked`` for a player the host removed from ``table`` (known by their token)."""
    if token is not None and table.was_removed(token):
        raise TableError(
            ErrorCode.KICKED,
            "the host removed you from this table: only a seat handoff from the host seats "
            "you here again",
        )


class Seating:
    """The seats of one table and the changes to them."""

    __slots__ = ("_table",)

    def __init__(self, table: Table) -> None:
        self._table = table

    def join(
        self, name: object, seat: object, token: object = None, profile: str | None = None
    ) -> str:
        """Take a free (or bot) seat before a match or between matches; returns its token.
        ``token``: the player's token at this table, if they had one (a removed player's is
        refused, ``kicked``); ``profile``: theirs, if signed in."""
        table = self._table
        table.check_writable()
        refuse_removed(table, token)
        clean = check_name(name)
        if table.status == "playing":
            raise TableError(
                ErrorCode.WRONG_STATUS, "seats are taken before a match starts or between matches"
            )
        state = table.seats[check_seat(seat, table.players)]
        if state.kind == "human":
            raise TableError(ErrorCode.SEAT_TAKEN, f"seat {state.seat} is taken by {state.name}")
        token = secrets.token_urlsafe(24)
        state.seat_player(clean, "human", hash_token(token), profile)
        table.commit([{"type": "seat", **state.public()}], seats=(state.stored(),))
        return token

    def fill_bots(self, actor: int | None) -> Ack:
        table = self._table
        table.check_writable()
        table.check_host(actor)
        if table.status == "playing":
            raise TableError(ErrorCode.WRONG_STATUS, "bots fill seats between matches only")
        changed = []
        for state in table.seats:
            if state.kind == "empty":
                state.seat_bot()
                changed.append(state)
        if changed:
            table.commit(
                [{"type": "seat", **s.public()} for s in changed],
                seats=tuple(s.stored() for s in changed),
            )
        return Ack(table.version)

    def connect(self, seat: int) -> None:
        """A player's connection arrived (a reconnect also ends being away)."""
        table = self._table
        state = table.seats[seat]
        # (presence is not worth refusing a connection for)
        if state.connect() and not table.storage_failed:
            table.commit([{"type": "seat", **state.public()}])

    def disconnect(self, seat: int) -> None:
        table = self._table
        state = table.seats[seat]
        if state.disconnect() and not table.storage_failed:
            table.commit([{"type": "seat", **state.public()}])

    def back(self, seat: int) -> Ack:
        table = self._table
        table.check_writable()
        state = table.seats[seat]
        if not state.away:
            raise TableError(ErrorCode.NOT_AWAY, "the seat is not away")
        state.set_away(False)
        table.commit([{"type": "seat", **state.public()}])
        return Ack(table.version)

    def kick(self, actor: int | None, seat: object) -> Ack:
        """The host removes a player (or a bot) between matches: the seat is empty again and
        its token stops working; its connections are told and closed."""
        table = self._table
        table.check_writable()
        table.check_host(actor)
        if table.status == "playing":
            raise TableError(ErrorCode.WRONG_STATUS, "players are removed between matches only")
        state = table.seats[check_seat(seat, table.players)]
        if state.seat == table.host_seat or state.kind == "empty":
            raise TableError(ErrorCode.BAD_SEAT, f"seat {state.seat} is the host's or empty")
        if state.token_hash is not None:  # (a player: known by the token they had)
            table.remove_player(state.token_hash)
        state.empty()
        table.chat.forget_seat(state.seat)
        table.commit(
            [{"type": "seat", **state.public()}],
            seats=(state.stored(),),
            row=True,
            extra=ChangeExtra(handoffs=table.handoffs.void(state.seat)),
            seat_changes=SeatChanges(revoked={state.seat: ErrorCode.KICKED}),
        )
        return Ack(table.version)

    def move_seat(self, actor: int | None, first: object, second: object) -> Ack:
        """The host swaps two seats' occupants between matches (either may be empty); each
        keeps their token and connections, which now act for the other seat."""
        table = self._table
        table.check_writable()
        table.check_host(actor)
        if table.status == "playing":
            raise TableError(ErrorCode.WRONG_STATUS, "seats are moved between matches only")
        a = table.seats[check_seat(first, table.players, "from")]
        b = table.seats[check_seat(second, table.players, "to")]
        if a is b:
            raise TableError(ErrorCode.BAD_SEAT, "move a player to another seat")
        if a.kind == b.kind == "empty":
            raise TableError(ErrorCode.BAD_SEAT, f"seats {a.seat} and {b.seat} are both empty")
        a.swap_with(b)
        if table.host_seat in (a.seat, b.seat):
            table.move_host(b.seat if table.host_seat == a.seat else a.seat)
        table.chat.forget_seat(a.seat)
        table.chat.forget_seat(b.seat)
        table.views.resend(a.seat, b.seat)
        table.commit(
            [
                {"type": "seats_swapped", "seats": [a.seat, b.seat], "host_seat": table.host_seat},
                {"type": "seat", **a.public()},
                {"type": "seat", **b.public()},
            ],
            seats=(a.stored(), b.stored()),
            row=True,
            extra=ChangeExtra(handoffs=table.handoffs.void(a.seat, b.seat)),
            seat_changes=SeatChanges(swapped=(a.seat, b.seat)),
        )
        return Ack(table.version)

    def hand_over(
        self, seat: int, name: str, let_back: str | None = None, profile: str | None = None
    ) -> str:
        """``seat`` becomes the claimant's (a handoff): a new token; the old one's connections
        are told and closed. A human seat keeps its cards and pending decision.
        ``let_back``: the token hash of a removed player the host handed the seat to;
        ``profile``: the claimant's, if signed in."""
        table = self._table
        state = table.seats[seat]
        if let_back is not None:
            table.let_back(let_back)
        token = secrets.token_urlsafe(24)
        state.hand_to(name, hash_token(token), profile)
        table.chat.forget_seat(seat)
        table.forget_seat(seat)
        table.round_pause.unready(seat)  # the newcomer has not read the results yet
        table.commit(
            [{"type": "seat", **state.public()}],
            seats=(state.stored(),),
            row=let_back is not None,
            extra=ChangeExtra(handoffs=table.handoffs.void(seat)),
            seat_changes=SeatChanges(revoked={seat: ErrorCode.BAD_TOKEN}),
        )
        return token

    def come_back(self, profile: str) -> tuple[int, str]:
        """A signed-in player on a new device takes back the seat their profile holds here,
        as a handoff to themselves would: a new token; the other device's connections are
        told (``bad_token``) and closed. Returns the seat and its token."""
        table = self._table
        table.check_writable()
        mine = [s for s in table.seats if s.kind == "human" and s.profile == profile]
        if not mine:
            raise TableError(ErrorCode.BAD_SEAT, "your profile holds no seat at this table")
        state = mine[0]
        assert state.name is not None
        return state.seat, self.hand_over(state.seat, state.name, None, profile)
