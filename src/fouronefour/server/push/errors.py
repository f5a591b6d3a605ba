"""Web Push's typed refusals (docs/push.md, "Errors"): the same body as the players'
(``{"code", "message"}``); nothing the refused request asked for happened."""

from __future__ import annotations

import enum


class PushCode(enum.StrEnum):
    #: A subscription that is no Web Push subscription: not https, too long, bad keys.
    BAD_SUBSCRIPTION = "bad_subscription"
    #: Settings that name no kind of notice, or a value that is no boolean.
    BAD_PUSH_SETTINGS = "bad_push_settings"
    #: The server has no VAPID keys (its database is read-only or unreachable at start).
    PUSH_UNAVAILABLE = "push_unavailable"


STATUS: dict[PushCode, int] = {PushCode.PUSH_UNAVAILABLE: 503}


class PushError(Exception):
    def __init__(self, code: PushCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def status(self) -> int:
        return STATUS.get(self.code, 400)

    def to_dict(self) -> dict[str, object]:
        return {"code": str(self.code), "message": self.message}
