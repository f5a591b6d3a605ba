"""A table's finished matches over HTTP (docs/protocol.md, section 2, "replays"): the list,
and one match replayed move by move with its chat. A deleted table's kept matches too
(retention.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ..errors import ErrorCode, TableError
from ..registry import Elsewhere
from ..storage import StorageError, StoredTable
from ..tables import invites
from ..tables.chat import chat_event
from ..tables.replays import build_replay, match_summary
from ..tables.table import Table
from .answers import error_answer, json_answer

if TYPE_CHECKING:
    from .state import ServerState

Seat = dict[str, Any]


async def finished(
    state: ServerState, code: str, client: Any, invite: object
) -> tuple[str, dict[int, list[Seat]], int, Table | StoredTable | None]:
    """A table's code, its finished matches with their seats (seat, name, kind), its
    current match number and the table (here, or as stored if another process owns it);
    for a deleted table, its kept matches (retention.py) and no table."""
    held: Table | StoredTable | None
    try:
        held = await state.find(code, client, invite)
    except TableError as error:
        retention = state.retention
        if error.code is not ErrorCode.TABLE_NOT_FOUND or retention is None:
            raise
        try:
            archived, invite_hash = await retention.archived(code.upper())
        except Exception as error:  # (the database away: no archive found)
            raise TableError(ErrorCode.STORAGE_ERROR, str(error)) from None
        if not archived or not invites.admits(invite_hash, invite):
            raise
        return code.upper(), archived, max(archived), None
    except Elsewhere:  # (finished matches are in the database, whoever owns the table)
        try:
            held = await state.storage.fetch_table(code.upper())
        except StorageError as error:
            raise TableError(ErrorCode.STORAGE_ERROR, str(error)) from None
        if held is None:
            raise TableError(ErrorCode.TABLE_NOT_FOUND, f"no table {code!r}") from None
    seats: list[Seat] = [{"seat": s.seat, "name": s.name, "kind": s.kind} for s in held.seats]
    return held.code, dict.fromkeys(held.finished_matches, seats), held.match_number, held


def replays_router(state: ServerState) -> APIRouter:
    router = APIRouter()
    storage = state.storage

    @router.get("/api/tables/{code}/replays")
    async def replays(code: str, request: Request) -> Response:
        try:
            code, matches, _, _ = await finished(
                state, code, request.client, request.headers.get("x-invite")
            )
        except TableError as error:
            return error_answer(error)
        try:
            listing = []
            # (A table deleted since keeps its finished matches, retention.py.)
            for summary in await storage.fetch_matches(code):
                if summary.number not in matches:
                    continue
                stored = None
                if summary.winning_team is None or summary.rounds is None:
                    stored = await storage.fetch_match(code, summary.number)
                listing.append(await run_in_threadpool(match_summary, summary, stored))
        except StorageError as error:
            return error_answer(TableError(ErrorCode.STORAGE_ERROR, str(error)))
        return json_answer({"matches": listing})

    @router.get("/api/tables/{code}/replays/{match}")
    async def replay(code: str, match: str, request: Request) -> Response:
        try:
            code, matches, current, _ = await finished(
                state, code, request.client, request.headers.get("x-invite")
            )
            number = _match_number(match, matches, current)
        except TableError as error:
            return error_answer(error)
        seats = matches[number]
        try:
            stored = await storage.fetch_match(code, number)
            chat = [] if stored is None else await storage.fetch_chat(code, number)
        except StorageError as error:
            return error_answer(TableError(ErrorCode.STORAGE_ERROR, str(error)))
        if stored is None:
            return error_answer(TableError(ErrorCode.REPLAY_NOT_FOUND, f"no match {number}"))
        # Replaying a whole match is CPU work: beside the loop, not on it.
        body = await run_in_threadpool(build_replay, code, stored, seats)
        body["chat"] = [
            {"step": line.step, **{k: v for k, v in chat_event(line).items() if k != "type"}}
            for line in chat
        ]
        return json_answer(body)

    return router


def _match_number(match: str, finished: dict[int, list[Seat]], current: int) -> int:
    """The finished match a path names; refuses one being played and one there is not."""
    # (Parsed here, not by FastAPI: its refusal would not be this API's error body.)
    number = int(match) if match.isascii() and match.isdigit() and len(match) < 10 else 0
    if number not in finished:
        if 1 <= number <= current:
            raise TableError(
                ErrorCode.MATCH_IN_PROGRESS,
                f"match {number} is not over: no replay while it is played",
            )
        raise TableError(ErrorCode.REPLAY_NOT_FOUND, f"no match {match!r} at this table")
    return number
