"""What an event needs to know of its club: who has which role, and who the members are.
The clubs' room (clubs/service.py ``Clubs``, ``ServerState.clubs``) implements it; the
tests and the bench give an in-memory one."""

from __future__ import annotations

from typing import Literal, Protocol

Role = Literal["owner", "admin", "member"]
#: The roles that may set up and start an event.
ADMINS: frozenset[str] = frozenset({"owner", "admin"})


class ClubAccess(Protocol):
    async def role(self, club_id: str, profile_id: str) -> str | None:
        """The profile's role in the club; None if it is no member (or no such club)."""
        ...

    async def member_ids(self, club_id: str) -> list[str]:
        """Every member's profile id."""
        ...


class MemoryClubs:
    """Clubs held in a dict (club -> profile -> role): the tests' and the bench's."""

    def __init__(self, clubs: dict[str, dict[str, Role]] | None = None) -> None:
        self.clubs: dict[str, dict[str, Role]] = clubs if clubs is not None else {}

    async def role(self, club_id: str, profile_id: str) -> str | None:
        return self.clubs.get(club_id, {}).get(profile_id)

    async def member_ids(self, club_id: str) -> list[str]:
        return list(self.clubs.get(club_id, {}))
