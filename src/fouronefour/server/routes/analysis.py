"""A round's analysis over HTTP (docs/protocol.md, section 2, "analysis"): a seat's own
decisions once the round has ended, everyone's once the match is over (who sees what:
analysisview.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ..background.analyst import SWEEP_SECONDS
from ..errors import ErrorCode, TableError
from ..storage import StorageError, StoredAnalysis, StoredTable
from ..tables.table import Table
from .analysisview import (
    audience,
    check_round,
    parse_query,
    round_view,
    rounds_ended,
    token_seat,
)
from .answers import error_answer, json_answer
from .replays import finished

if TYPE_CHECKING:
    from .state import ServerState


def analysis_router(state: ServerState) -> APIRouter:
    router = APIRouter()

    @router.get("/api/tables/{code}/analysis")
    async def round_analysis(code: str, request: Request) -> Response:
        """A round's analysis, or why there is none (yet)."""
        query, headers = request.query_params, request.headers
        try:
            asked = parse_query(query.get("round"), query.get("match"))
            code, matches, current, held = await finished(
                state, code, request.client, headers.get("x-invite")
            )
            number = asked.match_number or current
            hashes = [] if held is None else [s.token_hash for s in held.seats]
            whose = audience(
                number, current, list(matches), token_seat(headers.get("x-token"), hashes)
            )
            stored = await _analysis(state, (code, number, asked.round_number), held)
        except TableError as error:
            return error_answer(error)
        except StorageError as error:
            return error_answer(TableError(ErrorCode.STORAGE_ERROR, str(error)))
        return json_answer(round_view(code, stored, whose))

    return router


async def _analysis(
    state: ServerState, key: tuple[str, int, int], held: Table | StoredTable | None
) -> StoredAnalysis:
    """The analysis of round ``key`` (code, match, round) once it is made; raises
    ``analysis_pending`` (with when to ask again) while it is due, making it due first if
    the round has ended."""
    storage, analyst = state.storage, state.analyst
    code, number, round_number = key
    stored = await storage.fetch_analysis(*key)
    if stored is None:  # not due: a round not ended, or ended before analysis was on
        if isinstance(held, Table) and held.match is not None and held.match_number == number:
            ended, over = len(held.match.results), held.match.is_over
        else:
            match = await storage.fetch_match(code, number)
            if match is None:
                raise TableError(ErrorCode.REPLAY_NOT_FOUND, f"no match {number}")
            ended, over = await run_in_threadpool(rounds_ended, match), match.over
        check_round(round_number, ended, over)
        if not analyst.enabled:
            raise TableError(ErrorCode.NO_ANALYSIS, "this server does not analyse rounds")
        stored = StoredAnalysis(number, round_number)
        await storage.store_analysis(code, stored)  # due: its owner analyses it
    if stored.error is not None:
        raise TableError(ErrorCode.NO_ANALYSIS, f"the round could not be analysed: {stored.error}")
    if stored.due:
        if not analyst.enabled:
            raise TableError(ErrorCode.NO_ANALYSIS, "this server does not analyse rounds")
        seconds = SWEEP_SECONDS
        if isinstance(held, Table) and analyst.queue(key, asked=True):
            seconds = analyst.retry_after(key)
        raise TableError(
            ErrorCode.ANALYSIS_PENDING,
            "the round is being analysed: ask again later",
            {"retry_after_ms": int(seconds * 1000)},
        )
    return stored
