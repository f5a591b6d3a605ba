"""A request's signed-in profile, for the table routes: a seat taken, claimed or taken back
by a signed-in player carries their profile (docs/players.md, "Sessions, and how they differ
from seat tokens").

Only a request that proves it is the page's own counts: the session cookie, the CSRF header
that matches it, and no other site's Origin. Anything less plays as a client without
cookies (the documented protocol client), with no profile: a seat token alone is a seat.
"""

from __future__ import annotations

import hmac

from fastapi import Request

from ..players import tokens
from ..players.service import Players
from ..storage import StorageError
from .players import CSRF_HEADER, SESSION_COOKIE


def from_the_page(request: Request) -> bool:
    """Whether a browser says the request comes from this server's own page (no Origin:
    not a browser's cross-site request, unless Fetch Metadata says so)."""
    origin = request.headers.get("origin")
    if origin is None:
        return request.headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")
    host = request.headers.get("host", "").lower()
    return origin.lower() in (f"{request.url.scheme}://{host}", f"https://{host}")


async def page_profile(players: Players, request: Request) -> str | None:
    """The profile id of the session that sent ``request`` from the page, else None."""
    cookie = request.cookies.get(SESSION_COOKIE)
    sent = request.headers.get(CSRF_HEADER)
    if not cookie or not sent or not from_the_page(request):
        return None
    try:
        current = await players.current(cookie)
    except StorageError:  # (profiles unavailable: the table is still played)
        return None
    if current is None:
        return None
    if not hmac.compare_digest(sent.encode(), tokens.csrf_token(current.token).encode()):
        return None
    return current.profile.id
