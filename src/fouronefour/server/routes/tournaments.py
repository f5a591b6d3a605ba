"""A club's events over HTTP (docs/tournaments.md, "HTTP"): set one up, list them, read one
(its tables and live standings), register, withdraw, start; and the event's page, ``/e/ID``.
Every call needs the player's session (the players' ``Gate``); every change also its CSRF
header and a place within the address's HTTP limit (limits.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..errors import ErrorCode, TableError
from ..tournaments.errors import EventError
from ..tournaments.service import Tournaments
from .answers import error_answer, json_object
from .players import Gate
from .static import index

if TYPE_CHECKING:
    from ..players.service import Current
    from .state import ServerState

#: The largest body an event's call reads (a setup is a few short fields).
MAX_BODY = 2048


def _json(body: Any, status: int = 200) -> Response:
    response = Response(orjson.dumps(body), status_code=status, media_type="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise EventError(ErrorCode.TOO_LARGE, f"a body has at most {MAX_BODY} bytes")
    if not raw.strip():
        return {}
    try:
        return json_object(raw)
    except TableError as error:
        raise EventError(error.code, error.message) from None


def tournaments_router(state: ServerState) -> APIRouter:
    router = APIRouter()
    gate = Gate(state.players, state.config.limit_loopback)

    def events() -> Tournaments:
        return state.tournaments

    async def reading(request: Request, work: Callable[[Current], Awaitable[Any]]) -> Response:
        async def answer() -> Response:
            return _json(await work(await gate.session(request)))

        return await gate.answer(request, answer)

    async def changing(
        request: Request, work: Callable[[Current, dict[str, Any]], Awaitable[Any]], status: int
    ) -> Response:
        try:
            await state.limiter.check(request)
        except TableError as error:
            return error_answer(error)

        async def answer() -> Response:
            current = await gate.changing(request)
            return _json(await work(current, await _body(request)), status)

        return await gate.answer(request, answer)

    @router.get("/e/{event_id}", include_in_schema=False)
    async def page(event_id: str) -> Response:
        return index()

    @router.get("/c/{club_id}/events", include_in_schema=False)
    async def club_page(club_id: str) -> Response:
        return index()

    @router.post("/api/clubs/{club_id}/events")
    async def set_up(club_id: str, request: Request) -> Response:
        async def work(current: Current, body: dict[str, Any]) -> Any:
            event = await events().set_up(current.profile.id, club_id, body)
            return await events().view(current.profile.id, event.id)

        return await changing(request, work, 201)

    @router.get("/api/clubs/{club_id}/events")
    async def listed(club_id: str, request: Request) -> Response:
        async def work(current: Current) -> Any:
            return {"events": await events().club_events(current.profile.id, club_id)}

        return await reading(request, work)

    @router.get("/api/events/{event_id}")
    async def shown(event_id: str, request: Request) -> Response:
        async def work(current: Current) -> Any:
            return await events().view(current.profile.id, event_id)

        return await reading(request, work)

    @router.post("/api/events/{event_id}/register")
    async def register(event_id: str, request: Request) -> Response:
        async def work(current: Current, body: dict[str, Any]) -> Any:
            await events().register(current.profile.id, event_id, body)
            return await events().view(current.profile.id, event_id)

        return await changing(request, work, 200)

    @router.post("/api/events/{event_id}/withdraw")
    async def withdraw(event_id: str, request: Request) -> Response:
        async def work(current: Current, body: dict[str, Any]) -> Any:
            await events().unregister(current.profile.id, event_id)
            return await events().view(current.profile.id, event_id)

        return await changing(request, work, 200)

    @router.post("/api/events/{event_id}/start")
    async def start(event_id: str, request: Request) -> Response:
        async def work(current: Current, body: dict[str, Any]) -> Any:
            await events().start(current.profile.id, event_id)
            return await events().view(current.profile.id, event_id)

        return await changing(request, work, 200)

    return router
