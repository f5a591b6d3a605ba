"""An event's typed refusals (docs/tournaments.md, "Errors"): the codes of its own beside
those it shares with the tables and the players; answered as the players' routes answer
theirs (routes/players.py ``Gate.answer``). A refused request changes nothing."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import ClassVar

from ..errors import ErrorCode
from ..players.errors import STATUS as PLAYER_STATUS
from ..players.errors import PlayerCode, PlayerError


class EventCode(enum.StrEnum):
    #: No such event, or one of a club the asker is not a member of (the same answer).
    EVENT_NOT_FOUND = "event_not_found"
    #: Setting up or starting an event is for the club's owner and admins.
    NOT_CLUB_ADMIN = "not_club_admin"
    #: A partner named who is not a member of the club (or the asker is not).
    NOT_CLUB_MEMBER = "not_club_member"
    ALREADY_REGISTERED = "already_registered"
    NOT_REGISTERED = "not_registered"
    EVENT_FULL = "event_full"
    TOO_FEW_ENTRANTS = "too_few_entrants"
    #: A club has at most MAX_UNFINISHED events not finished.
    TOO_MANY_EVENTS = "too_many_events"


STATUS: dict[str, int] = {
    EventCode.EVENT_NOT_FOUND: 404,
    EventCode.NOT_CLUB_ADMIN: 403,
    EventCode.NOT_CLUB_MEMBER: 403,
    EventCode.ALREADY_REGISTERED: 409,
    EventCode.NOT_REGISTERED: 409,
    EventCode.EVENT_FULL: 409,
    EventCode.TOO_FEW_ENTRANTS: 409,
    EventCode.TOO_MANY_EVENTS: 409,
    ErrorCode.WRONG_STATUS: 409,
}


class EventError(PlayerError):
    """A refused request about an event."""

    #: (Its own codes' statuses, then the players'.)
    STATUSES: ClassVar[Mapping[str, int]] = {**PLAYER_STATUS, **STATUS}

    def __init__(self, code: EventCode | ErrorCode | PlayerCode, message: str) -> None:
        super().__init__(code, message)
