"""The players' typed refusals: the codes of their own (docs/players.md, "Errors") beside
those they share with the tables (:class:`~fouronefour.server.errors.ErrorCode`)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import ClassVar

from ..errors import ErrorCode


class PlayerCode(enum.StrEnum):
    #: No valid session cookie (none, unknown, expired or revoked): HTTP 401.
    NO_SESSION = "no_session"
    #: A state-changing request without the session's CSRF token, or from another origin.
    BAD_CSRF = "bad_csrf"
    #: A sign-in whose username and password do not match (the same whether or not the
    #: username exists), or a wrong current password: HTTP 401.
    BAD_CREDENTIALS = "bad_credentials"
    #: A one-time device code unknown, used or expired (the same answer for each).
    BAD_CODE = "bad_code"
    USERNAME_TAKEN = "username_taken"
    BAD_USERNAME = "bad_username"
    BAD_PASSWORD = "bad_password"
    ALREADY_CLAIMED = "already_claimed"
    NOT_CLAIMED = "not_claimed"
    PLAYER_NOT_FOUND = "player_not_found"
    NO_SUCH_SESSION = "no_such_session"
    #: A passkey ceremony refused: no challenge, an unknown passkey, a wrong signature.
    BAD_PASSKEY = "bad_passkey"


#: HTTP status of each code (400 otherwise).
STATUS: dict[str, int] = {
    PlayerCode.NO_SESSION: 401,
    PlayerCode.BAD_CSRF: 403,
    PlayerCode.BAD_CREDENTIALS: 401,
    PlayerCode.USERNAME_TAKEN: 409,
    PlayerCode.ALREADY_CLAIMED: 409,
    PlayerCode.NOT_CLAIMED: 409,
    PlayerCode.PLAYER_NOT_FOUND: 404,
    PlayerCode.NO_SUCH_SESSION: 404,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.STORAGE_ERROR: 503,
}


class PlayerError(Exception):
    """A refused request about a player; nothing it asked for happened. The body is the
    same shape as a table's error (``{"code", "message"}`` and details). The rooms built
    on the players (clubs, friends, events, quick match) refuse with subclasses that name
    their codes' statuses (:attr:`STATUSES`)."""

    #: HTTP status of each code (400 otherwise).
    STATUSES: ClassVar[Mapping[str, int]] = STATUS

    def __init__(
        self,
        code: enum.StrEnum,
        message: str,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        #: Seconds to wait, for ``rate_limited``.
        self.retry_after = retry_after

    @property
    def status(self) -> int:
        return self.STATUSES.get(self.code, 400)

    def to_dict(self) -> dict[str, object]:
        body: dict[str, object] = {"code": str(self.code), "message": self.message}
        if self.retry_after is not None:
            body["retry_after_ms"] = max(1, round(self.retry_after * 1000))
        return body
