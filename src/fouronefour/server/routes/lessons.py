"""Learn 414 over HTTP (docs/protocol.md section 2, "Lessons"; docs/tutorial.md).

Stateless: a step request carries the learner's moves so far, the lesson is replayed from
its deal, and nothing is kept between requests, so no table, token or name is needed. The
replay (engine and bots) runs in the thread pool, never on the event loop; its size is
bounded by the app's body limit (bodies.py) and the number of moves, and each client address
may ask for so many steps a second (a token bucket, as for the rest of the HTTP API).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response
from starlette.concurrency import run_in_threadpool

from ... import lessons, web
from ..errors import ErrorCode, TableError
from ..ratelimit import AddressBuckets, address_key
from .answers import json_answer, json_object

#: More decisions than any lesson asks of a learner (the longest, a whole round, needs ~30).
MAX_MOVES = 100
#: The longest move text accepted (a move has at most 27 cards at 4 players).
MAX_MOVE_CHARS = 64
#: The one error code of its own: no lesson by that id (HTTP 404).
LESSON_NOT_FOUND = "lesson_not_found"
#: Steps one client address may ask for: bursts of STEP_BURST, then STEP_RATE a second (a
#: learner clicks far less). A step costs up to ~15 ms of a worker thread (the whole round
#: against bots), so one address keeps at most a few percent of a core busy.
STEP_RATE = 4.0
STEP_BURST = 40


class LessonRequestError(Exception):
    def __init__(
        self, code: str, message: str, status: int = 400, retry_after: int | None = None
    ) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status
        self.retry_after = retry_after  # seconds, for a 429


def _refuse(error: LessonRequestError) -> Response:
    body = {"error": {"code": str(error.code), "message": error.message}}
    response = json_answer(body, error.status)
    if error.retry_after is not None:
        response.headers["Retry-After"] = str(error.retry_after)
    return response


def _bad(message: str) -> LessonRequestError:
    return LessonRequestError(ErrorCode.BAD_MESSAGE, message)


def _step_request(body: bytes) -> tuple[list[str], str | None, str]:
    """(moves, try, lang) of a step request, or the reason it is refused."""
    try:
        data = json_object(body)
    except TableError as error:
        raise LessonRequestError(error.code, error.message) from None
    unknown = sorted(set(data) - {"moves", "try", "lang"})
    if unknown:
        raise _bad(f"unknown field(s): {', '.join(unknown)}")
    moves = data.get("moves", [])
    if not isinstance(moves, list) or not all(isinstance(move, str) for move in moves):
        raise _bad("moves must be a list of move texts")
    if len(moves) > MAX_MOVES:
        raise _bad(f"at most {MAX_MOVES} moves")
    attempt = data.get("try")
    if attempt is not None and not isinstance(attempt, str):
        raise _bad("try must be a move text or null")
    if any(len(move) > MAX_MOVE_CHARS for move in [*moves, attempt or ""]):
        raise _bad(f"a move text has at most {MAX_MOVE_CHARS} characters")
    lang = data.get("lang", "en")
    if lang not in lessons.LANGUAGES:
        raise _bad(f"lang must be one of {', '.join(lessons.LANGUAGES)}")
    return moves, attempt, lang


def _step(lesson_id: str, moves: list[str], attempt: str | None, lang: str) -> dict[str, Any]:
    try:
        lesson = lessons.get(lesson_id)
    except lessons.LessonNotFound:
        raise LessonRequestError(LESSON_NOT_FOUND, f"no lesson {lesson_id!r}", 404) from None
    try:
        return lessons.respond(lesson, moves, attempt, lang)
    except lessons.LessonMovesError as error:
        raise _bad(str(error)) from None


def _index() -> Response:
    """The app's page: the client routes /learn and /learn/{id} itself."""
    return FileResponse(Path(web.__file__).parent / "index.html", media_type="text/html")


def lesson_router(limit_loopback: bool = False) -> APIRouter:
    """The lesson routes, with their own per-address limit on steps (loopback clients are
    not limited unless ``limit_loopback``, as in limits.py's AddressLimiter)."""
    router = APIRouter()
    steps = AddressBuckets(STEP_RATE, STEP_BURST)

    def count_step(request: Request) -> None:
        key = address_key(request.client.host if request.client else None, limit_loopback)
        wait = steps.take(key) if key is not None else 0.0
        if wait:
            seconds = max(1, math.ceil(min(3600.0, wait)))
            raise LessonRequestError(
                ErrorCode.RATE_LIMITED,
                f"too many lesson steps from {key}: try again in {seconds} s",
                429,
                seconds,
            )

    @router.get("/api/lessons")
    async def list_lessons() -> Response:
        return json_answer({"lessons": await run_in_threadpool(lessons.catalogue)})

    @router.post("/api/lessons/{lesson_id}/step")
    async def step(lesson_id: str, request: Request) -> Response:
        try:
            count_step(request)
            # The app's BodyLimit (bodies.py) has refused any body over 4096 bytes already.
            moves, attempt, lang = _step_request(await request.body())
            return json_answer(await run_in_threadpool(_step, lesson_id, moves, attempt, lang))
        except LessonRequestError as error:
            return _refuse(error)

    @router.get("/learn", include_in_schema=False)
    async def learn() -> Response:
        return _index()

    @router.get("/learn/{lesson_id}", include_in_schema=False)
    async def learn_lesson(lesson_id: str) -> Response:
        return _index()

    return router
