"""The friends' typed refusals (docs/friends.md, "Errors"): a :class:`PlayerError` with codes
of their own, answered by the players' routes' :class:`~..routes.players.Gate` as theirs."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import ClassVar

from ..errors import ErrorCode
from ..players.errors import STATUS, PlayerCode, PlayerError


class FriendCode(enum.StrEnum):
    #: A request to oneself, or to a profile one has not played with (nor sits with now).
    NOT_ALLOWED = "not_allowed"
    #: Accepting or declining a request that is not (or no longer) there.
    NO_REQUEST = "no_request"
    #: Removing a profile that is not a friend.
    NOT_FRIENDS = "not_friends"
    #: Asking or inviting a profile this one blocks (unblock first).
    YOU_BLOCK = "you_block"
    #: A limit reached: friends, requests waiting, blocks.
    TOO_MANY = "too_many"
    #: Inviting to a table one holds no seat at.
    NOT_SEATED = "not_seated"


FRIEND_STATUS: dict[str, int] = {
    FriendCode.NO_REQUEST: 404,
    FriendCode.NOT_FRIENDS: 404,
    FriendCode.YOU_BLOCK: 409,
    FriendCode.TOO_MANY: 409,
    FriendCode.NOT_ALLOWED: 403,
    FriendCode.NOT_SEATED: 403,
}


class FriendError(PlayerError):
    """A refused friends' request; nothing it asked for happened."""

    #: (Its own codes' statuses, then the players'.)
    STATUSES: ClassVar[Mapping[str, int]] = {**STATUS, **FRIEND_STATUS}

    def __init__(self, code: FriendCode | PlayerCode | ErrorCode, message: str) -> None:
        super().__init__(code, message)
