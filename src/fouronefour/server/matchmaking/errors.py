"""Quick match's typed refusals (play again, a table's call, answers with the tables'
errors): the body is shaped as every other error
(``{"code", "message"}``); a refused request changes nothing."""

from __future__ import annotations

import enum

from ..errors import ErrorCode


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


class MatchError(Exception):
    def __init__(
        self, code: MatchCode | ErrorCode, message: str, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after

    @property
    def status(self) -> int:
        return STATUS.get(self.code, 400)

    def to_dict(self) -> dict[str, object]:
        body: dict[str, object] = {"code": str(self.code), "message": self.message}
        if self.retry_after is not None:
            body["retry_after_ms"] = max(1, round(self.retry_after * 1000))
        return body
