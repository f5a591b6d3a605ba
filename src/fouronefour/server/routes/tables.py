"""The tables over HTTP (docs/protocol.md, section 2): create one, read its summary, take a
seat, claim a handed-off seat, take a signed-in player's seat back. Each call is carried
out by the table's owner, here or through the broker (relay.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..errors import ErrorCode, TableError
from ..ratelimit import address_key
from ..registry import Elsewhere
from ..storage import written_unless_failing
from ..tables.invites import new_invite
from .answers import error_answer, json_answer, json_body
from .limits import ANY
from .operations import PROFILE
from .sessions import page_profile

if TYPE_CHECKING:
    from .state import ServerState

#: How long a read that shows changes not yet written waits for them (then: 503).
READ_SECONDS = 2.0


def tables_router(state: ServerState) -> APIRouter:
    router = APIRouter()

    @router.post("/api/tables")
    async def create_table(request: Request) -> Response:
        try:
            await state.limiter.check(request)
            data = await json_body(request)
            invite, invite_hash = new_invite() if data.get("private") is True else (None, None)
            profile = await page_profile(state.players, request)
            table, token = await state.registry.create(data, invite_hash, profile)
        except TableError as error:
            return error_answer(error)
        created = {
            "code": table.code,
            "link": f"/t/{table.code}",
            "seat": table.host_seat,
            "token": token,
            "table": table.summary(),
        }
        if invite is not None:  # (the server keeps only its hash: the host keeps the link)
            created["invite"] = invite
            created["link"] = f"/t/{table.code}#invite={invite}"
        if state.node is not None:  # (a cluster: where its sockets go, docs/hosting.md)
            created["node"] = state.node
        return json_answer(created, 201)

    @router.get("/api/tables/{code}")
    async def get_table(code: str, request: Request) -> Response:
        body = {"invite": request.headers.get("x-invite")}
        return await at_table(state, code, request, "summary", body)

    @router.post("/api/tables/{code}/join")
    async def join(code: str, request: Request) -> Response:
        return await changing(code, request, "join")

    @router.post("/api/tables/{code}/claim")
    async def claim(code: str, request: Request) -> Response:
        return await changing(code, request, "claim")

    @router.post("/api/tables/{code}/return")
    async def come_back(code: str, request: Request) -> Response:
        """A signed-in player's seat, taken back on this device (docs/players.md)."""
        return await changing(code, request, "return")

    async def changing(code: str, request: Request, what: str) -> Response:
        """A call that changes the table: limited per address, its body a JSON object."""
        try:
            await state.limiter.check(request)
            data = await json_body(request)
        except TableError as error:
            return error_answer(error)
        # (The profile is the session's, never the body's: what the client sent goes.)
        data[PROFILE] = await page_profile(state.players, request)
        if what == "return" and data[PROFILE] is None:
            no_session = "taking your seat back needs a signed-in session from this page"
            return error_answer(TableError(ErrorCode.NOT_SIGNED_IN, no_session))
        return await at_table(state, code, request, what, data)

    return router


async def at_table(
    state: ServerState, code: str, request: Request, what: str, body: dict[str, Any]
) -> Response:
    """Carry out ``what`` at the table ``code``, wherever it is owned; what it changed is
    written before the answer (a seat's token is handed out once the seat is kept)."""
    client, storage = request.client, state.storage
    try:
        table = await state.find(code, client, ANY if what == "claim" else body.get("invite"))
    except TableError as error:
        return error_answer(error)
    except Elsewhere:
        return await relayed(state, code, what, body, client)
    try:
        answer = state.operations[what](table, body)
    except TableError as error:
        if error.code is ErrorCode.TABLE_NOT_FOUND:  # (a private table, kept hidden)
            await state.lookups.failed(client.host if client else None)
        return error_answer(error)
    if what == "summary":  # (shows what may not be written yet, and changes nothing)
        if not await written_unless_failing(storage, storage.staged_seq, READ_SECONDS):
            return error_answer(
                TableError(ErrorCode.STORAGE_ERROR, "the server cannot write its database")
            )
    else:
        await storage.wait_durable(storage.staged_seq)
    if table.retired:  # (taken over meanwhile: what it changed may not be written)
        return error_answer(TableError(ErrorCode.OWNER_UNAVAILABLE, "the table moved: try again"))
    if state.node is not None:  # (a cluster: the owner's name, where sockets go)
        answer = {**answer, "node": state.node}
    return json_answer(answer)


async def relayed(
    state: ServerState, code: str, what: str, body: dict[str, Any], client: Any
) -> Response:
    relay = state.relay
    if relay is None:  # (a table owned elsewhere with no broker: another process's file)
        return error_answer(TableError(ErrorCode.STORAGE_ERROR, "the table is served elsewhere"))
    from ..cluster.relay import OwnerGone

    address = address_key(client.host if client else None, state.config.limit_loopback)
    try:
        status, answer = await relay.call(code.upper(), what, body, address)
    except OwnerGone as error:
        return error_answer(error.error())
    if status == 404:  # (a private table its owner kept hidden: a failed lookup here too)
        await state.lookups.failed(client.host if client else None)
    return Response(answer, status_code=status, media_type="application/json")
