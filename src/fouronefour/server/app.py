"""The HTTP and WebSocket front of the tables (docs/protocol.md), and the static client."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import math
import random
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..bots.levels import LEVELS
from ..engine.rules import BOMB_LADDERS, MIN_PLAYERS
from .backends import is_postgres, make_fanout, make_storage
from .background.analyst import SWEEP_SECONDS, Analyst
from .background.botrunner import BotRunner, ExecutorBotRunner, available_bots
from .clock import AsyncioScheduler
from .collector import keep_collections_short
from .config import ServerConfig
from .errors import ErrorCode, TableError
from .outage import Outage
from .ratelimit import AddressBuckets, address_key
from .registry import Elsewhere, TableRegistry
from .routes.analysisview import (
    audience,
    check_round,
    parse_query,
    round_view,
    rounds_ended,
    token_seat,
)
from .routes.bodies import BodyLimit
from .routes.lessons import lesson_router
from .sockets.admission import Admission
from .sockets.connection import Connection, connection_id, refuse
from .sockets.outbox import Outbox, Sender
from .sockets.session import PROTOCOL, Session
from .storage import Storage, StorageError, StoredAnalysis, StoredTable, written_unless_failing
from .storage.sqlite_retention import OldTables, Retention, ThreadedRetention
from .tables import invites
from .tables.chat import CHAT_LENGTH, CHAT_LINES, CHAT_SECONDS, PHRASES, chat_event
from .tables.fanout import Fanout
from .tables.invites import new_invite
from .tables.model import HOOK_MODES, ONLINE_MAX_DECKS, ONLINE_MAX_PLAYERS
from .tables.replays import build_replay, match_summary
from .tables.settings import ROUND_PAUSE_SECONDS_RANGE
from .tables.table import (
    HOOK_SECONDS_RANGE,
    NAME_LENGTH,
    TURN_SECONDS_RANGE,
    Table,
)
from .tidying import keep_tidy

if TYPE_CHECKING:
    from .cluster.broker import Broker
    from .cluster.redisfanout import RedisFanout
    from .cluster.relay import Operation, Relay, RelayServer
    from .cluster.shared import SharedBuckets, SharedCounts

log = logging.getLogger(__name__)

Seat = dict[str, Any]

WEB_DIR = Path(__file__).resolve().parent.parent / "web"

_STATUS = {
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
}

_PLACEHOLDER = """<!doctype html><html lang="en"><meta charset="utf-8"><title>414</title>
<body><h1>414</h1><p>The server is running; the browser client is not installed here.
See docs/protocol.md to play with examples/client.py.</p></body></html>"""


def _json(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


def _error(error: TableError) -> Response:
    response = _json({"error": error.to_dict()}, _STATUS.get(error.code, 400))
    if isinstance(error, RateLimited):
        response.headers["Retry-After"] = str(error.retry_after)
    retry_ms = (error.details or {}).get("retry_after_ms")
    if isinstance(retry_ms, int):
        response.headers["Retry-After"] = str(max(1, math.ceil(retry_ms / 1000)))
    return response


class RateLimited(TableError):
    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(ErrorCode.RATE_LIMITED, message)
        self.retry_after = retry_after


async def _json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (its size was checked on the way in: bodies.py)."""
    body = await request.body()
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise TableError(ErrorCode.BAD_JSON, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise TableError(ErrorCode.BAD_JSON, "the body must be a JSON object")
    return data


class AddressLimiter:
    """The limit on HTTP requests that change something (creating a table, taking a seat),
    per client address: one address cannot fill the server with tables.

    Loopback clients and those without an address (this machine, a Unix socket) are not
    limited. Behind a reverse proxy on the same machine every client would look like one of
    those: the proxy must connect over 127.0.0.1 and send ``X-Forwarded-For`` (uvicorn
    trusts it from 127.0.0.1 only), which names the real address. The buckets are this
    process's own, or a cluster's in Redis (``shared``, shared.py)."""

    def __init__(
        self,
        rate_per_second: float,
        burst: int,
        limit_loopback: bool = False,
        shared: SharedBuckets | None = None,
    ) -> None:
        self._buckets = AddressBuckets(rate_per_second, burst)
        self._shared = shared
        self._limit_loopback = limit_loopback

    async def check(self, request: Request) -> None:
        """Count the request, or raise ``rate_limited`` if the address is over its limit."""
        key = address_key(request.client.host if request.client else None, self._limit_loopback)
        if key is None:
            return
        shared = self._shared
        wait = self._buckets.take(key) if shared is None else await shared.take(key)
        if wait:
            seconds = max(1, math.ceil(min(3600.0, wait)))
            raise RateLimited(
                f"too many tables created or seats taken from {key}: try again in {seconds} s",
                seconds,
            )


class FailedLookups:
    """Invite codes are short enough to guess (31^6, and every table's code is one of
    them): each client address may ask for ``burst`` codes that are no table, then one every
    ``1 / rate_per_second`` seconds. While it has none left, every lookup from it is refused
    (``rate_limited``), a table's code too, so that a refusal tells nothing. Loopback
    clients are not limited, unless ``limit_loopback`` (AddressLimiter says why). In a
    cluster the buckets are shared by its processes (``shared``), so that guessing through
    several processes gains nothing."""

    def __init__(
        self,
        rate_per_second: float,
        burst: int,
        limit_loopback: bool,
        shared: SharedBuckets | None = None,
    ) -> None:
        self._buckets = AddressBuckets(rate_per_second, burst)
        self._shared = shared
        self._limit_loopback = limit_loopback

    async def find(
        self, registry: TableRegistry, code: str, host: str | None, invite: object = None
    ) -> Table:
        """The table of ``code``; a private one only with its ``invite`` (``ANY``: checked
        later, at a WebSocket's hello)."""
        key = address_key(host, self._limit_loopback)
        shared = self._shared
        if key is not None:
            wait = self._buckets.wait(key) if shared is None else await shared.wait(key)
            if wait:
                seconds = max(1, math.ceil(min(3600.0, wait)))
                raise RateLimited(
                    f"too many unknown table codes asked for from {key}: try again in {seconds} s",
                    seconds,
                )
        try:
            table = await registry.get(code)
            if invite is not ANY and not invites.admits(table.options.invite_hash, invite):
                raise invites.not_found(table.code)
        except TableError as error:
            if error.code is ErrorCode.TABLE_NOT_FOUND:
                await self.failed(host)
            raise
        return table

    async def failed(self, host: str | None) -> None:
        """Count a failed lookup that was found out after ``find`` (a private table's wrong
        handoff secret, or an answer relayed from the table's owner)."""
        key = address_key(host, self._limit_loopback)
        if key is not None:
            if self._shared is None:
                self._buckets.take(key)
            else:
                await self._shared.take(key)


#: ``FailedLookups.find``'s invite for a lookup whose invite is checked later.
ANY = object()


#: How long a read that shows changes not yet written waits for them (then: 503).
READ_SECONDS = 2.0

#: How often a cluster looks for tables being played that no process owns.
ADOPT_SECONDS = 1.0


async def adopt_orphans(registry: TableRegistry, broker: Broker) -> None:
    """Take over the tables being played whose owner is gone (those with clients are taken
    over sooner, by the process a reconnecting client reaches). One process of the cluster
    looks each period (:meth:`Broker.take_turn`): the look reads every table being played, so
    every process looking every second would cost the database in proportion to both."""
    lookout = Outage(log, "the look for tables without an owner")
    while True:
        await asyncio.sleep(ADOPT_SECONDS * random.uniform(0.5, 1.0))
        if registry.storage.failed:
            continue  # (no table can be taken over while the database cannot be written)
        try:
            if await broker.take_turn("adopt", ADOPT_SECONDS * 0.5):
                await registry.adopt_orphans()
        except StorageError:
            pass  # the database away: its outage is logged once (postgres.py); tried again
        except Exception as error:
            lookout.failed(error, "tried again every second")
        else:
            lookout.back()


def create_app(
    config: ServerConfig,
    storage: Storage | None = None,
    fanout: Fanout | None = None,
    bots: BotRunner | None = None,
) -> FastAPI:
    """The server application; storage, fan-out and bot runner may be replaced."""
    storage = storage or make_storage(config)
    cluster: RedisFanout | None = None
    if fanout is None:
        fanout, cluster = make_fanout(config, storage)
    # In a cluster: the tables this process owns take requests relayed by the others, and
    # it relays those it does not own (relay.py); set up below.
    relay: Relay | None = None
    relay_server: RelayServer | None = None
    sender = Sender()
    registry = TableRegistry(config, storage, fanout)
    # The per-address limits a cluster's processes share, in Redis (shared.py); the
    # connections per address (guard.py) stay each process's: they guard its descriptors.
    shared_http = shared_lookups = None
    watchers: SharedCounts | None = None
    if cluster is not None:
        from .cluster.shared import Place, SharedBuckets, SharedCounts

        broker = cluster.broker
        shared_http = SharedBuckets(
            broker, "http", config.http_rate_per_second, config.http_rate_burst
        )
        shared_lookups = SharedBuckets(
            broker, "lookups", config.lookup_rate_per_second, config.lookup_burst
        )
        watchers = SharedCounts(broker, "spectators", config.max_spectators_per_address)
    # Rounds analysed in worker processes as they end (analysis.py).
    analyst = Analyst(
        storage, config.analysis_processes, config.analysis_worlds, config.analysis_queue
    )
    registry.analyst = analyst

    async def analyses_here(code: str) -> bool:
        """Whether this process analyses table ``code``'s rounds: its owner does, and
        anybody those of a deleted table's kept matches."""
        if code in registry.tables:
            return True
        try:
            await registry.get(code)
        except Elsewhere:
            return False
        except TableError as error:
            return error.code is ErrorCode.TABLE_NOT_FOUND
        return True

    analyst.owns = analyses_here
    limiter = AddressLimiter(
        config.http_rate_per_second, config.http_rate_burst, config.limit_loopback, shared_http
    )
    lookups = FailedLookups(
        config.lookup_rate_per_second, config.lookup_burst, config.limit_loopback, shared_lookups
    )

    async def find(code: str, client: Any, invite: object = None) -> Table:
        """The table of ``code`` for a client (``request.client``, ``websocket.client``);
        a private table only with its ``invite`` (invites.py)."""
        return await lookups.find(registry, code, client.host if client else None, invite)

    admission = Admission(
        config.max_connections_per_seat,
        config.max_spectators_per_table,
        config.max_spectators_per_address,
    )
    registry.admission = admission

    # Old tables leave the database; their finished matches stay (retention.py).
    retention: OldTables | None = None

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        nonlocal retention
        loop = asyncio.get_running_loop()
        await storage.open()
        await fanout.open()
        if relay_server is not None and relay is not None:
            relay_server.start()
            relay.start()
        runner = bots or ExecutorBotRunner(loop, processes=config.bot_processes)
        await registry.start(AsyncioScheduler(loop), runner)
        analyst.start()
        adopting = None
        if cluster is not None:
            adopting = asyncio.create_task(adopt_orphans(registry, cluster.broker))
        # Long-lived start-up objects need no collection passes, nor, later, the sockets and
        # tables that come and stay (collector.py).
        gc.collect()
        gc.freeze()
        collector = asyncio.create_task(
            keep_collections_short(config.gc_freeze_seconds, config.gc_full_seconds)
        )
        path = getattr(storage, "path", ":memory:")
        url = getattr(storage, "url", None)
        tidying = None
        if isinstance(url, str) and is_postgres(url):  # (a cluster's: one pass at a time)
            from .storage.postgres_retention import PostgresRetention

            retention = PostgresRetention(url, config.keep_days, config.keep_replay_days)
        elif path != ":memory:":
            try:
                retention = ThreadedRetention(
                    Retention(path, config.keep_days, config.keep_replay_days)
                )
            except sqlite3.Error as error:  # (a read-only file: nothing to delete anyway)
                log.warning("old tables are kept: %s", error)
        if retention is not None and config.keep_days > 0:
            tidying = asyncio.create_task(keep_tidy(retention, registry))
        try:
            yield
        finally:
            collector.cancel()
            if adopting is not None:
                adopting.cancel()
            if relay_server is not None and relay is not None:
                await relay.shutdown()
                await relay_server.shutdown()
            if tidying is not None:
                tidying.cancel()
            if retention is not None:
                await retention.close()
            await analyst.shutdown()
            runner.close()
            await fanout.shutdown()
            await storage.shutdown()

    app = FastAPI(title="414", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.registry = registry
    app.state.analyst = analyst

    # Every HTTP error has the API's body, also for paths and methods it does not have.
    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        code = ErrorCode.UNKNOWN_TYPE if error.status_code in (404, 405) else ErrorCode.BAD_MESSAGE
        text = f"no {request.method} {request.url.path} here (docs/protocol.md, section 2)"
        response = _json(
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
        return _error(TableError(ErrorCode.BAD_MESSAGE, "the request does not fit its path"))

    app.add_middleware(BodyLimit, limit=config.max_message_bytes)

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

    @app.get("/sw.js", include_in_schema=False)
    async def service_worker() -> Response:
        # Served from the root so that it may look after "/" and "/t/{code}" (a worker's
        # scope is the folder it is served from); no-cache so an update is seen at once.
        worker = WEB_DIR / "static" / "sw.js"
        if not worker.is_file():
            return Response(status_code=404)
        return FileResponse(
            worker, media_type="text/javascript", headers={"Cache-Control": "no-cache"}
        )

    app.mount("/static", StaticFiles(directory=WEB_DIR / "static", check_dir=False), name="static")

    # ------------------------------------------------------------ HTTP API

    # Learn 414: stateless lessons, their steps limited per address (lessons.py)
    app.include_router(lesson_router(config.limit_loopback))

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
                "levels": [level.to_dict() for level in LEVELS],
                "default_bot": defaults.bot,
                "defaults": {
                    **{
                        key: value
                        for key, value in defaults.public().items()
                        if key not in ("decks", "bot")
                    },
                    **registry.default_settings().to_dict(),
                },
                "limits": {
                    "min_players": MIN_PLAYERS,
                    "max_players": ONLINE_MAX_PLAYERS,
                    "max_decks": ONLINE_MAX_DECKS,
                    "name_length": NAME_LENGTH,
                    "max_message_bytes": config.max_message_bytes,
                    "turn_seconds": list(TURN_SECONDS_RANGE),
                    "hook_seconds": list(HOOK_SECONDS_RANGE),
                    "round_pause_seconds": list(ROUND_PAUSE_SECONDS_RANGE),
                    "chat_length": CHAT_LENGTH,
                },
                "choices": {"bomb_ladder": list(BOMB_LADDERS), "hook_mode": list(HOOK_MODES)},
                "chat": {
                    "phrases": list(PHRASES),
                    "lines": CHAT_LINES,
                    "per_seconds": CHAT_SECONDS,
                },
            }
        )

    @app.post("/api/tables")
    async def create_table(request: Request) -> Response:
        try:
            await limiter.check(request)
            data = await _json_body(request)
            invite, invite_hash = new_invite() if data.get("private") is True else (None, None)
            table, token = await registry.create(data, invite_hash)
        except TableError as error:
            return _error(error)
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
        return _json(created, 201)

    # Calls carried out at a table, by its owner (here, or through the broker: relay.py).

    # (A private table answers only with its invite, in the body, as a code that is no table
    # would; a handoff's secret is enough for itself: invites.py.)

    def summary_of(table: Table, body: dict[str, Any]) -> dict[str, Any]:
        invited(table, body)
        if storage.failed and storage.durable_seq < storage.staged_seq:
            # A read waits for no write (it could wait as long as the outage): refused at
            # once, as it is by the other processes, which cannot reach the database.
            raise TableError(
                ErrorCode.STORAGE_ERROR, "the server cannot write its database just now"
            )
        return table.summary()

    def join_table(table: Table, body: dict[str, Any]) -> dict[str, Any]:
        invited(table, body)
        token = table.seating.join(body.get("name"), body.get("seat"), body.get("token"))
        return {"seat": table.seat_for_token(token), "token": token, "table": table.summary()}

    def claim_seat(table: Table, body: dict[str, Any]) -> dict[str, Any]:
        seat, token = table.handoffs.claim(body.get("handoff"), body.get("name"), body.get("token"))
        return {"seat": seat, "token": token, "table": table.summary()}

    def invited(table: Table, body: dict[str, Any]) -> None:
        if not invites.admits(table.options.invite_hash, body.get("invite")):
            raise invites.not_found(table.code)

    operations: dict[str, Operation] = {
        "summary": summary_of,
        "join": join_table,
        "claim": claim_seat,
    }

    async def at_table(code: str, request: Request, what: str, body: dict[str, Any]) -> Response:
        """Carry out ``what`` at the table ``code``, wherever it is owned; what it changed is
        written before the answer (a seat's token is handed out once the seat is kept)."""
        client = request.client
        try:
            table = await find(code, client, ANY if what == "claim" else body.get("invite"))
        except TableError as error:
            return _error(error)
        except Elsewhere:
            return await relayed(code, what, body, client)
        try:
            answer = operations[what](table, body)
        except TableError as error:
            if error.code is ErrorCode.TABLE_NOT_FOUND:  # (a private table, kept hidden)
                await lookups.failed(client.host if client else None)
            return _error(error)
        if what == "summary":  # (shows what may not be written yet, and changes nothing)
            if not await written_unless_failing(storage, storage.staged_seq, READ_SECONDS):
                return _error(
                    TableError(ErrorCode.STORAGE_ERROR, "the server cannot write its database")
                )
        else:
            await storage.wait_durable(storage.staged_seq)
        if table.retired:  # (taken over meanwhile: what it changed may not be written)
            return _error(TableError(ErrorCode.OWNER_UNAVAILABLE, "the table moved: try again"))
        return _json(answer)

    async def relayed(code: str, what: str, body: dict[str, Any], client: Any) -> Response:
        if relay is None:  # (a table owned elsewhere with no broker: another process's file)
            return _error(TableError(ErrorCode.STORAGE_ERROR, "the table is served elsewhere"))
        from .cluster.relay import OwnerGone

        address = address_key(client.host if client else None, config.limit_loopback)
        try:
            status, answer = await relay.call(code.upper(), what, body, address)
        except OwnerGone as error:
            return _error(error.error())
        if status == 404:  # (a private table its owner kept hidden: a failed lookup here too)
            await lookups.failed(client.host if client else None)
        return Response(answer, status_code=status, media_type="application/json")

    if cluster is not None:
        from .cluster.relay import Relay, RelayServer

        relay = Relay(cluster.broker, cluster)
        relay_server = RelayServer(
            cluster.broker,
            storage,
            cluster,
            admission,
            operations,
            lambda error: _STATUS.get(error.code, 400),
            registry.hold,
            registry.release,
        )
        registry.hooks = relay_server

    @app.get("/api/tables/{code}")
    async def get_table(code: str, request: Request) -> Response:
        return await at_table(code, request, "summary", {"invite": request.headers.get("x-invite")})

    @app.post("/api/tables/{code}/join")
    async def join(code: str, request: Request) -> Response:
        try:
            await limiter.check(request)
            data = await _json_body(request)
        except TableError as error:
            return _error(error)
        return await at_table(code, request, "join", data)

    @app.post("/api/tables/{code}/claim")
    async def claim(code: str, request: Request) -> Response:
        try:
            await limiter.check(request)
            data = await _json_body(request)
        except TableError as error:
            return _error(error)
        return await at_table(code, request, "claim", data)

    async def finished(
        code: str, client: Any, invite: object
    ) -> tuple[str, dict[int, list[Seat]], int, Table | StoredTable | None]:
        """A table's code, its finished matches with their seats (seat, name, kind), its
        current match number and the table (here, or as stored if another process owns it);
        for a deleted table, its kept matches (retention.py) and no table."""
        held: Table | StoredTable | None
        try:
            held = await find(code, client, invite)
        except TableError as error:
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
                held = await storage.fetch_table(code.upper())
            except StorageError as error:
                raise TableError(ErrorCode.STORAGE_ERROR, str(error)) from None
            if held is None:
                raise TableError(ErrorCode.TABLE_NOT_FOUND, f"no table {code!r}") from None
        seats: list[Seat] = [{"seat": s.seat, "name": s.name, "kind": s.kind} for s in held.seats]
        return held.code, dict.fromkeys(held.finished_matches, seats), held.match_number, held

    @app.get("/api/tables/{code}/replays")
    async def replays(code: str, request: Request) -> Response:
        try:
            code, matches, _, _ = await finished(
                code, request.client, request.headers.get("x-invite")
            )
        except TableError as error:
            return _error(error)
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
            return _error(TableError(ErrorCode.STORAGE_ERROR, str(error)))
        return _json({"matches": listing})

    @app.get("/api/tables/{code}/replays/{match}")
    async def replay(code: str, match: str, request: Request) -> Response:
        try:
            code, matches, current, _ = await finished(
                code, request.client, request.headers.get("x-invite")
            )
            # (Parsed here, not by FastAPI: its refusal would not be this API's error body.)
            number = int(match) if match.isascii() and match.isdigit() and len(match) < 10 else 0
            if number not in matches:
                if 1 <= number <= current:
                    raise TableError(
                        ErrorCode.MATCH_IN_PROGRESS,
                        f"match {number} is not over: no replay while it is played",
                    )
                raise TableError(ErrorCode.REPLAY_NOT_FOUND, f"no match {match!r} at this table")
        except TableError as error:
            return _error(error)
        seats = matches[number]
        try:
            stored = await storage.fetch_match(code, number)
            chat = [] if stored is None else await storage.fetch_chat(code, number)
        except StorageError as error:
            return _error(TableError(ErrorCode.STORAGE_ERROR, str(error)))
        if stored is None:
            return _error(TableError(ErrorCode.REPLAY_NOT_FOUND, f"no match {number}"))
        # Replaying a whole match is CPU work: beside the loop, not on it.
        body = await run_in_threadpool(build_replay, code, stored, seats)
        body["chat"] = [
            {"step": line.step, **{k: v for k, v in chat_event(line).items() if k != "type"}}
            for line in chat
        ]
        return _json(body)

    @app.get("/api/tables/{code}/analysis")
    async def round_analysis(code: str, request: Request) -> Response:
        """A round's analysis: a seat's own decisions once the round has ended, everyone's
        once the match is over (analysisview.py)."""
        query, headers = request.query_params, request.headers
        try:
            asked = parse_query(query.get("round"), query.get("match"))
            code, matches, current, held = await finished(
                code, request.client, headers.get("x-invite")
            )
            number = asked.match_number or current
            hashes = [] if held is None else [s.token_hash for s in held.seats]
            whose = audience(
                number, current, list(matches), token_seat(headers.get("x-token"), hashes)
            )
            key = (code, number, asked.round_number)
            stored = await storage.fetch_analysis(*key)
            if stored is None:  # not due: a round not ended, or ended before analysis was on
                if (
                    isinstance(held, Table)
                    and held.match is not None
                    and held.match_number == number
                ):
                    ended, over = len(held.match.results), held.match.is_over
                else:
                    match = await storage.fetch_match(code, number)
                    if match is None:
                        raise TableError(ErrorCode.REPLAY_NOT_FOUND, f"no match {number}")
                    ended, over = await run_in_threadpool(rounds_ended, match), match.over
                check_round(asked.round_number, ended, over)
                if not analyst.enabled:
                    raise TableError(ErrorCode.NO_ANALYSIS, "this server does not analyse rounds")
                stored = StoredAnalysis(number, asked.round_number)
                await storage.store_analysis(code, stored)  # due: its owner analyses it
            if stored.error is not None:
                raise TableError(
                    ErrorCode.NO_ANALYSIS, f"the round could not be analysed: {stored.error}"
                )
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
        except TableError as error:
            return _error(error)
        except StorageError as error:
            return _error(TableError(ErrorCode.STORAGE_ERROR, str(error)))
        return _json(round_view(code, stored, whose))

    # ------------------------------------------------------------ WebSocket

    @app.websocket("/ws/{code}")
    async def websocket(websocket: WebSocket, code: str) -> None:
        await websocket.accept()
        # (Connections are limited at hello, when it is known whose they are: admission.py.)
        address = address_key(
            websocket.client.host if websocket.client else None, config.limit_loopback
        )
        outbox = Outbox(websocket, storage, sender, connection_id())
        # (In a cluster an address's spectators are counted across it, shared.py.)
        place = None if watchers is None or address is None else Place(watchers, address)
        try:
            table = await find(code, websocket.client, ANY)  # (invite: at hello)
        except TableError as error:
            if error.code is ErrorCode.TABLE_NOT_FOUND:
                # Refused after the hello, as a private table asked for without its invite
                # is: the moment of the refusal tells nothing either.
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(websocket.receive(), config.hello_timeout)
            await refuse(websocket, error)
            return
        except Elsewhere:
            if relay is None:
                await refuse(websocket, TableError(ErrorCode.STORAGE_ERROR, "served elsewhere"))
                return
            client = await relay.connect(code.upper(), outbox, address)
            await Connection(websocket, config, outbox, client, place).serve(storage.flush)
            return
        registry.hold(table.code)
        try:
            session = Session(table, fanout, admission, address, outbox)
            await Connection(websocket, config, outbox, session, place).serve(storage.flush)
        finally:
            registry.release(table.code)

    return app
