"""One WebSocket connection: what a client sends, read and checked (docs/protocol.md
section 3).

A connection reads its client's frames, refuses what is too large, too frequent, not JSON
or out of turn (no hello yet), and hands every other message to its handler: the
:class:`~.session.Session` that carries it out at the table (here, when this process holds
the table; through the broker when another one does, :mod:`.relay`). What the client is sent
goes through the connection's one :class:`~.outbox.Outbox`.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import secrets
import time
from collections.abc import Callable
from typing import Any, Protocol

import orjson
from fastapi import WebSocket
from starlette.websockets import WebSocketDisconnect

from ..config import ServerConfig
from ..errors import ErrorCode, TableError
from ..ratelimit import TokenBucket
from .outbox import Outbox
from .session import CLIENT_TYPES, PROTOCOL, error_message


class Place(Protocol):
    """A connection's place among its address's spectators in a cluster (the cluster's shared
    limits hand them out): taken at a spectator's hello, given back when it ends."""

    held: bool
    #: The address it is counted under.
    key: str

    @property
    def limit(self) -> int: ...

    async def take(self) -> bool: ...

    def give_back(self) -> None: ...


__all__ = ["PROTOCOL", "Connection", "Handler", "connection_id", "refuse"]

#: How long a closing connection waits for its last messages and the close to be sent.
CLOSE_SECONDS = 2.0


async def refuse(websocket: WebSocket, error: TableError, close_code: int = 1008) -> None:
    with contextlib.suppress(Exception):
        await websocket.send_text(
            orjson.dumps({"type": "error", "id": None, **error.to_dict()}).decode()
        )
        await websocket.close(close_code, error.code)


def connection_id() -> int:
    """A connection's id, unique in the cluster for as long as the connection lasts (acks are
    addressed by it)."""
    return secrets.randbits(63)


def _valid_id(request_id: object) -> bool:
    """An ``id`` a client may give: text up to 64 characters, or an integer."""
    return (isinstance(request_id, str) and len(request_id) <= 64) or (
        isinstance(request_id, int) and not isinstance(request_id, bool)
    )


class Handler(Protocol):
    """What carries out a connection's checked messages (a :class:`~.session.Session`)."""

    @property
    def greeted(self) -> bool:
        """The client's hello was accepted."""
        ...

    def handle(self, kind: str, data: dict[str, Any], request_id: object) -> None: ...

    def leave(self) -> None:
        """The connection ended."""
        ...


class Connection:
    """One WebSocket: a player of one seat or a spectator."""

    def __init__(
        self,
        websocket: WebSocket,
        config: ServerConfig,
        outbox: Outbox,
        handler: Handler,
        place: Place | None = None,
    ) -> None:
        self.websocket = websocket
        self.config = config
        self.outbox = outbox
        self.handler = handler
        #: In a cluster, the connection's place among its address's spectators (shared.py),
        #: taken before a hello without a token is carried out; None: counted by the table's
        #: admission alone.
        self.place = place
        self._bucket = TokenBucket(config.rate_per_second, config.rate_burst, time.monotonic())
        # Refused messages sent before the time the last refusal named: a client that waits
        # as told never gets one; one forgiven a second (``rate_strikes`` close).
        self._strikes = 0.0
        self._struck_at = 0.0
        self._retry_at = 0.0

    async def serve(self, flush: Callable[[], None]) -> None:
        """Read until the client goes or the connection is closed; ``flush`` starts writing
        what is staged (the client's answer waits for it)."""
        handler = self.handler
        outbox = self.outbox
        try:
            while not outbox.closed:
                if handler.greeted:  # (no wait_for: one coroutine less a message)
                    message = await self.websocket.receive()
                else:
                    try:
                        message = await asyncio.wait_for(
                            self.websocket.receive(), self.config.hello_timeout
                        )
                    except TimeoutError:
                        self._error(None, ErrorCode.HELLO_REQUIRED, "send hello first")
                        outbox.close(1008, "no hello")
                        break
                if message["type"] == "websocket.disconnect":
                    break
                checked = self._handle_frame(message.get("text"), message.get("bytes"))
                if checked is not None:
                    kind, data, request_id = checked
                    if kind != "hello" or self.place is None or await self._may_watch(data):
                        handler.handle(kind, data, request_id)
                # The client's answer (its update and ack, an error) leaves in this pass of
                # the loop, its change written first with whatever else is staged; the other
                # seats' updates at the end of the pass (Sender): every mover of the pass is
                # answered first.
                if len(outbox):
                    flush()
                    outbox.drain()
                    await outbox.unblocked()
        except (WebSocketDisconnect, RuntimeError):
            pass  # the client went away (RuntimeError: receive after a close)
        finally:
            handler.leave()
            if self.place is not None:
                self.place.give_back()
            outbox.close(1000, "")
            with contextlib.suppress(Exception):
                await asyncio.wait_for(outbox.done.wait(), CLOSE_SECONDS)

    def _error(self, request_id: object, code: ErrorCode, message: str) -> None:
        self.outbox.send(error_message(request_id, code, message), 0)

    async def _may_watch(self, hello: dict[str, Any]) -> bool:
        """Whether a hello may be carried out: a spectator's (no token) takes a place among
        its address's spectators in the cluster, or is refused and closed."""
        place = self.place
        if place is None or self.handler.greeted or hello.get("token") is not None:
            return True
        if await place.take():
            return True
        self._error(
            hello.get("id"),
            ErrorCode.TOO_MANY_CONNECTIONS,
            f"{place.key} watches with its maximum of {place.limit} connections",
        )
        self.outbox.close(1008, str(ErrorCode.TOO_MANY_CONNECTIONS))
        return False

    def _handle_frame(
        self, text: str | None, binary: bytes | None
    ) -> tuple[str, dict[str, Any], object] | None:
        """Check one frame: refusals are answered here; a message to carry out is returned
        (its type, body and id)."""
        limit = self.config.max_message_bytes
        size = len(binary or b"") if text is None else len(text)
        if text is not None and size > limit // 4:  # (UTF-8: at most 4 bytes a character)
            size = len(text.encode())
        if size > limit:
            self._error(
                None,
                ErrorCode.TOO_LARGE,
                f"messages are limited to {self.config.max_message_bytes} bytes",
            )
            self.outbox.close(1009, "message too large")
            return None
        data = None
        if text is not None:
            with contextlib.suppress(orjson.JSONDecodeError):
                data = orjson.loads(text)
        # Parsed before the rate limit, so that a refusal names the message it refused.
        request_id = data.get("id") if isinstance(data, dict) else None
        id_valid = request_id is None or _valid_id(request_id)
        now = time.monotonic()
        if not self._bucket.take(now):
            answer_to = request_id if id_valid else None
            if now < self._retry_at:
                self._strikes = max(0.0, self._strikes - (now - self._struck_at)) + 1
                self._struck_at = now
                if self._strikes > self.config.rate_strikes:
                    self._error(answer_to, ErrorCode.RATE_LIMITED, "too many messages: closing")
                    self.outbox.close(1008, "flooding")
                    return None
            wait = self._bucket.wait(now)
            self._retry_at = now + wait
            retry_ms = max(1, math.ceil(wait * 1000))
            self.outbox.send(
                orjson.dumps(
                    {
                        "type": "error",
                        "id": answer_to,
                        "code": str(ErrorCode.RATE_LIMITED),
                        "message": f"too many messages: send this one again in {retry_ms} ms",
                        "retry_after_ms": retry_ms,
                    }
                ),
                0,
            )
            return None
        if not isinstance(data, dict):
            if text is None:
                self._error(None, ErrorCode.BAD_JSON, "messages are JSON text, not binary frames")
            else:
                self._error(None, ErrorCode.BAD_JSON, "a message is one JSON object")
            if not self.handler.greeted:  # whatever this is, it does not speak the protocol
                self.outbox.close(1008, "no hello")
            return None
        if not id_valid:
            self._error(None, ErrorCode.BAD_MESSAGE, "id must be text (up to 64) or an integer")
            return None
        kind = data.get("type")
        if kind not in CLIENT_TYPES:
            if not self.handler.greeted:
                self._error(request_id, ErrorCode.HELLO_REQUIRED, "send hello first")
                self.outbox.close(1008, "no hello")
                return None
            self._error(request_id, ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind!r}")
            return None
        if not self.handler.greeted and kind != "hello":
            self._error(request_id, ErrorCode.HELLO_REQUIRED, "send hello first")
            self.outbox.close(1008, "no hello")
            return None
        return kind, data, request_id
