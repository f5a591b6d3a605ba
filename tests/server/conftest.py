"""Fixtures for the server tests: a Table on a manual clock, and real servers on free ports."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
import websockets

from fouronefour.engine import Match, Rules
from fouronefour.server.app import create_app
from fouronefour.server.background.botrunner import InlineBotRunner
from fouronefour.server.clock import ManualScheduler
from fouronefour.server.config import ServerConfig
from fouronefour.server.registry import seed_stream
from fouronefour.server.serving import Serving
from fouronefour.server.storage.sqlite import GroupCommitStorage
from fouronefour.server.tables.fanout import InProcessFanout
from fouronefour.server.tables.services import TableServices
from fouronefour.server.tables.settings import TableSettings
from fouronefour.server.tables.table import Table, TableOptions, Update

from ..loopback import HTTP
from .playerstores import make_store as make_store  # (the players' database, both kinds)

ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------- Table harness


class Recorder:
    """A subscriber that keeps what one audience (a seat, or None: spectators) was sent."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.messages: list[dict[str, Any]] = []
        self.notices: list[dict[str, Any]] = []

    def deliver(self, update: Update) -> None:
        self.messages.append(json.loads(update.message(self.seat)))

    def notice(self, message: bytes) -> None:
        self.notices.append(json.loads(message))


@dataclass
class Harness:
    scheduler: ManualScheduler
    storage: GroupCommitStorage  # not bound to a loop: each commit is written at once
    fanout: InProcessFanout
    seeds: list[int]
    recorders: dict[int | None, Recorder] = field(default_factory=dict)
    created: int = 0

    def services(self, scheduler: ManualScheduler | None = None) -> TableServices:
        seeds = iter(self.seeds)
        clock = scheduler or self.scheduler
        return TableServices(
            self.storage,
            self.fanout,
            clock,
            InlineBotRunner(lambda f: clock.call_later(0, f)),
            lambda: next(seeds),
            bot_delay=0.0,
        )

    def table(
        self,
        players: int = 4,
        humans: int = 1,
        *,
        hook_mode: str = "fair",
        bot: str = "random",
        turn_seconds: float = 10.0,
        hook_seconds: float = 1.0,
        start: bool = True,
        round_pause_seconds: float = 0.0,
        **rule_options: Any,
    ) -> tuple[Table, list[str]]:
        """A table with ``humans`` seated players (the rest bots), recorders for each seat and
        a spectator, started unless ``start`` is false. No end-of-round pause unless asked."""
        options = TableOptions(
            Rules(players=players, **rule_options),
            turn_seconds=turn_seconds,
            hook_seconds=hook_seconds,
            hook_mode=hook_mode,  # type: ignore[arg-type]
            bot=bot,
        )
        self.created += 1
        code = f"TEST{self.created:02d}"
        settings = TableSettings(round_pause_seconds=round_pause_seconds)
        table, token = Table.create(code, options, "Host", 0, self.services(), settings)
        self.storage.create_table(table.stored())
        tokens = [token]
        for seat in range(1, humans):
            tokens.append(table.seating.join(f"P{seat}", seat))
        for seat in [None, *range(players)]:
            self.recorders[seat] = Recorder(seat)
            self.fanout.subscribe(table.code, self.recorders[seat])
        if humans < players:
            table.seating.fill_bots(0)
        if start:
            table.start(0)
        return table, tokens


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    storage = GroupCommitStorage(str(tmp_path / "tables.db"))
    yield Harness(ManualScheduler(), storage, InProcessFanout(), [11, 22, 33, 44])
    storage.close()


def find_seed(predicate: Callable[[Match], bool], players: int = 4, limit: int = 5000) -> int:
    for seed in range(limit):
        if predicate(Match(Rules(players=players), seed)):
            return seed
    raise AssertionError("no seed found")


def server_seed(predicate: Callable[[Match], bool], players: int = 4, limit: int = 5000) -> int:
    """A ``--seed`` for a server whose first match satisfies ``predicate``."""
    for seed in range(limit):
        if predicate(Match(Rules(players=players), seed_stream(seed)())):
            return seed
    raise AssertionError("no seed found")


# ----------------------------------------------------------------- real servers


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ThreadServer:
    """The real app under uvicorn in a background thread, on a free port."""

    def __init__(self, config: ServerConfig) -> None:
        self.port = free_port()
        self.config = config
        app = create_app(config)
        self.app = app
        self.server = Serving(
            uvicorn.Config(
                app,
                host="127.0.0.1",
                port=self.port,
                log_level="warning",
                lifespan="on",
                ws_max_size=config.max_frame_bytes,
                ws_per_message_deflate=False,
            ),
            app,
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@contextlib.contextmanager
def thread_cluster(count: int = 2, **settings: Any) -> Iterator[list[ThreadServer]]:
    """``count`` servers of one cluster (``settings``: its ServerConfig, with ``db`` and
    ``broker``), each in a thread, without bots' processes or bots' thinking time."""
    servers = [
        ThreadServer(ServerConfig(**{"bot_delay": 0.0, "bot_processes": 0, **settings}))
        for _ in range(count)
    ]
    started: list[ThreadServer] = []
    try:
        for server in servers:
            started.append(server.__enter__())
        yield servers
    finally:
        for server in started:
            server.__exit__()


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[Callable[..., ThreadServer]]:
    servers: list[ThreadServer] = []

    def make(**overrides: Any) -> ThreadServer:
        settings: dict[str, Any] = {
            "db": str(tmp_path / f"s{len(servers)}.db"),
            "bot_delay": 0.0,
            "bot_processes": 0,
        }
        settings.update(overrides)
        server = ThreadServer(ServerConfig(**settings))
        servers.append(server.__enter__())
        return server

    yield make
    for server in servers:
        server.__exit__()


class ServeProcess:
    """``fouronefour serve`` as a separate process (for the whole-match and restart tests)."""

    def __init__(self, db: Path | str, port: int, *extra: str) -> None:
        self.db = db
        self.port = port
        self.extra = extra
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "fouronefour.cli",
                "serve",
                "--port",
                str(self.port),
                "--db",
                str(self.db),
                "--bot-delay",
                "0",
                "--rate",
                "2000",
                "--rate-burst",
                "2000",
                "--analysis-processes",  # (none: test_analysis.py runs it, cheaply)
                "0",
                *self.extra,
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if HTTP.get(self.url + "/api/health", timeout=1).status_code == 200:
                    return
            if self.process.poll() is not None:
                stderr = self.process.stderr.read().decode() if self.process.stderr else ""
                raise RuntimeError(f"serve exited: {stderr}")
            if time.monotonic() > deadline:
                raise RuntimeError("serve did not start")
            time.sleep(0.05)

    def kill(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def serve_process(tmp_path: Path) -> Iterator[ServeProcess]:
    process = ServeProcess(tmp_path / "serve.db", free_port())
    process.start()
    yield process
    process.stop()


# ----------------------------------------------------------------- WebSocket client


class Client:
    """A raw WebSocket test client: send objects, receive decoded messages."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.received: list[dict[str, Any]] = []
        self._carried: list[dict[str, Any]] = []  # acks that came inside updates

    @classmethod
    async def connect(cls, server_url: str, code: str) -> Client:
        ws = await websockets.connect(
            server_url.replace("http", "ws", 1) + f"/ws/{code}", compression=None, max_size=2**22
        )
        return cls(ws)

    async def send(self, body: dict[str, Any] | str) -> None:
        await self.ws.send(body if isinstance(body, str) else json.dumps(body))

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        """The next message; an ``ack`` carried inside an update comes next, on its own, as
        it would have before protocol 2."""
        if self._carried:
            message = self._carried.pop(0)
        else:
            message = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
            if message.get("type") == "update" and "ack" in message:
                self._carried.append(message["ack"])
        self.received.append(message)
        return message  # type: ignore[no-any-return]

    async def until(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 5.0
    ) -> dict[str, Any]:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            message = await self.recv(max(0.01, left))
            if predicate(message):
                return message

    async def close(self) -> None:
        await self.ws.close()


def load_example_client() -> Any:
    """examples/client.py as a module (the examples folder is not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("example_client", ROOT / "examples/client.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["example_client"] = module
    spec.loader.exec_module(module)
    return module
