"""The WebSocket endpoint ``/ws/{code}`` (docs/protocol.md, section 3): one connection to
a table, served here (a session) or relayed to its owner (relay.py); and ``/api/sockets``,
how many of each this process holds (in a cluster behind a load balancer that routes by
``?node=``, the relayed ones should be few: docs/hosting.md, section 4)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from fastapi import APIRouter, WebSocket
from fastapi.responses import Response

from ..errors import ErrorCode, TableError
from ..ratelimit import address_key
from ..registry import Elsewhere
from ..sockets.connection import Connection, connection_id, refuse
from ..sockets.outbox import Outbox
from ..sockets.session import Session
from .answers import json_answer
from .limits import ANY

if TYPE_CHECKING:
    from .state import ServerState


def sockets_router(state: ServerState) -> APIRouter:
    router = APIRouter()
    config, registry = state.config, state.registry
    # Sockets open now and since the start, served here and relayed to another process.
    counts = {"here": 0, "relayed": 0, "here_total": 0, "relayed_total": 0}

    @router.get("/api/sockets")
    async def sockets() -> Response:
        return json_answer({"node": state.node, **counts})

    @router.websocket("/ws/{code}")
    async def websocket(websocket: WebSocket, code: str) -> None:
        await websocket.accept()
        storage = state.storage
        # (Connections are limited at hello, when it is known whose they are: admission.py.)
        address = address_key(
            websocket.client.host if websocket.client else None, config.limit_loopback
        )
        outbox = Outbox(websocket, storage, state.sender, connection_id())
        # (In a cluster an address's spectators are counted across it, shared.py.)
        place = None
        if state.watchers is not None and address is not None:
            from ..cluster.shared import Place

            place = Place(state.watchers, address)
        try:
            table = await state.find(code, websocket.client, ANY)  # (invite: at hello)
        except TableError as error:
            if error.code is ErrorCode.TABLE_NOT_FOUND:
                # Refused after the hello, as a private table asked for without its invite
                # is: the moment of the refusal tells nothing either.
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(websocket.receive(), config.hello_timeout)
            await refuse(websocket, error)
            return
        except Elsewhere:
            if state.relay is None:
                await refuse(websocket, TableError(ErrorCode.STORAGE_ERROR, "served elsewhere"))
                return
            client = await state.relay.connect(code.upper(), outbox, address)
            counts["relayed"] += 1
            counts["relayed_total"] += 1
            try:
                await Connection(websocket, config, outbox, client, place).serve(storage.flush)
            finally:
                counts["relayed"] -= 1
            return
        registry.hold(table.code)
        counts["here"] += 1
        counts["here_total"] += 1
        try:
            session = Session(table, state.fanout, state.admission, address, outbox, state.node)
            await Connection(websocket, config, outbox, session, place).serve(storage.flush)
        finally:
            counts["here"] -= 1
            registry.release(table.code)

    return router
