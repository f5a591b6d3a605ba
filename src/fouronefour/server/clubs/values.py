"""What a club is made of (docs/clubs.md): its roles, its members, its limits, and the
checks of what people type into it (its name, its chat wall)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import TableError
from ..tables.chat import check_line
from ..tables.model import OPTION_KEYS, unshown
from ..tables.settings import SETTING_KEYS
from .errors import ClubCode, ClubError

Role = Literal["owner", "admin", "member"]
#: Who outranks whom: an admin acts on members, the owner on everyone.
RANK: dict[str, int] = {"owner": 3, "admin": 2, "member": 1}

#: A club's name: 2 to 40 characters, one line, something visible.
NAME_MIN = 2
NAME_MAX = 40
#: Clubs a profile is in (made or joined), and members a club has.
MAX_CLUBS = 20
MAX_MEMBERS = 200
#: Chat wall lines are kept a week, and a page shows the last 100.
CHAT_KEEP_MS = 7 * 86_400_000
CHAT_PAGE = 100
#: A club's table is "tonight's" for 12 hours after it was made: the link opens it while
#: it has room (docs/clubs.md, "The club's table").
TABLE_EVENING_MS = 12 * 3_600_000
#: The table options and settings a club keeps for its tables (a create request's,
#: registry.py; a club's tables are always private: the club's link is their way in).
TABLE_KEYS = (OPTION_KEYS | SETTING_KEYS) - {"private"}


@dataclass(frozen=True, slots=True)
class Club:
    id: str
    name: str
    created_at: int
    invite: str
    table_settings: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Member:
    profile_id: str
    name: str
    avatar: str
    role: Role
    joined_at: int
    mu: float
    sigma: float
    rated_matches: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.profile_id,
            "name": self.name,
            "avatar": self.avatar,
            "role": self.role,
            "joined_at": self.joined_at,
        }


@dataclass(frozen=True, slots=True)
class ChatLine:
    id: str
    profile_id: str
    name: str
    text: str
    at: int

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "profile": self.profile_id, "name": self.name,
                "text": self.text, "at": self.at}  # fmt: skip


def check_club_name(name: object) -> str:
    """A club's name as kept: NFC, trimmed, 2 to 40 characters on one line with something
    visible (the rules of a seat's name and of chat, tables/model.py ``unshown``)."""
    if not isinstance(name, str):
        raise ClubError(ClubCode.BAD_CLUB_NAME, "a club's name is text")
    clean = unicodedata.normalize("NFC", name).strip()
    if not NAME_MIN <= len(clean) <= NAME_MAX:
        raise ClubError(
            ClubCode.BAD_CLUB_NAME, f"a club's name has {NAME_MIN} to {NAME_MAX} characters"
        )
    refused = unshown(clean)
    if refused is not None:
        raise ClubError(ClubCode.BAD_CLUB_NAME, f"a club's name has {refused}")
    return clean


def check_chat_text(text: object) -> str:
    """A chat wall line, checked as a table's chat line is (tables/chat.py)."""
    if text is None:
        raise ClubError(ClubCode.BAD_CHAT, "a chat line has text")
    try:
        clean, _ = check_line({"text": text})
    except TableError as error:
        raise ClubError(ClubCode.BAD_CHAT, error.message) from None
    assert clean is not None
    return clean
