"""Clubs over HTTP (docs/clubs.md, "HTTP"): the clubs of the signed-in profile, a club's
page, its admins' tools, its leaderboard, history and chat wall, joining by an invite link,
and the club's table link. Every call needs a session (``GET /api/me`` makes one); every
change also the page's CSRF header (:class:`~.players.Gate`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..clubs.errors import ClubError
from ..clubs.service import Clubs
from ..clubs.tablelink import ClubTables
from ..errors import ErrorCode, TableError
from ..players.service import Current
from .answers import json_object
from .players import Gate
from .static import index

if TYPE_CHECKING:
    from .state import ServerState

#: The largest request body read.
MAX_BODY = 4096
#: What an admin may do to a member (POST /api/clubs/{id}/members/{profile}).
ACTIONS = ("promote", "demote", "kick", "ban")


def _json(body: Any, status: int = 200) -> Response:
    response = Response(orjson.dumps(body), status_code=status, media_type="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


@dataclass(frozen=True)
class _Calls:
    """How a clubs' route reads the session, checks a change and answers (a club's refusal
    with its status, and ``Retry-After`` when there is a time to wait)."""

    gate: Gate

    async def answer(self, request: Request, work: Callable[[], Awaitable[Response]]) -> Response:
        async def guarded() -> Response:
            try:
                return await work()
            except ClubError as error:
                response = _json({"error": error.to_dict()}, error.status)
                if error.retry_after is not None:
                    response.headers["Retry-After"] = str(max(1, int(error.retry_after + 0.999)))
                return response
            except TableError as error:  # (a body that is no JSON object)
                return _json({"error": error.to_dict()}, 400)

        return await self.gate.answer(request, guarded)

    def reading(
        self, work: Callable[[Current], Awaitable[Any]]
    ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            async def act() -> Response:
                return _json(await work(await self.gate.session(request)))

            return await self.answer(request, act)

        return run

    def changing(
        self, work: Callable[[Current, dict[str, Any]], Awaitable[Any]], status: int = 200
    ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            async def act() -> Response:
                current = await self.gate.changing(request)
                return _json(await work(current, await _body_of(request)), status)

            return await self.answer(request, act)

        return run


async def _body_of(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise ClubError(ErrorCode.TOO_LARGE, f"a body has at most {MAX_BODY} bytes")
    return json_object(raw) if raw else {}


def clubs_router(state: ServerState) -> APIRouter:
    calls = _Calls(Gate(state.players, state.config.limit_loopback))
    router = APIRouter()
    _club_routes(router, calls, state.clubs)
    _member_routes(router, calls, state.clubs)
    _wall_routes(router, calls, state.clubs)
    _table_route(router, calls, state)
    # The client's pages: the club list, a club, its table link and an invite link.
    for path in ("/clubs", "/c/join", "/c/{club_id}", "/c/{club_id}/table"):
        router.add_api_route(path, _page, methods=["GET"], include_in_schema=False)
    return router


def _club_routes(router: APIRouter, calls: _Calls, clubs: Clubs) -> None:
    """A profile's clubs: listed, made, joined by an invite, a club's page and settings."""
    reading, changing = calls.reading, calls.changing

    @router.get("/api/clubs")
    async def mine(request: Request) -> Response:
        return await reading(lambda me: _listed(clubs, me))(request)

    @router.post("/api/clubs")
    async def create(request: Request) -> Response:
        return await changing(lambda me, body: clubs.create(me.profile.id, body.get("name")), 201)(
            request
        )

    @router.post("/api/clubs/invite")
    async def preview(request: Request) -> Response:
        """What an invite link shows before joining (the invite rides in the body, never in a
        URL a log would keep)."""
        return await changing(lambda me, body: clubs.preview(body.get("invite")))(request)

    @router.post("/api/clubs/join")
    async def join(request: Request) -> Response:
        return await changing(lambda me, body: clubs.join(me.profile.id, body.get("invite")))(
            request
        )

    @router.get("/api/clubs/{club_id}")
    async def page(club_id: str, request: Request) -> Response:
        return await reading(lambda me: clubs.page(club_id, me.profile.id))(request)

    @router.patch("/api/clubs/{club_id}")
    async def change(club_id: str, request: Request) -> Response:
        return await changing(lambda me, body: clubs.change(club_id, me.profile.id, body))(request)

    @router.post("/api/clubs/{club_id}/invite")
    async def rotate(club_id: str, request: Request) -> Response:
        return await changing(lambda me, body: clubs.rotate_invite(club_id, me.profile.id))(request)


def _member_routes(router: APIRouter, calls: _Calls, clubs: Clubs) -> None:
    """Leaving a club, and what its admins do to a member."""
    changing = calls.changing

    @router.post("/api/clubs/{club_id}/leave")
    async def leave(club_id: str, request: Request) -> Response:
        async def gone(me: Current, body: dict[str, Any]) -> dict[str, Any]:
            await clubs.leave(club_id, me.profile.id)
            return {"left": club_id}

        return await changing(gone)(request)

    @router.post("/api/clubs/{club_id}/members/{profile_id}")
    async def act_on(club_id: str, profile_id: str, request: Request) -> Response:
        async def act(me: Current, body: dict[str, Any]) -> dict[str, Any]:
            action = body.get("action")
            if action not in ACTIONS:
                raise ClubError(ErrorCode.BAD_MESSAGE, f"action is one of {', '.join(ACTIONS)}")
            method = getattr(clubs, str(action))
            result: dict[str, Any] = await method(club_id, me.profile.id, profile_id)
            return result

        return await changing(act)(request)

    @router.delete("/api/clubs/{club_id}/bans/{profile_id}")
    async def unban(club_id: str, profile_id: str, request: Request) -> Response:
        return await changing(lambda me, body: clubs.unban(club_id, me.profile.id, profile_id))(
            request
        )


def _wall_routes(router: APIRouter, calls: _Calls, clubs: Clubs) -> None:
    """A club's leaderboard, history and chat wall."""
    reading, changing = calls.reading, calls.changing

    @router.get("/api/clubs/{club_id}/leaderboard")
    async def leaderboard(club_id: str, request: Request) -> Response:
        return await reading(lambda me: clubs.leaderboard(club_id, me.profile.id))(request)

    @router.get("/api/clubs/{club_id}/history")
    async def history(club_id: str, request: Request) -> Response:
        return await reading(lambda me: clubs.history(club_id, me.profile.id))(request)

    @router.get("/api/clubs/{club_id}/chat")
    async def chat(club_id: str, request: Request) -> Response:
        return await reading(lambda me: clubs.chat(club_id, me.profile.id))(request)

    @router.post("/api/clubs/{club_id}/chat")
    async def say(club_id: str, request: Request) -> Response:
        return await changing(
            lambda me, body: clubs.say(club_id, me.profile.id, body.get("text")), 201
        )(request)


def _table_route(router: APIRouter, calls: _Calls, state: ServerState) -> None:
    tables = ClubTables(
        state.clubs, state.registry, state.storage, state.relay, notifier=lambda: state.notifier
    )

    @router.post("/api/clubs/{club_id}/table")
    async def table(club_id: str, request: Request) -> Response:
        """The club's table link: a seat at the club's table of the evening (a new table if
        it has no room); the answer is a seat's, with the table's invite."""

        async def open_table(me: Current, body: dict[str, Any]) -> dict[str, Any]:
            opened = await tables.open(club_id, me.profile.id, me.profile.name)
            if state.node is not None:  # (a cluster: where the table's sockets go)
                opened.setdefault("node", state.node)
            return opened

        return await calls.changing(open_table)(request)


async def _page() -> Response:
    return index()


async def _listed(clubs: Clubs, me: Current) -> dict[str, Any]:
    return {"clubs": await clubs.mine(me.profile.id)}
