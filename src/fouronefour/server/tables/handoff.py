"""Seat handoff: a seat's way to a new device (docs/protocol.md section 8).

The host (for any occupied seat) or the seat's player asks for a one-time secret; whoever
posts it to ``/api/tables/{code}/claim`` gets the seat and a new token, and the old token
stops working. Only the secret's hash is kept (like the tokens'), so the database cannot
hand a seat to anyone; the secret itself goes to the asking connection only, in its ack.
"""

from __future__ import annotations

import hmac
import secrets
from typing import TYPE_CHECKING

from ..errors import ErrorCode, TableError
from ..storage import ChangeExtra, StoredHandoff
from . import invites
from .model import Ack, check_name, hash_token, ms
from .seating import check_seat, refuse_removed

if TYPE_CHECKING:
    from .core import TableCore as Table

#: How long a handoff secret may be claimed.
HANDOFF_SECONDS = 600.0


class Handoffs:
    """The pending handoffs of one table: seat -> (secret hash, expiry in seconds), and the
    seats whose handoff the host offered (which may seat a player the host removed)."""

    __slots__ = ("_by_host", "_pending", "_table")

    def __init__(self, table: Table, stored: list[StoredHandoff]) -> None:
        self._table = table
        self._pending: dict[int, tuple[str, float]] = {
            h.seat: (h.secret_hash, h.expires_at / 1000)
            for h in stored
            if h.secret_hash is not None
        }
        # (Not stored: after a restart a removed player needs a new handoff from the host.)
        self._by_host: set[int] = set()

    def offer(self, actor: int, seat: object) -> Ack:
        """A new secret for ``seat`` (replacing any earlier one), written before the ack."""
        table = self._table
        table.check_writable()
        number = check_seat(seat, table.players)
        if table.seats[number].kind == "empty":
            raise TableError(ErrorCode.BAD_SEAT, f"seat {number} is empty: it can be joined")
        if actor != number and actor != table.host_seat:
            raise TableError(ErrorCode.NOT_HOST, "only the host hands over another's seat")
        secret = secrets.token_urlsafe(24)
        expires_at = table.scheduler.now() + HANDOFF_SECONDS
        self._pending[number] = (hash_token(secret), expires_at)
        if actor == table.host_seat:
            self._by_host.add(number)
        else:
            self._by_host.discard(number)
        table.write(
            ChangeExtra(handoffs=(StoredHandoff(number, hash_token(secret), ms(expires_at)),))
        )
        return Ack(
            table.version,
            handoff={"seat": number, "secret": secret, "expires_at": ms(expires_at)},
        )

    def claim(
        self, secret: object, name: object, token: object = None, profile: str | None = None
    ) -> tuple[int, str]:
        """Take the seat ``secret`` was made for; returns the seat and its new token.
        ``token``: the claimant's token at this table, if they had one: a player the host
        removed may claim only a handoff the host offered, which lets them back;
        ``profile``: the claimant's, if signed in."""
        table = self._table
        table.check_writable()
        seat = self._find(secret)
        if seat is None:
            if table.options.invite_hash is not None:  # (a private table stays hidden)
                raise invites.not_found(table.code)
            raise TableError(
                ErrorCode.BAD_HANDOFF, "this handoff is unknown, used or expired: ask for a new one"
            )
        clean = check_name(name)
        if (
            table.seats[seat].kind == "bot"
            and table.status == "playing"
            and table.round_pause.current is None
        ):
            raise TableError(
                ErrorCode.WRONG_STATUS,
                "a bot's seat is taken between rounds: try again at the end of this round",
            )
        let_back = None
        if token is not None and table.was_removed(token):
            if seat not in self._by_host:
                refuse_removed(table, token)
            let_back = hash_token(str(token))
        return seat, table.seating.hand_over(seat, clean, let_back, profile)

    def _find(self, secret: object) -> int | None:
        if not isinstance(secret, str) or not secret or len(secret) > 200:
            return None
        digest = hash_token(secret)
        now = self._table.scheduler.now()
        for seat, (secret_hash, expires_at) in self._pending.items():
            if hmac.compare_digest(secret_hash, digest) and now < expires_at:
                return seat
        return None

    def void(self, *seats: int) -> tuple[StoredHandoff, ...]:
        """Forget the handoffs of ``seats``; what to write for it."""
        self._by_host.difference_update(seats)
        return tuple(
            StoredHandoff(seat, None) for seat in seats if self._pending.pop(seat, None) is not None
        )
