"""A request's signed-in profile, for the table routes: a seat taken, claimed or taken back
by a signed-in player carries their profile (docs/players.md, "Seats follow the profile").

Only a request that proves it is the page's own counts, as for the players' own changes
(:meth:`.players.Gate.changing`: the session cookie, the CSRF header that matches it, no
other site's Origin). Anything less plays as a client without cookies (the documented
protocol client), with no profile: a seat token alone is a seat.
"""

from __future__ import annotations

from fastapi import Request

from ..players.errors import PlayerError
from ..players.service import Players
from ..storage import StorageError
from .players import Gate


async def page_profile(players: Players, request: Request) -> str | None:
    """The profile id of the session that sent ``request`` from the page, else None."""
    if not request.cookies:
        return None  # (a client without cookies: no lookup at all)
    try:
        current = await Gate(players).changing(request)
    except (PlayerError, StorageError):  # (profiles unavailable: the table is still played)
        return None
    return current.profile.id
