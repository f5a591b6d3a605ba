"""The moves a table accepted, remembered by the client's id so that a move sent again
(the client did not see its ack: a socket dropped, a page reloaded) is answered with the
same ack and not refused as stale (docs/protocol.md section 3, ``move``)."""

from __future__ import annotations

from collections import OrderedDict

from .model import Ack

#: Client ids of accepted moves remembered per seat.
REMEMBERED_IDS = 64

#: What a resend must repeat exactly: the client's id, the version it answered, the move.
ResendKey = tuple[str, object, object]


class AcceptedMoves:
    """Per seat, the last :data:`REMEMBERED_IDS` accepted moves' acks by their key."""

    def __init__(self) -> None:
        self._by_seat: dict[int, OrderedDict[ResendKey, Ack]] = {}

    def earlier(self, seat: int, key: ResendKey) -> Ack | None:
        """The ack given for ``key`` at ``seat``, if it was accepted and is remembered."""
        remembered = self._by_seat.get(seat)
        return None if remembered is None else remembered.get(key)

    def remember(self, seat: int, key: ResendKey, ack: Ack) -> None:
        remembered = self._by_seat.setdefault(seat, OrderedDict())
        remembered[key] = ack
        if len(remembered) > REMEMBERED_IDS:
            remembered.popitem(last=False)

    def forget(self, seat: int) -> None:
        """A new occupant at ``seat``: the old one's moves are not theirs to resend."""
        self._by_seat.pop(seat, None)
