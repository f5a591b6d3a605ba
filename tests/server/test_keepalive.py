"""How long the server keeps quiet connections (docs/protocol.md sections 2 and 3): an idle
HTTP keep-alive connection gets the request deadline, and a WebSocket that stops answering
pings is closed with 1011."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
from pathlib import Path

import pytest
import uvicorn
import websockets
from websockets.asyncio.client import connect

from fouronefour.server.app import create_app
from fouronefour.server.command import uvicorn_options
from fouronefour.server.config import ServerConfig
from fouronefour.server.serving import Serving
from fouronefour.server.sockets.guard import PING_SECONDS, PONG_SECONDS

from .conftest import ROOT, ServeProcess, free_port


def _closed_within(conn: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``conn`` (EOF) within ``seconds``."""
    conn.settimeout(seconds)
    try:
        return conn.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_an_idle_keep_alive_connection_is_kept_for_the_request_timeout(
    serve_process: ServeProcess,
) -> None:
    """Issue 27: the docs give a client 10 s from the previous answer, but uvicorn's own
    keep-alive timeout closed an idle connection after 5 s."""
    with socket.create_connection(("127.0.0.1", serve_process.port)) as conn:
        conn.sendall(b"GET /api/health HTTP/1.1\r\nhost: x\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += conn.recv(4096)
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200")
        length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))  # type: ignore[union-attr]
        while len(body) < length:  # the whole answer, so that only the close is left
            body += conn.recv(4096)
        started = time.monotonic()
        assert not _closed_within(conn, 7.5), "closed before the request timeout (10 s)"
        assert _closed_within(conn, 5.0), "still open after the request timeout"
        assert 9.0 <= time.monotonic() - started <= 12.5


def test_the_keep_alive_figures_are_the_ones_the_docs_give() -> None:
    config = ServerConfig()
    options = uvicorn_options(config)
    assert options["timeout_keep_alive"] == config.request_timeout == 10
    assert (options["ws_ping_interval"], options["ws_ping_timeout"]) == (PING_SECONDS, PONG_SECONDS)
    protocol = " ".join((ROOT / "docs/protocol.md").read_text().split())
    assert f"a ping frame every {PING_SECONDS:g} s" in protocol
    assert f"not answered within {PONG_SECONDS:g} s" in protocol
    assert "1011" in protocol and "keepalive ping timeout" in protocol
    said = re.search(r"an idle keep-alive connection is closed after (\d+) s", protocol)
    assert said is not None and float(said.group(1)) == config.request_timeout


def test_a_websocket_that_stops_reading_is_closed_with_1011(tmp_path: Path) -> None:
    """The serve command's uvicorn options with the pings made fast: a client that stops
    reading its socket answers no ping and is closed as the docs say."""
    config = ServerConfig(db=str(tmp_path / "t.db"), bot_delay=0.0)
    port = free_port()
    app = create_app(config)
    options = {**uvicorn_options(config), "host": "127.0.0.1", "port": port}
    options.update(ws_ping_interval=0.3, ws_ping_timeout=0.3, log_level="warning")
    server = Serving(uvicorn.Config(app, **options), app)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)

        async def scenario() -> None:
            import httpx

            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
                created = (await http.post("/api/tables", json={"name": "Ann"})).json()
            ws = await connect(f"ws://127.0.0.1:{port}/ws/{created['code']}", ping_interval=None)
            await ws.send(f'{{"type":"hello","protocol":3,"token":"{created["token"]}"}}')
            await ws.recv()
            ws.transport.pause_reading()  # the client stops reading: no pong leaves it
            await asyncio.sleep(1.5)
            ws.transport.resume_reading()
            with pytest.raises(websockets.ConnectionClosedError):
                while True:
                    await asyncio.wait_for(ws.recv(), 5)
            assert ws.close_code == 1011
            assert ws.close_reason == "keepalive ping timeout"

        asyncio.run(scenario())
    finally:
        server.should_exit = True
        thread.join(10)
