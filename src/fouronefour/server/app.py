"""The HTTP and WebSocket front of the tables (docs/protocol.md), and the static client."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from .botrunner import HINT_BOT, BotRunner, ExecutorBotRunner, available_bots, decide, resolve_bot
from .clock import AsyncioScheduler
from .config import ServerConfig
from .errors import ErrorCode, TableError
from .fanout import Fanout, InProcessFanout
from .registry import TableRegistry
from .replay import build_replay
from .storage import GroupCommitStorage, Storage
from .table import (
    HOOK_SECONDS_RANGE,
    MAX_DECKS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME_LENGTH,
    TURN_SECONDS_RANGE,
    Table,
    Update,
)

log = logging.getLogger(__name__)

PROTOCOL = 1
WEB_DIR = Path(__file__).resolve().parent.parent / "web"
#: Messages queued for one slow connection before it is dropped (it can reconnect).
MAX_QUEUED = 2000
CLIENT_TYPES = ("hello", "move", "back", "hint", "fill_bots", "start", "play_again", "ping")

_STATUS = {
    ErrorCode.TABLE_NOT_FOUND: 404,
    ErrorCode.REPLAY_NOT_FOUND: 404,
    ErrorCode.MATCH_IN_PROGRESS: 409,
    ErrorCode.SEAT_TAKEN: 409,
    ErrorCode.WRONG_STATUS: 409,
    ErrorCode.TOO_MANY_TABLES: 503,
}

_PLACEHOLDER = """<!doctype html><html lang="en"><meta charset="utf-8"><title>414</title>
<body><h1>414</h1><p>The server is running; the browser client is not installed here.
See docs/protocol.md to play with examples/client.py.</p></body></html>"""


def _json(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


def _error(error: TableError) -> Response:
    return _json({"error": error.to_dict()}, _STATUS.get(error.code, 400))


async def _json_body(request: Request, limit: int) -> dict[str, Any]:
    body = await request.body()
    if len(body) > limit:
        raise TableError(ErrorCode.TOO_LARGE, f"request bodies are limited to {limit} bytes")
    try:
        data = orjson.loads(body or b"{}")
    except orjson.JSONDecodeError:
        raise TableError(ErrorCode.BAD_JSON, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise TableError(ErrorCode.BAD_JSON, "the body must be a JSON object")
    return data


def create_app(
    config: ServerConfig,
    storage: Storage | None = None,
    fanout: Fanout | None = None,
    bots: BotRunner | None = None,
) -> FastAPI:
    """The server application; storage, fan-out and bot runner may be replaced."""
    storage = storage or GroupCommitStorage(config.db)
    gate = storage if isinstance(storage, GroupCommitStorage) else None
    registry = TableRegistry(config, storage, fanout or InProcessFanout())

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        if gate is not None:
            gate.bind(loop)
        runner = bots or ExecutorBotRunner(loop, processes=config.bot_processes)
        registry.start(AsyncioScheduler(loop), runner)
        # Long-lived start-up objects need no collection passes (PERFORMANCE.md: gc pauses).
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            runner.close()
            registry.storage.close()

    app = FastAPI(title="414", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.registry = registry

    # ------------------------------------------------------------ static client

    def index() -> Response:
        page = WEB_DIR / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(_PLACEHOLDER)

    @app.get("/", include_in_schema=False)
    async def home() -> Response:
        return index()

    @app.get("/t/{code}", include_in_schema=False)
    async def invite(code: str) -> Response:
        return index()

    app.mount("/static", StaticFiles(directory=WEB_DIR / "static", check_dir=False), name="static")

    # ------------------------------------------------------------ HTTP API

    @app.get("/api/health")
    async def health() -> Response:
        return _json({"ok": True, "tables": len(registry.tables)})

    @app.get("/api/config")
    async def server_config() -> Response:
        defaults = registry.default_options()
        return _json(
            {
                "protocol": PROTOCOL,
                "bots": available_bots(),
                "default_bot": defaults.bot,
                "defaults": {
                    key: value
                    for key, value in defaults.to_dict().items()
                    if key not in ("decks", "bot")
                },
                "limits": {
                    "min_players": MIN_PLAYERS,
                    "max_players": MAX_PLAYERS,
                    "max_decks": MAX_DECKS,
                    "name_length": NAME_LENGTH,
                    "max_message_bytes": config.max_message_bytes,
                    "turn_seconds": list(TURN_SECONDS_RANGE),
                    "hook_seconds": list(HOOK_SECONDS_RANGE),
                },
            }
        )

    @app.post("/api/tables")
    async def create_table(request: Request) -> Response:
        try:
            data = await _json_body(request, config.max_message_bytes)
            table, token = registry.create(data)
        except TableError as error:
            return _error(error)
        return _json(
            {
                "code": table.code,
                "link": f"/t/{table.code}",
                "seat": table.host_seat,
                "token": token,
                "table": table.summary(),
            },
            201,
        )

    @app.get("/api/tables/{code}")
    async def get_table(code: str) -> Response:
        try:
            return _json(registry.get(code).summary())
        except TableError as error:
            return _error(error)

    @app.post("/api/tables/{code}/join")
    async def join(code: str, request: Request) -> Response:
        try:
            table = registry.get(code)
            data = await _json_body(request, config.max_message_bytes)
            token = table.join(data.get("name"), data.get("seat"))
            seat = table.seat_for_token(token)
        except TableError as error:
            return _error(error)
        if gate is not None:  # the seat is on disk before its token is handed out
            await gate.wait_durable(gate.staged_seq)
        return _json({"seat": seat, "token": token, "table": table.summary()})

    @app.get("/api/tables/{code}/replays")
    async def replays(code: str) -> Response:
        try:
            table = registry.get(code)
        except TableError as error:
            return _error(error)
        numbers = list(table.finished_matches)

        def load() -> list[dict[str, Any]]:
            listing = []
            for number in numbers:
                stored = registry.storage.load_match(table.code, number)
                if stored is None:
                    continue
                listing.append({"match": number, "moves": len(stored.moves)})
            return listing

        return _json({"matches": await run_in_threadpool(load)})

    @app.get("/api/tables/{code}/replays/{number}")
    async def replay(code: str, number: int) -> Response:
        try:
            table = registry.get(code)
            if number not in table.finished_matches:
                if 1 <= number <= table.match_number:
                    raise TableError(
                        ErrorCode.MATCH_IN_PROGRESS,
                        f"match {number} is not over: no replay while it is played",
                    )
                raise TableError(ErrorCode.REPLAY_NOT_FOUND, f"no match {number} at this table")
        except TableError as error:
            return _error(error)
        seats = [{"seat": s.seat, "name": s.name, "kind": s.kind} for s in table.seats]

        def build() -> dict[str, Any] | None:
            stored = registry.storage.load_match(table.code, number)
            return None if stored is None else build_replay(table.code, stored, seats)

        body = await run_in_threadpool(build)
        if body is None:
            return _error(TableError(ErrorCode.REPLAY_NOT_FOUND, f"no match {number}"))
        return _json(body)

    # ------------------------------------------------------------ WebSocket

    @app.websocket("/ws/{code}")
    async def websocket(websocket: WebSocket, code: str) -> None:
        await websocket.accept()
        try:
            table = registry.get(code)
        except TableError as error:
            await _refuse(websocket, error)
            return
        if registry.fanout.count(table.code) >= config.max_connections_per_table:
            await _refuse(
                websocket,
                TableError(ErrorCode.TOO_MANY_CONNECTIONS, "this table has too many connections"),
            )
            return
        await Connection(websocket, table, registry, config, gate).serve()

    return app


async def _refuse(websocket: WebSocket, error: TableError, close_code: int = 1008) -> None:
    with contextlib.suppress(Exception):
        await websocket.send_text(
            orjson.dumps({"type": "error", "id": None, **error.to_dict()}).decode()
        )
        await websocket.close(close_code, error.code)


class _Close(Exception):
    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class Connection:
    """One WebSocket: a player of one seat or a spectator. Receives its own view only."""

    def __init__(
        self,
        websocket: WebSocket,
        table: Table,
        registry: TableRegistry,
        config: ServerConfig,
        gate: GroupCommitStorage | None = None,
    ) -> None:
        self.gate = gate
        self.websocket = websocket
        self.table = table
        self.registry = registry
        self.config = config
        self.seat: int | None = None
        self.greeted = False
        # (durability sequence number it waits for, message); None: close.
        self._queue: asyncio.Queue[tuple[int, bytes] | None] = asyncio.Queue()
        self._tokens = float(config.rate_burst)
        self._refilled = time.monotonic()
        self._strikes = 0
        self._closing: tuple[int, str] | None = None

    # -- outgoing

    def deliver(self, update: Update) -> None:
        self._put(update.message(self.seat))

    def send(self, body: dict[str, Any]) -> None:
        self._put(orjson.dumps(body))

    def error(self, request_id: object, code: ErrorCode, message: str) -> None:
        self.send({"type": "error", "id": request_id, "code": str(code), "message": message})

    def _put(self, data: bytes) -> None:
        if self._closing is not None:
            return
        if self._queue.qsize() >= MAX_QUEUED:
            self._closing = (1008, "too slow")
            self._queue.put_nowait(None)
            return
        self._queue.put_nowait((0 if self.gate is None else self.gate.staged_seq, data))

    async def _writer(self) -> None:
        gate = self.gate
        while True:
            item = await self._queue.get()
            if item is None:
                code, reason = self._closing or (1000, "")
                with contextlib.suppress(Exception):
                    await self.websocket.close(code, reason)
                return
            seq, data = item
            if gate is not None and seq > gate.durable_seq:
                await gate.wait_durable(seq)  # never send ahead of the disk
            await self.websocket.send_text(data.decode())

    # -- incoming

    async def serve(self) -> None:
        writer = asyncio.create_task(self._writer())
        try:
            await self._read_loop(writer)
        except (WebSocketDisconnect, RuntimeError):
            pass  # the client went away (RuntimeError: receive after a close)
        except _Close as close:
            self._closing = (close.code, close.reason)
            self._queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 2.0)
        finally:
            self.registry.fanout.unsubscribe(self.table.code, self)
            if self.greeted and self.seat is not None:
                self.table.disconnect(self.seat)
            if not writer.done():
                self._closing = self._closing or (1000, "")
                self._queue.put_nowait(None)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(writer, 1.0)
            writer.cancel()

    async def _read_loop(self, writer: asyncio.Task[None]) -> None:
        while True:
            timeout = None if self.greeted else self.config.hello_timeout
            try:
                message = await asyncio.wait_for(self.websocket.receive(), timeout)
            except TimeoutError:
                self.error(None, ErrorCode.HELLO_REQUIRED, "send hello first")
                raise _Close(1008, "no hello") from None
            if message["type"] == "websocket.disconnect":
                return
            if writer.done():
                return
            text = message.get("text")
            if text is None:
                raw = message.get("bytes") or b""
                text = raw.decode("utf-8", "replace")
            self._handle_text(text)

    def _rate_ok(self) -> bool:
        now = time.monotonic()
        self._tokens = min(
            float(self.config.rate_burst),
            self._tokens + (now - self._refilled) * self.config.rate_per_second,
        )
        self._refilled = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    def _handle_text(self, text: str) -> None:
        if len(text) > self.config.max_message_bytes:
            self.error(
                None,
                ErrorCode.TOO_LARGE,
                f"messages are limited to {self.config.max_message_bytes} bytes",
            )
            raise _Close(1009, "message too large")
        if not self._rate_ok():
            self._strikes += 1
            if self._strikes > self.config.rate_strikes:
                self.error(None, ErrorCode.RATE_LIMITED, "too many messages: closing")
                raise _Close(1008, "flooding")
            self.error(None, ErrorCode.RATE_LIMITED, "too many messages: slow down")
            return
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError:
            self.error(None, ErrorCode.BAD_JSON, "the message is not JSON")
            return
        if not isinstance(data, dict):
            self.error(None, ErrorCode.BAD_JSON, "a message is a JSON object")
            return
        request_id = data.get("id")
        if request_id is not None and not (
            (isinstance(request_id, str) and len(request_id) <= 64)
            or (isinstance(request_id, int) and not isinstance(request_id, bool))
        ):
            self.error(None, ErrorCode.BAD_MESSAGE, "id must be text (up to 64) or an integer")
            return
        kind = data.get("type")
        if kind not in CLIENT_TYPES:
            if not self.greeted:
                self.error(request_id, ErrorCode.HELLO_REQUIRED, "send hello first")
                raise _Close(1008, "no hello")
            self.error(request_id, ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind!r}")
            return
        if not self.greeted and kind != "hello":
            self.error(request_id, ErrorCode.HELLO_REQUIRED, "send hello first")
            raise _Close(1008, "no hello")
        try:
            self._dispatch(kind, data, request_id)
        except TableError as error:
            self.error(request_id, error.code, error.message)
            if error.code in (ErrorCode.BAD_TOKEN, ErrorCode.BAD_PROTOCOL):
                raise _Close(1008, str(error.code)) from None

    def _dispatch(self, kind: str, data: dict[str, Any], request_id: object) -> None:
        table = self.table
        if kind == "hello":
            self._hello(data)
            return
        if kind == "ping":
            self.send({"type": "pong", "id": request_id, "server_time": int(time.time() * 1000)})
            return
        seat = self.seat
        if seat is None:
            raise TableError(ErrorCode.NOT_SEATED, "spectators watch; take a seat to play")
        if kind == "move":
            client_id = (
                request_id
                if isinstance(request_id, str)
                else (None if request_id is None else str(request_id))
            )
            ack = table.act(seat, data.get("move"), data.get("v"), client_id)
        elif kind == "back":
            ack = table.back(seat)
        elif kind == "hint":
            self._hint(seat, request_id)
            return
        elif kind == "fill_bots":
            ack = table.fill_bots(seat)
        elif kind == "start":
            ack = table.start(seat)
        else:
            ack = table.play_again(seat)
        self.send(ack.to_dict(request_id))

    def _hello(self, data: dict[str, Any]) -> None:
        table = self.table
        if self.greeted:
            raise TableError(ErrorCode.ALREADY_HELLO, "hello is sent once per connection")
        if data.get("protocol") != PROTOCOL:
            raise TableError(ErrorCode.BAD_PROTOCOL, f"this server speaks protocol {PROTOCOL}")
        since = data.get("since")
        if since is not None and (isinstance(since, bool) or not isinstance(since, int)):
            raise TableError(ErrorCode.BAD_MESSAGE, "since must be an integer version")
        token = data.get("token")
        seat = None
        if token is not None:
            seat = table.seat_for_token(token)
            if seat is None:
                raise TableError(ErrorCode.BAD_TOKEN, "this token holds no seat at this table")
        # From here to the subscription nothing yields: no update can slip in between.
        self.seat = seat
        self.greeted = True
        if seat is not None:
            table.connect(seat)
        self.send(
            {
                "type": "welcome",
                "protocol": PROTOCOL,
                "role": "spectator" if seat is None else "player",
                "seat": seat,
                "host": seat == table.host_seat,
                "v": table.version,
                "server_time": int(time.time() * 1000),
            }
        )
        missed = None if since is None else table.updates_since(since)
        if missed is None:
            self.send(table.snapshot(seat))
        else:
            for update in missed:
                self.deliver(update)
        self.registry.fanout.subscribe(table.code, self)

    def _hint(self, seat: int, request_id: object) -> None:
        view, legal = self.table.pending_decision(seat)
        bot = resolve_bot(HINT_BOT)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(None, decide, bot, view, legal, 0)

        def done(f: asyncio.Future[str]) -> None:
            if f.cancelled() or f.exception() is not None:
                self.error(request_id, ErrorCode.NO_DECISION, "no hint available")
                return
            self.send({"type": "hint", "id": request_id, "move": f.result(), "bot": bot})

        future.add_done_callback(done)
