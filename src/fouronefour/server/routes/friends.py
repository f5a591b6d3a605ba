"""Friends over HTTP and the profile socket ``/ws/me`` (docs/friends.md): the lists,
requests, blocks and invites, each answered as the players' routes answer (:class:`Gate`:
the session cookie, and the CSRF header on every change); and one WebSocket a signed-in page
keeps open, over which it hears its friends' statuses and invites live.

The profile socket is the page's only: it needs the session cookie and the page's own
Origin (a socket is no fetch: another site's page could open one with the cookies). The
documented protocol client, without cookies, never opens one and is unaffected.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections import deque
from typing import TYPE_CHECKING, Any

import orjson
from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import Response
from starlette.websockets import WebSocketDisconnect

from ..errors import ErrorCode
from ..friends.errors import FriendError
from ..friends.service import Friends, table_code
from ..players.service import Players
from ..ratelimit import TokenBucket
from ..storage import StorageError
from .players import SESSION_COOKIE, Gate, _body, _json

if TYPE_CHECKING:
    from .state import ServerState

log = logging.getLogger(__name__)

#: A profile's sockets on one process at most (its tabs and devices), the messages one may
#: have waiting to be sent (more: it is closed, its page reconnects and reads the lists
#: again), the largest message a page sends, and how many a second it may send.
MOST_SOCKETS = 12
MOST_WAITING = 256
MAX_MESSAGE = 512
MESSAGES_PER_SECOND, MESSAGE_BURST = 2.0, 20
#: How often an open profile socket's session is looked at again (a session ended elsewhere
#: closes it within about this long).
RECHECK_SECONDS = 120.0


class ProfileSocket:
    """One page's profile socket: what it is sent waits in a short queue, sent in order by a
    task of its own (a page that stops reading is closed, and holds up nobody)."""

    def __init__(self, websocket: WebSocket, profile: str) -> None:
        self.websocket = websocket
        self._profile = profile
        self._waiting: deque[bytes] = deque()
        self._wake = asyncio.Event()
        #: Why it is being closed (its close code and reason), once it is.
        self.closing: tuple[int, str] | None = None

    @property
    def profile(self) -> str:
        return self._profile

    def send(self, message: dict[str, Any]) -> None:
        if self.closing is not None:
            return
        if len(self._waiting) >= MOST_WAITING:
            self.close(1013, "too slow")  # (it reconnects, and reads everything again)
            return
        self._waiting.append(orjson.dumps(message))
        self._wake.set()

    def close(self, code: int = 1008, reason: str = "signed out") -> None:
        if self.closing is None:
            self.closing = (code, reason)
        self._wake.set()

    async def write(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._waiting and self.closing is None:
                await self.websocket.send_text(self._waiting.popleft().decode())
            if self.closing is not None:
                with contextlib.suppress(Exception):
                    await self.websocket.close(*self.closing)
                return


async def _recheck(socket: ProfileSocket, players: Players, token: str) -> None:
    """Close the socket once its session ends (signed out everywhere, a new password): looked
    at every :data:`RECHECK_SECONDS` or so (a deletion closes it at once: presence.drop)."""
    while socket.closing is None:
        await asyncio.sleep(RECHECK_SECONDS * random.uniform(0.75, 1.25))
        with contextlib.suppress(StorageError):  # (the database away: looked at next time)
            if await players.current(token) is None:
                socket.close()


def _page_origin(websocket: WebSocket) -> bool:
    """Whether a socket was opened by a page of this server (or by no browser at all)."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    host = websocket.headers.get("host", "").lower()
    scheme = "https" if websocket.url.scheme == "wss" else "http"
    return origin.lower() in {f"{scheme}://{host}", f"https://{host}"}


def friends_router(state: ServerState) -> APIRouter:
    friends = state.friends
    assert friends is not None
    gate = Gate(state.players, state.config.limit_loopback)
    router = APIRouter()
    _friend_routes(router, gate, friends)
    _block_and_invite_routes(router, gate, friends)
    _profile_socket_route(router, state, friends)
    return router


def _friend_routes(router: APIRouter, gate: Gate, friends: Friends) -> None:
    """The lists, and a friendship asked, accepted, declined, withdrawn and ended."""
    answer = gate.answer

    @router.get("/api/friends")
    async def lists(request: Request) -> Response:
        async def work() -> Response:
            return _json(await friends.lists(await gate.session(request)))

        return await answer(request, work)

    @router.post("/api/friends/requests")
    async def ask(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            return _json(await friends.request(current, await _body(request)), 201)

        return await answer(request, work)

    @router.post("/api/friends/requests/{other}/accept")
    async def accept(request: Request, other: str) -> Response:
        async def work() -> Response:
            return _json(await friends.accept(await gate.changing(request), other))

        return await answer(request, work)

    @router.delete("/api/friends/requests/{other}")
    async def decline(request: Request, other: str) -> Response:
        async def work() -> Response:
            await friends.decline(await gate.changing(request), other)
            return _json({"ok": True})

        return await answer(request, work)

    @router.delete("/api/friends/requests/sent/{other}")
    async def withdraw(request: Request, other: str) -> Response:
        async def work() -> Response:
            await friends.withdraw(await gate.changing(request), other)
            return _json({"ok": True})

        return await answer(request, work)

    @router.delete("/api/friends/{other}")
    async def remove(request: Request, other: str) -> Response:
        async def work() -> Response:
            await friends.remove(await gate.changing(request), other)
            return _json({"ok": True})

        return await answer(request, work)


def _block_and_invite_routes(router: APIRouter, gate: Gate, friends: Friends) -> None:
    """Blocks, and invites to one's table: sent, waiting, seen."""
    answer = gate.answer

    @router.post("/api/friends/blocks")
    async def block(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            await friends.block(current, (await _body(request)).get("id"))
            return _json({"ok": True}, 201)

        return await answer(request, work)

    @router.delete("/api/friends/blocks/{other}")
    async def unblock(request: Request, other: str) -> Response:
        async def work() -> Response:
            await friends.unblock(await gate.changing(request), other)
            return _json({"ok": True})

        return await answer(request, work)

    @router.post("/api/friends/invites")
    async def invite(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            return _json(await friends.invite(current, await _body(request)), 201)

        return await answer(request, work)

    @router.get("/api/friends/invites")
    async def waiting(request: Request) -> Response:
        async def work() -> Response:
            return _json({"invites": await friends.invites(await gate.session(request))})

        return await answer(request, work)

    @router.post("/api/friends/invites/{invite_id}/seen")
    async def seen(request: Request, invite_id: str) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            return _json({"ok": await friends.seen(current.profile.id, invite_id)})

        return await answer(request, work)


def _profile_socket_route(router: APIRouter, state: ServerState, friends: Friends) -> None:
    """``/ws/me``: a signed-in page's socket for its friends' statuses and its invites."""
    open_sockets: dict[str, int] = {}

    @router.websocket("/ws/me")
    async def profile_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            current = (
                await state.players.current(websocket.cookies.get(SESSION_COOKIE))
                if _page_origin(websocket)
                else None
            )
        except StorageError:
            current = None
        profile = None if current is None else current.profile.id
        if profile is None or open_sockets.get(profile, 0) >= MOST_SOCKETS:
            refusal = "no_session" if profile is None else str(ErrorCode.TOO_MANY_CONNECTIONS)
            with contextlib.suppress(Exception):
                await websocket.send_text(orjson.dumps({"type": "error", "code": refusal}).decode())
                await websocket.close(1008, refusal)
            return
        socket = ProfileSocket(websocket, profile)
        open_sockets[profile] = open_sockets.get(profile, 0) + 1
        loop = asyncio.get_running_loop()
        writer = loop.create_task(socket.write())
        token = websocket.cookies.get(SESSION_COOKIE, "")
        rechecking = loop.create_task(_recheck(socket, state.players, token))
        try:
            await friends.presence.attach(socket)
            assert current is not None
            socket.send({"type": "invites", "invites": await friends.invites(current)})
            await _read(websocket, socket, state, friends, writer)
        except (WebSocketDisconnect, StorageError):
            pass
        finally:
            friends.presence.detach(socket)
            writer.cancel()
            rechecking.cancel()
            open_sockets[profile] -= 1
            if not open_sockets[profile]:
                del open_sockets[profile]


async def _read(
    websocket: WebSocket,
    socket: ProfileSocket,
    state: ServerState,
    friends: Friends,
    writer: asyncio.Task[None],
) -> None:
    """A page's messages: ``at`` (the table it is at, checked), ``seen`` (an invite),
    ``ping``. Anything else, too large or too many, closes the socket."""
    loop = asyncio.get_running_loop()
    bucket = TokenBucket(MESSAGES_PER_SECOND, MESSAGE_BURST, loop.time())
    while not writer.done():
        text = await websocket.receive_text()
        now = loop.time()
        if len(text) > MAX_MESSAGE or bucket.wait(now) > 0:
            await websocket.close(1008, "too large or too many")
            return
        bucket.take(now)
        try:
            message = orjson.loads(text)
        except orjson.JSONDecodeError:
            message = None
        kind = message.get("type") if isinstance(message, dict) else None
        assert isinstance(message, dict) or kind is None
        if kind == "ping":
            socket.send({"type": "pong"})
        elif kind == "at":
            table = await _checked_table(friends, socket.profile, message)
            friends.presence.at_table(socket, table)
        elif kind == "seen":
            try:
                await friends.seen(socket.profile, message.get("id"))
            except FriendError as error:
                socket.send({"type": "error", **error.to_dict()})
        else:
            socket.send({"type": "error", "code": str(ErrorCode.BAD_MESSAGE)})


async def _checked_table(friends: Friends, profile: str, message: dict[str, Any]) -> str | None:
    """The table a page says it is at, if its profile holds a seat there (else none)."""
    code = message.get("table")
    if code is None:
        return None
    try:
        if await friends.holds_seat(profile, code, message.get("invite")):
            return table_code(code)
    except (FriendError, StorageError):
        pass
    return None
