"""The clubs' typed refusals (docs/clubs.md, "Errors"): the same body as every other API
error (``{"code", "message"}``), each with its HTTP status."""

from __future__ import annotations

import enum

from ..errors import ErrorCode
from ..players.errors import PlayerError


class ClubCode(enum.StrEnum):
    #: No such club, or not one the asker may see (a non-member is told nothing more).
    CLUB_NOT_FOUND = "club_not_found"
    #: The asker's role does not allow it (a member acting as an admin; an admin on one
    #: who outranks or equals them).
    NOT_ALLOWED = "not_allowed"
    BAD_CLUB_NAME = "bad_club_name"
    BAD_CLUB_SETTINGS = "bad_club_settings"
    #: An invite link that is no club's (rotated, mistyped): the same for each.
    BAD_INVITE = "bad_invite"
    #: Banned from the club, or kicked and the link not rotated since.
    BARRED = "barred"
    ALREADY_MEMBER = "already_member"
    NOT_MEMBER = "not_member"
    #: The profile is in as many clubs as it may be, or the club has as many members.
    TOO_MANY_CLUBS = "too_many_clubs"
    CLUB_FULL = "club_full"
    BAD_CHAT = "bad_chat"


STATUS: dict[str, int] = {
    ClubCode.CLUB_NOT_FOUND: 404,
    ClubCode.NOT_ALLOWED: 403,
    ClubCode.BARRED: 403,
    ClubCode.ALREADY_MEMBER: 409,
    ClubCode.NOT_MEMBER: 404,
    ClubCode.TOO_MANY_CLUBS: 409,
    ClubCode.CLUB_FULL: 409,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.STORAGE_ERROR: 503,
    ErrorCode.KICKED: 403,
    ErrorCode.NOT_SIGNED_IN: 401,
}


class ClubError(PlayerError):
    """A refused club request: nothing it asked for happened."""

    STATUSES = STATUS
