"""Who sits where: taking a seat, bots for the empty ones, players' connections coming and
going, and coming back after being away (docs/protocol.md sections 2, 3 and 5)."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from .errors import ErrorCode, TableError
from .model import Ack, check_name, hash_token

if TYPE_CHECKING:
    from .table import Table


def check_seat(seat: object, players: int) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise TableError(ErrorCode.BAD_SEAT, f"no seat {seat!r} at this table")
    return seat


class Seating:
    """The seats of one table and the changes to them."""

    __slots__ = ("_table",)

    def __init__(self, table: Table) -> None:
        self._table = table

    def join(self, name: object, seat: object) -> str:
        """Take a free (or bot) seat before a match or between matches; returns its token."""
        table = self._table
        table.check_writable()
        clean = check_name(name)
        if table.status == "playing":
            raise TableError(
                ErrorCode.WRONG_STATUS, "seats are taken before a match starts or between matches"
            )
        state = table.seats[check_seat(seat, table.players)]
        if state.kind == "human":
            raise TableError(ErrorCode.SEAT_TAKEN, f"seat {state.seat} is taken by {state.name}")
        token = secrets.token_urlsafe(24)
        state.name, state.kind, state.token_hash = clean, "human", hash_token(token)
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
                state.name, state.kind = f"Bot {state.seat + 1}", "bot"
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
        state.connections += 1
        if state.connections == 1 or state.away:
            state.away = False
            if not table.storage_failed:  # presence is not worth refusing a connection for
                table.commit([{"type": "seat", **state.public()}])

    def disconnect(self, seat: int) -> None:
        table = self._table
        state = table.seats[seat]
        state.connections = max(0, state.connections - 1)
        if state.connections == 0 and not table.storage_failed:
            table.commit([{"type": "seat", **state.public()}])

    def back(self, seat: int) -> Ack:
        table = self._table
        table.check_writable()
        state = table.seats[seat]
        if not state.away:
            raise TableError(ErrorCode.NOT_AWAY, "the seat is not away")
        state.away = False
        table.commit([{"type": "seat", **state.public()}])
        return Ack(table.version)
