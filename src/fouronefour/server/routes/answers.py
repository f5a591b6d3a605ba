"""What the HTTP API answers: JSON bodies, and each error as its body with its status
(docs/protocol.md, section 2)."""

from __future__ import annotations

import math
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import ErrorCode, TableError

STATUS = {
    ErrorCode.TABLE_NOT_FOUND: 404,
    ErrorCode.REPLAY_NOT_FOUND: 404,
    ErrorCode.MATCH_IN_PROGRESS: 409,
    ErrorCode.SEAT_TAKEN: 409,
    ErrorCode.WRONG_STATUS: 409,
    ErrorCode.TOO_MANY_TABLES: 503,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.STORAGE_ERROR: 503,
    ErrorCode.BROKER_UNAVAILABLE: 503,
    ErrorCode.OWNER_UNAVAILABLE: 503,
    ErrorCode.TOO_LARGE: 413,
    ErrorCode.BAD_TOKEN: 403,
    ErrorCode.KICKED: 403,
    ErrorCode.NOT_FINISHED: 409,
    # Not an error status: asking again is the expected way to wait, and a browser logs
    # every 4xx answer as a failed request in its console.
    ErrorCode.ANALYSIS_PENDING: 202,
    ErrorCode.NO_ANALYSIS: 404,
    ErrorCode.NOT_SIGNED_IN: 401,
}


def status_of(error: TableError) -> int:
    """The HTTP status of an error (400 unless it has one of its own)."""
    return STATUS.get(error.code, 400)


class RateLimited(TableError):
    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(ErrorCode.RATE_LIMITED, message)
        self.retry_after = retry_after


def json_answer(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


def error_answer(error: TableError) -> Response:
    response = json_answer({"error": error.to_dict()}, status_of(error))
    if isinstance(error, RateLimited):
        response.headers["Retry-After"] = str(error.retry_after)
    retry_ms = (error.details or {}).get("retry_after_ms")
    if isinstance(retry_ms, int):
        response.headers["Retry-After"] = str(max(1, math.ceil(retry_ms / 1000)))
    return response


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (its size was checked on the way in: bodies.py)."""
    return json_object(await request.body())


def json_object(body: bytes) -> dict[str, Any]:
    """``body`` as a JSON object, or ``bad_json``."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise TableError(ErrorCode.BAD_JSON, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise TableError(ErrorCode.BAD_JSON, "the body must be a JSON object")
    return data


def answer_errors(app: FastAPI) -> None:
    """Every HTTP error has the API's body, also for paths and methods it does not have."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        code = ErrorCode.UNKNOWN_TYPE if error.status_code in (404, 405) else ErrorCode.BAD_MESSAGE
        text = f"no {request.method} {request.url.path} here (docs/protocol.md, section 2)"
        response = json_answer(
            {
                "error": {
                    "code": str(code),
                    "message": text if code is ErrorCode.UNKNOWN_TYPE else str(error.detail),
                }
            },
            error.status_code,
        )
        response.headers.update(error.headers or {})
        return response

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, error: RequestValidationError) -> Response:
        return error_answer(TableError(ErrorCode.BAD_MESSAGE, "the request does not fit its path"))
