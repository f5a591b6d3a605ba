"""Seat handoff: a seat's way to a new device (docs/protocol.md section 8).

The host (for any occupied seat) or the seat's player asks for a one-time secret; whoever
posts it to ``/api/tables/{code}/claim`` gets the seat and a new token, and the old token
stops working. Only the secret's hash is kept (like the tokens'), so the database cannot
hand a seat to anyone; the secret itself goes to the asking connection only, in its ack.

Offering and claiming are pure steps over a :class:`~.state.TableState`, whose
``handoffs`` are the pending ones (tests/server/test_handoff_steps.py); a claim ends in
:func:`.seating.hand_over`.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import ErrorCode, TableError
from ..storage import ChangeExtra, StoredHandoff
from . import invites
from .model import Ack, check_name, hash_token, ms
from .seating import check_seat, hand_over, new_token, refuse_removed, was_removed
from .state import Handoff, Step, TableState

if TYPE_CHECKING:
    from .core import TableCore as Table

#: How long a handoff secret may be claimed.
HANDOFF_SECONDS = 600.0


def pending(stored: list[StoredHandoff]) -> dict[int, Handoff]:
    """The handoffs as written (after a restart a removed player needs a new one from the
    host: who offered it is not written)."""
    return {
        h.seat: Handoff(h.secret_hash, h.expires_at / 1000)
        for h in stored
        if h.secret_hash is not None
    }


def offer(state: TableState, actor: int, seat: object, secret_hash: str) -> Step:
    """A new secret (of ``secret_hash``) for ``seat``, replacing any earlier one; written
    before the ack, seen by nobody else (no event)."""
    number = check_seat(seat, state.players)
    if state.seats[number].kind == "empty":
        raise TableError(ErrorCode.BAD_SEAT, f"seat {number} is empty: it can be joined")
    if actor != number and actor != state.host_seat:
        raise TableError(ErrorCode.NOT_HOST, "only the host hands over another's seat")
    handoff = Handoff(secret_hash, state.now + HANDOFF_SECONDS, actor == state.host_seat)
    written = StoredHandoff(number, secret_hash, ms(handoff.expires_at))
    after = replace(state, handoffs={**state.handoffs, number: handoff})
    return Step(after, extra=ChangeExtra(handoffs=(written,)))


def find(state: TableState, secret: object) -> int | None:
    """The seat a live handoff of ``secret`` was made for."""
    if not isinstance(secret, str) or not secret or len(secret) > 200:
        return None
    digest = hash_token(secret)
    for seat, handoff in state.handoffs.items():
        if hmac.compare_digest(handoff.secret_hash, digest) and state.now < handoff.expires_at:
            return seat
    return None


def claim(
    state: TableState, secret: object, name: object, token: object, token_hash: str,
    profile: str | None,
) -> Step:  # fmt: skip
    """The seat ``secret`` was made for becomes the claimant's, with the new token of
    ``token_hash``. ``token``: the claimant's token at this table, if they had one: a
    player the host removed may claim only a handoff the host offered, which lets them
    back; ``profile``: the claimant's, if signed in."""
    seat = find(state, secret)
    if seat is None:
        if state.options.invite_hash is not None:  # (a private table stays hidden)
            raise invites.not_found(state.code)
        raise TableError(
            ErrorCode.BAD_HANDOFF, "this handoff is unknown, used or expired: ask for a new one"
        )
    clean = check_name(name)
    if state.seats[seat].kind == "bot" and state.status == "playing" and state.round_end is None:
        raise TableError(
            ErrorCode.WRONG_STATUS,
            "a bot's seat is taken between rounds: try again at the end of this round",
        )
    let_back = None
    if token is not None and was_removed(state.removed, token):
        if not state.handoffs[seat].by_host:
            refuse_removed(state, token)
        let_back = hash_token(str(token))
    return hand_over(state, seat, clean, token_hash, let_back, profile)


class Handoffs:
    """The handoffs of one table as the table exposes them: each request a step it takes."""

    __slots__ = ("_table",)

    def __init__(self, table: Table) -> None:
        self._table = table

    def offer(self, actor: int, seat: object) -> Ack:
        """A new secret for ``seat``; the ack carries it to the asking connection only."""
        table = self._table
        table.check_writable()
        secret = secrets.token_urlsafe(24)
        step = offer(table.state(), actor, seat, hash_token(secret))
        table.take(step)
        assert step.extra is not None and step.extra.handoffs
        written = step.extra.handoffs[0]
        return Ack(
            table.version,
            handoff={"seat": written.seat, "secret": secret, "expires_at": written.expires_at},
        )

    def claim(
        self, secret: object, name: object, token: object = None, profile: str | None = None
    ) -> tuple[int, str]:
        """Take the seat ``secret`` was made for; returns the seat and its new token."""
        table = self._table
        table.check_writable()
        new, new_hash = new_token()
        step = claim(table.state(), secret, name, token, new_hash, profile)
        table.take(step)
        (seat,) = step.renewed
        return seat, new
