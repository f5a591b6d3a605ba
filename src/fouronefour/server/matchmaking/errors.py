"""Quick match's typed refusals (play again, a table's call, answers with the tables'
errors): the body is shaped as every other error
(``{"code", "message"}``); a refused request changes nothing."""

from __future__ import annotations

import enum

from ..errors import ErrorCode
from ..players.errors import PlayerError


class MatchCode(enum.StrEnum):
    #: The profile is in the queue already (one entry a profile).
    ALREADY_QUEUED = "already_queued"
    #: The profile left the queue a moment ago: it may join again after ``retry_after_ms``.
    COOLING_DOWN = "cooling_down"
    #: The queue holds its most people: try again soon.
    QUEUE_FULL = "queue_full"
    NOT_QUEUED = "not_queued"


STATUS: dict[str, int] = {
    MatchCode.ALREADY_QUEUED: 409,
    MatchCode.COOLING_DOWN: 429,
    MatchCode.QUEUE_FULL: 503,
    MatchCode.NOT_QUEUED: 404,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.STORAGE_ERROR: 503,
    ErrorCode.BROKER_UNAVAILABLE: 503,
}


class MatchError(PlayerError):
    """A refused quick-match or play-again request: nothing it asked for happened."""

    STATUSES = STATUS
