"""A real ``fouronefour serve`` process and real WebSocket players, for the fault tests.

Nothing here stands in for a server part: the server is the installed command on a free
port with a SQLite file, killed with SIGKILL when a test says so; players speak
docs/protocol.md over sockets, record every byte they receive, and reconnect by themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import websockets
from websockets.asyncio.client import ClientConnection, connect

from ..loopback import HTTP

ROOT = Path(__file__).resolve().parents[2]
#: How long a client waits for the server's answer: far more than it takes (milliseconds),
#: so that a test run on a loaded machine (the other test worker starting clusters and
#: browsers) fails only for an answer that does not come.
ANSWER_SECONDS = 15.0

#: Options of the test tables: short timers so a vanished player costs a fraction of a second.
FAST_TABLE: dict[str, Any] = {
    "turn_seconds": 0.6,
    "hook_seconds": 0.3,
    "hook_mode": "fast",
    "bot": "random",
    "round_pause_seconds": 2,
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """``fouronefour serve`` on a fixed port and database, restartable after a kill."""

    def __init__(
        self,
        db: Path,
        log: Path,
        *,
        bot_delay: float = 0.05,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.db = db
        self.log = log
        self.port = free_port()
        self.bot_delay = bot_delay
        self.extra = extra
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> LiveServer:
        command = [
            sys.executable,
            "-m",
            "fouronefour",
            "serve",
            "--port",
            str(self.port),
            "--db",
            str(self.db),
            "--bot-delay",
            str(self.bot_delay),
            "--log-level",
            "warning",
            "--analysis-processes",
            "0",
            *self.extra,
        ]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited:\n{self.log.read_text()}")
            with contextlib.suppress(httpx.HTTPError):
                if HTTP.get(f"{self.http}/api/health", timeout=1).status_code == 200:
                    return self
            time.sleep(0.05)
        raise RuntimeError("the server did not answer within 60 s")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a crash or an out-of-memory kill."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@contextlib.contextmanager
def running(server: LiveServer) -> Iterator[LiveServer]:
    server.start()
    try:
        yield server
    finally:
        server.stop()


def create_table(server: LiveServer, players: int = 4, **options: Any) -> tuple[str, list[str]]:
    """A table with every seat joined by a human; returns its code and the seat tokens."""
    created = HTTP.post(f"{server.http}/api/tables", json={"name": "P0", **FAST_TABLE, **options})
    created.raise_for_status()
    body = created.json()
    tokens = [body["token"]]
    for seat in range(1, players):
        joined = HTTP.post(
            f"{server.http}/api/tables/{body['code']}/join",
            json={"name": f"P{seat}", "seat": seat},
        )
        joined.raise_for_status()
        tokens.append(joined.json()["token"])
    return body["code"], tokens


def table_summary(server: LiveServer, code: str) -> dict[str, Any]:
    response = HTTP.get(f"{server.http}/api/tables/{code}")
    response.raise_for_status()
    body: dict[str, Any] = response.json()
    return body


# ---------------------------------------------------------------- policies


Policy = Callable[[int, dict[str, Any], Any], str]


def shedding_policy(seat: int, you: dict[str, Any], rng: Any) -> str:
    """Short matches: team 0 sheds its longest combination and claims, team 1 passes."""
    legal: list[str] = you["legal_moves"]
    if seat % 2 == 1 and "pass" in legal:
        return "pass"
    real = [m for m in legal if m != "pass"]
    return max(real, key=len) if real else "pass"


def random_policy(seat: int, you: dict[str, Any], rng: Any) -> str:
    legal: list[str] = you["legal_moves"]
    return str(rng.choice(legal))


# ---------------------------------------------------------------- players


@dataclass
class Player:
    """One connection of a seat (``token`` None: a spectator) that answers its own prompts.

    It applies updates in order, reconnects with ``since`` after a dropped socket or a gap,
    and keeps every text it received (``received``) and every ack of its moves (``acks``).
    """

    ws_base: str
    code: str
    token: str | None
    seat: int | None
    rng: Any
    policy: Policy = shedding_policy
    #: Least seconds between two moves of this connection (the server allows 20 a second).
    min_interval: float = 0.06
    #: Stop (without answering) once this returns True for a message; the player "vanishes".
    vanish_when: Callable[[Player, dict[str, Any]], bool] | None = None
    #: Host: send ``start`` once connected.
    start: bool = False
    version: int | None = None
    you: dict[str, Any] | None = None
    state: dict[str, Any] | None = None
    received: list[str] = field(default_factory=list)
    acks: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    sent_moves: dict[str, tuple[str, int]] = field(default_factory=dict)
    welcomes: list[dict[str, Any]] = field(default_factory=list)
    reconnects: int = 0
    vanished: bool = False
    versions_went_back: int = 0
    _answered: tuple[int, str] | None = None
    _readied: int | None = None  # the round whose end this player said ready to
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _last_move_at: float = 0.0

    @property
    def url(self) -> str:
        return f"{self.ws_base}/ws/{self.code}"

    @property
    def match_over(self) -> bool:
        return bool(self.state and self.state["match_over"])

    async def play(self, until: Callable[[Player], bool], give_up_after: float = 60.0) -> None:
        """Play (reconnecting as needed) until ``until(self)`` or the player vanishes."""
        deadline = time.monotonic() + give_up_after
        while not until(self) and not self.vanished:
            if time.monotonic() > deadline:
                raise TimeoutError(f"seat {self.seat} at {self.code}: no end in sight")
            with contextlib.suppress(OSError, websockets.ConnectionClosed, TimeoutError):
                await self._session(until)
            if not until(self) and not self.vanished:
                self.reconnects += 1
                await asyncio.sleep(0.1)

    async def _session(self, until: Callable[[Player], bool]) -> None:
        async with connect(self.url, compression=None, open_timeout=5) as ws:
            hello: dict[str, Any] = {"type": "hello", "protocol": 3}
            if self.token is not None:
                hello["token"] = self.token
            if self.version is not None:
                hello["since"] = self.version
            await ws.send(orjson.dumps(hello).decode())
            if self.start:
                await ws.send(orjson.dumps({"type": "start", "id": "start"}).decode())
                self.start = False
            self._answered = None  # a pending decision is offered again after a reconnect
            self._readied = None
            async for raw in ws:
                text = raw if isinstance(raw, str) else raw.decode()
                self.received.append(text)
                message = orjson.loads(text)
                if self.vanish_when is not None and self.vanish_when(self, message):
                    self.vanished = True
                    return
                if not await self._receive(ws, message) or until(self):
                    return

    async def _receive(self, ws: ClientConnection, message: dict[str, Any]) -> bool:
        """Handle one message; False: reconnect (a gap in versions)."""
        kind = message["type"]
        if kind == "welcome":
            self.welcomes.append(message)
            if self.version is not None and message["v"] < self.version:
                self.versions_went_back += 1
        elif kind == "snapshot":
            self.version, self.you, self.state = message["v"], message["you"], message["state"]
            await self._maybe_answer(ws)
        elif kind == "update":
            if self.version is not None and message["v"] != self.version + 1:
                return False
            self.version = message["v"]
            if "you" in message:
                self.you = message["you"]
            if message["state"] is not None:
                self.state = message["state"]
            if "ack" in message:  # the update this player's move made carries its ack
                await self._receive(ws, message["ack"])
            await self._maybe_answer(ws)
        elif kind == "ack":
            sent = self.sent_moves.get(str(message["id"]))
            if sent is not None:
                self.acks.append({**message, "seat": self.seat, "sent_v": sent[1]})
        elif kind == "error":
            self.errors.append(message)
            if message["code"] in ("rate_limited", "paused"):  # answer again when it can
                self._answered = None
        return True

    async def _maybe_answer(self, ws: ClientConnection) -> None:
        pause = self.state and self.state["round_end"]
        if (
            pause
            and self.token is not None
            and self.seat not in pause["ready"]
            and self._readied != pause["round_number"]
        ):
            self._readied = pause["round_number"]
            await ws.send(orjson.dumps({"type": "ready", "id": f"ready-{self.seat}"}).decode())
        you = self.you
        if self.token is None or you is None or you["decision"] is None:
            return
        key = (you["prompt_v"], you["decision"])
        if key == self._answered:
            return
        self._answered = key
        wait = self._last_move_at + self.min_interval - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        self._last_move_at = time.monotonic()
        move = self.policy(self.seat or 0, you, self.rng)
        request_id = f"{self.seat}-{next(self._ids)}"
        self.sent_moves[request_id] = (move, self.version or 0)
        body = {"type": "move", "id": request_id, "v": self.version, "move": move}
        await ws.send(orjson.dumps(body).decode())


class Conn:
    """A raw protocol connection: a background reader keeps every message, the version,
    the seat's ``you`` and the public state; :meth:`ask` sends one message and returns
    every message that answers it."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.texts: list[str] = []
        self.version: int | None = None
        self.you: dict[str, Any] | None = None
        self.state: dict[str, Any] | None = None
        self.close_code: int | None = None
        self._arrived = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, ws_base: str, code: str, token: str | None = None, **hello: Any) -> Conn:
        conn = cls(await open_raw(f"{ws_base}/ws/{code}"))
        body: dict[str, Any] = {"type": "hello", "protocol": 3, **hello}
        if token is not None:
            body["token"] = token
        with contextlib.suppress(websockets.ConnectionClosed):  # refused at once: read why
            await conn.ws.send(orjson.dumps(body).decode())
        await conn.wait_for(lambda m: m["type"] in ("snapshot", "error"))
        return conn

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                text = raw if isinstance(raw, str) else raw.decode()
                self.texts.append(text)
                message = orjson.loads(text)
                self.messages.append(message)
                if message["type"] == "update" and "ack" in message:
                    self.messages.append(message["ack"])  # as its own message, after it
                if message["type"] in ("snapshot", "update"):
                    self.version = message["v"]
                    if message["state"] is not None:
                        self.state = message["state"]
                    if "you" in message and (message["type"] == "update" or message["you"]):
                        self.you = message["you"]
                self._arrived.set()
        except websockets.ConnectionClosed:
            pass
        self.close_code = self.ws.close_code
        self._arrived.set()

    @property
    def closed(self) -> bool:
        return self._reader.done()

    async def wait_for(
        self,
        check: Callable[[dict[str, Any]], bool],
        start: int = 0,
        timeout: float = ANSWER_SECONDS,
    ) -> dict[str, Any]:
        """The first message from index ``start`` on that passes ``check``."""
        async with asyncio.timeout(timeout):
            while True:
                for message in self.messages[start:]:
                    if check(message):
                        return message
                start = len(self.messages)
                if self.closed:
                    raise ConnectionError(f"closed ({self.close_code}) while waiting")
                self._arrived.clear()
                await self._arrived.wait()

    async def send(self, body: dict[str, Any] | str | bytes) -> None:
        await self.ws.send(body if isinstance(body, str | bytes) else orjson.dumps(body).decode())

    async def ask(
        self, body: dict[str, Any] | str | bytes, timeout: float = ANSWER_SECONDS
    ) -> list[Any]:
        """Send ``body`` then a ping: the messages before the pong (but presence) answer
        ``body``.
        If the server closes the connection instead, those before the close."""
        mark = len(self.messages)
        token = f"sentinel-{time.monotonic_ns()}"
        try:
            await self.send(body)
            await self.send({"type": "ping", "id": token})
            await self.wait_for(
                lambda m: m["type"] == "pong" and m.get("id") == token, mark, timeout
            )
        except (ConnectionError, websockets.ConnectionClosed):
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._reader
        replies = []
        for message in self.messages[mark:]:
            if message["type"] == "pong" and message.get("id") == token:
                break
            if message["type"] != "presence":  # (who watches: no answer to anything)
                replies.append(message)
        return replies

    async def request(
        self, body: dict[str, Any], timeout: float = ANSWER_SECONDS
    ) -> dict[str, Any]:
        """Send ``body`` (with an ``id``) and return the ack or error that answers it."""
        mark = len(self.messages)
        await self.send(body)
        return await self.wait_for(
            lambda m: m["type"] in ("ack", "error") and m.get("id") == body["id"], mark, timeout
        )

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        with contextlib.suppress(Exception):
            await self._reader


async def open_raw(url: str) -> ClientConnection:
    return await connect(url, compression=None, open_timeout=10, max_size=2**22)


def raise_open_files(wanted: int) -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


def is_root() -> bool:
    return os.geteuid() == 0


# ---------------------------------------------------------------- a started table


async def seated_table(server: LiveServer, **options: Any) -> tuple[str, list[str], list[Conn]]:
    """A table whose four seats are connected and whose first match has started."""
    code, tokens = create_table(server, **options)
    conns = [await Conn.open(server.ws, code, token) for token in tokens]
    reply = await conns[0].request({"type": "start", "id": "start"})
    assert reply["type"] == "ack", reply
    for conn in conns:
        await conn.wait_for(lambda m: m["type"] == "update" and m["v"] >= reply["v"])
    return code, tokens, conns


async def through_pause(conns: list[Conn]) -> None:
    """At an end-of-round pause every seat says ready, and the next round starts."""
    await settle(conns)
    state = conns[0].state
    if not state or not state["round_end"]:
        return
    for conn in conns:
        if conn.you is not None and conn.you["seat"] not in state["round_end"]["ready"]:
            reply = await conn.request({"type": "ready", "id": f"ready-{time.monotonic_ns()}"})
            assert reply["type"] == "ack", reply
    await settle(conns)


def acting(conns: list[Conn]) -> Conn:
    """The connection whose seat has a pending decision."""
    for conn in conns:
        if conn.you is not None and conn.you["decision"] is not None:
            return conn
    raise AssertionError("nobody has a decision")


async def settle(conns: list[Conn]) -> int:
    """Wait until every connection has the latest version any of them has; returns it."""
    version = max(c.version or 0 for c in conns)
    for conn in conns:
        await conn.wait_for(lambda m: m["type"] in ("update", "snapshot") and m["v"] >= version)
    return version


async def play_moves(conns: list[Conn], count: int, policy: Policy = shedding_policy) -> int:
    """Play ``count`` decisions through the seats' own connections; returns the version."""
    version = 0
    for n in range(count):
        await through_pause(conns)
        conn = acting(conns)
        you = conn.you
        assert you is not None
        move = policy(you["seat"], you, None)
        reply = await conn.request(
            {"type": "move", "id": f"m{n}-{time.monotonic_ns()}", "v": conn.version, "move": move}
        )
        assert reply["type"] == "ack", reply
        version = reply["v"]
        for other in conns:
            await other.wait_for(lambda m, v=version: m["type"] == "update" and m["v"] >= v)
    return version
