"""Play again over HTTP (docs/quickmatch.md): the host offers, each player answers, each
page asks for the offer (and, once made, its seat at the new table). Each call is carried
out by the old table's owner, here or relayed (relay.py), and proved by the caller's seat
token at that table (in the body: never a URL's)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..errors import TableError
from ..registry import Elsewhere
from .answers import error_answer, json_answer, json_body
from .limits import ANY
from .tables import relayed

if TYPE_CHECKING:
    from .state import ServerState


def playagain_router(state: ServerState) -> APIRouter:
    router = APIRouter()

    @router.post("/api/tables/{code}/again")
    async def offer(code: str, request: Request) -> Response:
        return await call(code, request, "again", limited=True)

    @router.post("/api/tables/{code}/again/answer")
    async def answer(code: str, request: Request) -> Response:
        return await call(code, request, "again_answer", limited=True)

    @router.post("/api/tables/{code}/again/view")
    async def view(code: str, request: Request) -> Response:
        return await call(code, request, "again_view", limited=False)

    async def call(code: str, request: Request, what: str, limited: bool) -> Response:
        client = request.client
        try:
            if limited:
                await state.limiter.check(request)
            body: dict[str, Any] = await json_body(request)
            # (the token, checked by the offer, is what admits a player of a private table)
            table = await state.find(code, client, ANY)
            return json_answer(state.operations[what](table, body))
        except TableError as error:
            return error_answer(error)
        except Elsewhere:
            return await relayed(state, code, what, body, client)

    return router
