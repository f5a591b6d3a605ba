"""Players over HTTP (docs/players.md, "HTTP"): the profile, sign-in and sign-out, device
codes, deletion and export, public profiles, history and leaderboards.

The session is a cookie (``fof_session``: HttpOnly, SameSite=Lax, Secure when the request
came over HTTPS), never a URL's part nor a body's. Every state-changing request (POST, PATCH,
DELETE) needs a session and proves it comes from the page: its ``X-CSRF-Token`` header is
the session's CSRF token (the ``fof_csrf`` cookie, readable by the page's script; another
site can neither read it nor make it), and its ``Origin``, when sent, is the server's own
(or one of ``allowed_origins``). ``GET /api/me`` makes a guest and its session on the first
visit.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..errors import ErrorCode, TableError
from ..players import tokens
from ..players.errors import PlayerCode, PlayerError
from ..players.passkeys import Site
from ..players.service import SESSION_DAYS, Current, Players, SignedIn, profile_dict
from ..ratelimit import address_key
from ..storage.values import StorageError
from .answers import json_object

SESSION_COOKIE = "fof_session"
CSRF_COOKIE = "fof_csrf"
CSRF_HEADER = "X-CSRF-Token"
#: The largest request body read (the app's own limit, bodies.py, applies first when wired).
MAX_BODY = 4096
#: A passkey's credential (attestation included) may be larger: the app's body limit must
#: let the two passkey POSTs through with this much (see docs/players.md, "Passkeys").
MAX_CREDENTIAL = 16_384


def _json(body: Any, status: int = 200) -> Response:
    response = Response(orjson.dumps(body), status_code=status, media_type="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


def _refuse(error: PlayerError) -> Response:
    response = _json({"error": error.to_dict()}, error.status)
    if error.retry_after is not None:
        response.headers["Retry-After"] = str(max(1, int(error.retry_after + 0.999)))
    return response


async def _body(request: Request, limit: int = 0) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > (limit or MAX_BODY):
        raise PlayerError(ErrorCode.TOO_LARGE, f"a body has at most {limit or MAX_BODY} bytes")
    try:
        return json_object(raw)
    except TableError as error:  # (the same words as the table routes')
        raise PlayerError(error.code, error.message) from None


def _set_session(request: Request, response: Response, signed: SignedIn) -> None:
    secure = request.url.scheme == "https"
    age = SESSION_DAYS * 86_400
    response.set_cookie(
        SESSION_COOKIE, signed.token, max_age=age, httponly=True, samesite="lax", secure=secure
    )
    response.set_cookie(
        CSRF_COOKIE, signed.csrf, max_age=age, httponly=False, samesite="lax", secure=secure
    )


def _clear_session(request: Request, response: Response) -> None:
    secure = request.url.scheme == "https"
    for name, http_only in ((SESSION_COOKIE, True), (CSRF_COOKIE, False)):
        response.delete_cookie(name, httponly=http_only, samesite="lax", secure=secure)


@dataclass(frozen=True, eq=False)
class Gate:
    """What the players' routes check before they act: who is asking (their address and
    session), that a change comes from the page, and how a refusal is answered."""

    players: Players
    limit_loopback: bool = False
    #: Origins besides the server's own whose pages may change a profile.
    origins: frozenset[str] = frozenset()

    def address(self, request: Request) -> str | None:
        client = request.client
        return address_key(client.host if client else None, self.limit_loopback)

    def same_origin(self, request: Request) -> bool:
        origin = request.headers.get("origin")
        if origin is None:
            # No Origin: not a browser's cross-site request (they send it on every POST,
            # PATCH and DELETE), unless Fetch Metadata says it is one.
            return request.headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")
        host = request.headers.get("host", "").lower()
        # The page's own origin; https too when the server was reached over plain HTTP (a
        # TLS proxy that does not say X-Forwarded-Proto): never a weaker scheme.
        own = {f"{request.url.scheme}://{host}", f"https://{host}"}
        return origin.lower() in own or origin.lower() in self.origins

    async def session(self, request: Request) -> Current:
        current = await self.players.current(request.cookies.get(SESSION_COOKIE))
        if current is None:
            raise PlayerError(PlayerCode.NO_SESSION, "no session: GET /api/me first")
        return current

    async def changing(self, request: Request) -> Current:
        """The session of a state-changing request, once it has proved it is the page's."""
        if not self.same_origin(request):
            raise PlayerError(PlayerCode.BAD_CSRF, "a request from another site")
        current = await self.session(request)
        sent = request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(sent.encode(), tokens.csrf_token(current.token).encode()):
            raise PlayerError(PlayerCode.BAD_CSRF, f"the {CSRF_HEADER} header is missing or wrong")
        return current

    async def answer(self, request: Request, work: Callable[[], Awaitable[Response]]) -> Response:
        try:
            return await work()
        except PlayerError as error:
            refused = error
        except StorageError:
            refused = PlayerError(ErrorCode.STORAGE_ERROR, "the server cannot reach its database")
        response = _refuse(refused)
        if refused.code == PlayerCode.NO_SESSION:  # (a dead cookie: the browser drops it)
            _clear_session(request, response)
        return response

    def signed_in(self, request: Request, signed: SignedIn, status: int = 200) -> Response:
        response = _json({"profile": profile_dict(signed.profile), "csrf": signed.csrf}, status)
        _set_session(request, response, signed)
        return response


def _site(request: Request) -> Site:
    """Where the page is, as passkeys are bound to it."""
    return Site.of(request.url.scheme, request.headers.get("host", ""))


def players_router(
    players: Players, limit_loopback: bool = False, allowed_origins: Iterable[str] = ()
) -> APIRouter:
    """The players' routes over ``players``; ``allowed_origins``: origins besides the
    server's own whose pages may change a profile (``https://example.org``)."""
    origins = frozenset(o.rstrip("/").lower() for o in allowed_origins)
    gate = Gate(players, limit_loopback, origins)
    router = APIRouter()
    for add in (_profile_routes, _session_routes, _device_routes, _passkey_routes, _record_routes):
        add(router, gate)
    return router


def _profile_routes(router: APIRouter, gate: Gate) -> None:
    """The profile itself: read (a guest made at the first visit), changed, claimed,
    deleted, exported."""

    @router.get("/api/me")
    async def me(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.players.current(request.cookies.get(SESSION_COOKIE))
            if current is not None:
                # The cookies again, so that the browser keeps them as long as the session
                # lasts on the server (90 days from its last use).
                return gate.signed_in(request, SignedIn(current.token, current.profile))
            language = request.headers.get("accept-language", "")[:2].lower() or None
            return gate.signed_in(
                request, await gate.players.start_guest(gate.address(request), language), 201
            )

        return await gate.answer(request, work)

    @router.patch("/api/me")
    async def change_me(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            profile = await gate.players.update(current, await _body(request))
            return _json({"profile": profile_dict(profile)})

        return await gate.answer(request, work)

    @router.post("/api/me/claim")
    async def claim(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            body = await _body(request)
            signed = await gate.players.claim(
                current, body.get("username"), body.get("password"), gate.address(request)
            )
            return gate.signed_in(request, signed)

        return await gate.answer(request, work)

    @router.delete("/api/me")
    async def delete_me(request: Request) -> Response:
        async def work() -> Response:
            await gate.players.delete(await gate.changing(request))
            response = _json({"ok": True})
            _clear_session(request, response)
            return response

        return await gate.answer(request, work)

    @router.get("/api/me/export")
    async def export(request: Request) -> Response:
        async def work() -> Response:
            response = _json(await gate.players.export(await gate.session(request)))
            response.headers["Content-Disposition"] = 'attachment; filename="414-my-data.json"'
            return response

        return await gate.answer(request, work)


def _session_routes(router: APIRouter, gate: Gate) -> None:
    """Sign-in by password, sign-out here or everywhere, the signed-in devices, the password."""

    @router.post("/api/session")
    async def sign_in(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            body = await _body(request)
            signed = await gate.players.sign_in(
                body.get("username"), body.get("password"), gate.address(request), current.token
            )
            return gate.signed_in(request, signed)

        return await gate.answer(request, work)

    @router.delete("/api/session")
    async def sign_out(request: Request) -> Response:
        async def work() -> Response:
            await gate.players.sign_out(await gate.changing(request))
            response = _json({"ok": True})
            _clear_session(request, response)
            return response

        return await gate.answer(request, work)

    @router.delete("/api/sessions")
    async def sign_out_everywhere(request: Request) -> Response:
        async def work() -> Response:
            ended = await gate.players.sign_out_everywhere(await gate.changing(request))
            response = _json({"ok": True, "sessions_ended": ended})
            _clear_session(request, response)
            return response

        return await gate.answer(request, work)

    @router.get("/api/me/sessions")
    async def sessions(request: Request) -> Response:
        async def work() -> Response:
            return _json({"sessions": await gate.players.sessions(await gate.session(request))})

        return await gate.answer(request, work)

    @router.delete("/api/me/sessions/{session_id}")
    async def end_session(request: Request, session_id: str) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            await gate.players.end_session(current, session_id)
            response = _json({"ok": True})
            if session_id == current.session.id:
                _clear_session(request, response)
            return response

        return await gate.answer(request, work)

    @router.post("/api/me/password")
    async def change_password(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            body = await _body(request)
            signed = await gate.players.change_password(
                current, body.get("old_password"), body.get("new_password"), gate.address(request)
            )
            return gate.signed_in(request, signed)

        return await gate.answer(request, work)


def _device_routes(router: APIRouter, gate: Gate) -> None:
    """A one-time code shown on a signed-in device, redeemed on another."""

    @router.post("/api/me/device-code")
    async def device_code(request: Request) -> Response:
        async def work() -> Response:
            code = await gate.players.create_device_code(await gate.changing(request))
            return _json(
                {"code": code.code, "expires_at": code.expires_at, "qr_svg": code.qr_svg}, 201
            )

        return await gate.answer(request, work)

    @router.post("/api/session/device")
    async def redeem(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            body = await _body(request)
            signed = await gate.players.redeem_device_code(
                body.get("code"), gate.address(request), current.token
            )
            return gate.signed_in(request, signed)

        return await gate.answer(request, work)


def _passkey_routes(router: APIRouter, gate: Gate) -> None:
    """Passkeys: registered from a signed-in browser, used to sign in."""

    @router.post("/api/me/passkeys/options")
    async def passkey_options(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            return _json({"options": await gate.players.passkey_options(current, _site(request))})

        return await gate.answer(request, work)

    @router.post("/api/me/passkeys")
    async def add_passkey(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            body = await _body(request, MAX_CREDENTIAL)
            await gate.players.add_passkey(current, body.get("credential"), _site(request))
            return _json({"ok": True}, 201)

        return await gate.answer(request, work)

    @router.post("/api/session/passkey/options")
    async def passkey_sign_in_options(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            options = await gate.players.passkey_sign_in_options(current, _site(request))
            return _json({"options": options})

        return await gate.answer(request, work)

    @router.post("/api/session/passkey")
    async def passkey_sign_in(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            body = await _body(request, MAX_CREDENTIAL)
            signed = await gate.players.passkey_sign_in(
                current, body.get("credential"), _site(request), gate.address(request)
            )
            return gate.signed_in(request, signed)

        return await gate.answer(request, work)


def _record_routes(router: APIRouter, gate: Gate) -> None:
    """What a player's matches made: my games, public profiles, rating history, leaderboards."""

    @router.get("/api/me/games")
    async def games(request: Request, limit: int = 20, after: str | None = None) -> Response:
        async def work() -> Response:
            page, cursor = await gate.players.history(await gate.session(request), limit, after)
            return _json({"games": [h.to_dict() for h in page], "next": cursor})

        return await gate.answer(request, work)

    @router.get("/api/players/{profile_id}")
    async def public(request: Request, profile_id: str) -> Response:
        async def work() -> Response:
            return _json({"player": await gate.players.public(profile_id)})

        return await gate.answer(request, work)

    @router.get("/api/players/{profile_id}/ratings")
    async def rating_chart(request: Request, profile_id: str, limit: int = 200) -> Response:
        async def work() -> Response:
            return _json({"ratings": await gate.players.rating_chart(profile_id, limit)})

        return await gate.answer(request, work)

    @router.get("/api/leaderboard")
    async def leaderboard(request: Request, limit: int = 100, among: str = "all") -> Response:
        async def work() -> Response:
            if among not in ("all", "played"):
                raise PlayerError(ErrorCode.BAD_OPTION, "among is 'all' or 'played'")
            current = await gate.players.current(request.cookies.get(SESSION_COOKIE))
            if among == "played" and current is None:
                raise PlayerError(PlayerCode.NO_SESSION, "no session: GET /api/me first")
            rows, rank = await gate.players.leaderboard(limit, current, among == "played")
            return _json({"rows": [r.to_dict() for r in rows], "your_rank": rank})

        return await gate.answer(request, work)
