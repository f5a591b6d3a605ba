"""Abuse that careful users found (issue 15): spectators locking players out, sockets that
hold a descriptor and never finish a request, bodies too large to read, clients that leave
mid-body. One server with the per-address limits applied to loopback too, so that each
attacker here is a loopback address of its own (127.0.0.2, ...) and the honest clients
(127.0.0.1) can be told apart from them."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from websockets.asyncio.client import connect

from .live import Conn, LiveServer, create_table, raise_open_files, running

PER_ADDRESS = 20  # connections one address may hold (--max-connections-per-address)
TIMEOUT = 1.0  # seconds to send a whole request, or a hello (--request-timeout)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    where = tmp_path_factory.mktemp("abuse")
    raise_open_files(4096)
    extra = (
        "--limit-loopback",
        "--http-burst",
        "1000",
        "--request-timeout",
        str(TIMEOUT),
        "--max-connections-per-address",
        str(PER_ADDRESS),
    )
    with running(LiveServer(where / "t.db", where / "server.log", extra=extra)) as live:
        yield live
    assert "Traceback" not in live.log_text()


async def open_from(server: LiveServer, code: str, address: str, **hello: Any) -> Conn:
    """A connection from ``address`` (any 127.x.y.z is this machine) that says hello."""
    ws = await connect(
        f"{server.ws}/ws/{code}", compression=None, open_timeout=5, local_addr=(address, 0)
    )
    conn = Conn(ws)
    with contextlib.suppress(Exception):
        await conn.send({"type": "hello", "protocol": 2, **hello})
    await conn.wait_for(lambda m: m["type"] in ("snapshot", "error"))
    return conn


def refusal(conn: Conn) -> str | None:
    return next((m["code"] for m in conn.messages if m["type"] == "error"), None)


def test_spectators_never_lock_a_player_out(server: LiveServer) -> None:
    """63 spectators and the host used to fill a table's 64 connections: seat 1's valid
    token got too_many_connections. Players are always let in; spectators are limited per
    table (64) and per address (16)."""

    async def scenario() -> None:
        code, tokens = create_table(server, **{"hooking": False, "turn_seconds": 120})
        host = await Conn.open(server.ws, code, tokens[0])
        watchers = [await open_from(server, code, f"127.0.0.{2 + n // 16}") for n in range(64)]
        assert all(w.messages[0]["role"] == "spectator" for w in watchers)
        one_too_many = await open_from(server, code, "127.0.0.9")
        await asyncio.wait_for(one_too_many._reader, 5)
        assert refusal(one_too_many) == "too_many_connections"
        assert one_too_many.close_code == 1008

        player = await Conn.open(server.ws, code, tokens[1])
        assert player.messages[0]["role"] == "player" and player.messages[0]["seat"] == 1

        # Per address: 127.0.0.2 holds 16 spectators here; it may watch no other table.
        other, _ = create_table(server)
        refused = await open_from(server, other, "127.0.0.2")
        await asyncio.wait_for(refused._reader, 5)
        assert refusal(refused) == "too_many_connections"
        for watcher in watchers[:16]:
            await watcher.close()
        await asyncio.sleep(0.2)
        welcome = await open_from(server, other, "127.0.0.2")
        assert welcome.messages[0]["role"] == "spectator"

        # A seat keeps its newest 8 connections: a ninth closes the oldest, not itself.
        seat1 = [player] + [await Conn.open(server.ws, code, tokens[1]) for _ in range(8)]
        await asyncio.wait_for(seat1[0]._reader, 5)
        assert refusal(seat1[0]) == "too_many_connections"
        assert all(not c.closed for c in seat1[1:])
        for conn in [host, welcome, *watchers[16:], *seat1]:
            await conn.close()

    asyncio.run(scenario())


# ---------------------------------------------------------------- idle and slow sockets

SLOW_STARTS = {
    "nothing sent": b"",
    "unfinished headers": b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ",
    "body promised, never sent": (
        b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b'Content-Length: 200\r\n\r\n{"name": '
    ),
}


def _hold(address: str, port: int, start: bytes, count: int) -> list[socket.socket]:
    sockets = []
    for _ in range(count):
        s = socket.socket()
        s.bind((address, 0))
        s.connect(("127.0.0.1", port))
        if start:
            s.sendall(start)
        sockets.append(s)
    return sockets


def _closed_after(s: socket.socket, began: float, limit: float) -> tuple[float, bytes]:
    """Seconds until the server closed ``s`` (and what it said first)."""
    s.settimeout(limit)
    said = b""
    try:
        while chunk := s.recv(4096):
            said += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return time.monotonic() - began, said


def test_idle_and_slow_sockets_are_closed_and_limited_per_address(server: LiveServer) -> None:
    """Sockets that send nothing, never finish their headers or never send the body they
    promised used to stay open for good. Each address may hold PER_ADDRESS connections
    (one more: 429 at once); the held ones are closed after --request-timeout; meanwhile
    an honest address's requests and reconnects go on."""
    code, tokens = create_table(server)
    began = time.monotonic()
    held = {
        kind: _hold(f"127.0.1.{n}", server.port, start, PER_ADDRESS + 5)
        for n, (kind, start) in enumerate(SLOW_STARTS.items(), 1)
    }
    for kind, sockets in held.items():  # the last five of each address: refused at once
        for s in sockets[PER_ADDRESS:]:
            seconds, said = _closed_after(s, began, TIMEOUT)
            assert said.startswith(b"HTTP/1.1 429") and b"too_many_connections" in said, kind
            assert seconds < TIMEOUT * 0.9, kind
            s.close()

    async def honest() -> None:  # while the others are held
        for _ in range(3):
            async with httpx.AsyncClient(base_url=server.http, timeout=5) as http:
                assert (await http.get("/api/health")).status_code == 200
            conn = await Conn.open(server.ws, code, tokens[0], since=0)
            assert conn.messages[0]["role"] == "player"
            await conn.close()

    asyncio.run(honest())
    assert time.monotonic() - began < TIMEOUT * 0.9, "too slow a machine for this test"

    results: dict[str, list[tuple[float, bytes]]] = {}

    def watch(kind: str) -> None:
        results[kind] = [_closed_after(s, began, 10 * TIMEOUT) for s in held[kind][:PER_ADDRESS]]

    threads = [threading.Thread(target=watch, args=(kind,)) for kind in held]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for kind, closes in results.items():
        assert all(not said for _, said in closes), (kind, closes)  # closed, nothing said
        assert all(TIMEOUT * 0.9 < t < TIMEOUT * 4 for t, _ in closes), (kind, closes)
    for sockets in held.values():
        for s in sockets:
            s.close()

    # A WebSocket that never says hello is closed by the same deadline.
    async def silent() -> tuple[float, int | None]:
        start = time.monotonic()
        ws = await connect(f"{server.ws}/ws/{code}", compression=None)
        conn = Conn(ws)
        await asyncio.wait_for(conn._reader, 10 * TIMEOUT)
        return time.monotonic() - start, conn.close_code

    seconds, close_code = asyncio.run(silent())
    assert close_code == 1008 and TIMEOUT * 0.9 < seconds < TIMEOUT * 4


def test_headers_without_end_are_cut(server: LiveServer) -> None:
    """A request line and headers are limited to 16 KB: 300 MB of one header used to be
    held whole (600 MB of memory)."""
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Junk: ")
        with contextlib.suppress(OSError):
            for _ in range(64):
                s.sendall(b"a" * 4096)
        _, said = _closed_after(s, time.monotonic(), 5)
    assert said.startswith(b"HTTP/1.1 431"), said[:100]
    assert orjson.loads(said.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "too_large"


# ---------------------------------------------------------------- bodies


def _memory_kb(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(field)


def _post_big(port: int, address: str, chunked: bool, megabytes: int) -> bytes:
    """POST a body of ``megabytes`` MB (announced, or chunked) as fast as the server reads
    it; returns what the server answered."""
    with socket.socket() as s:
        s.bind((address, 0))
        s.connect(("127.0.0.1", port))
        s.settimeout(10)
        framing = (
            b"Transfer-Encoding: chunked\r\n"
            if chunked
            else f"Content-Length: {megabytes << 20}\r\n".encode()
        )
        s.sendall(b"POST /api/tables HTTP/1.1\r\nHost: x\r\n" + framing + b"\r\n")
        piece = b"a" * 65536
        chunk = b"10000\r\n" + piece + b"\r\n" if chunked else piece
        with contextlib.suppress(OSError):
            for _ in range(megabytes * 16):
                s.sendall(chunk)
        said = b""
        with contextlib.suppress(OSError):
            while part := s.recv(4096):
                said += part
        return said


def test_big_bodies_are_refused_without_being_read(server: LiveServer) -> None:
    """40 concurrent 10 MB bodies (half announced by Content-Length, half chunked) are
    refused with 413 too_large, and the server's memory hardly moves (they used to be read
    whole first: ~10 MB each)."""
    assert server.process is not None
    pid = server.process.pid
    before = _memory_kb(pid, "VmRSS")
    peak = before
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _memory_kb(pid, "VmRSS"))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample)
    sampler.start()
    answers: list[bytes] = []

    def post(n: int) -> None:
        answers.append(_post_big(server.port, f"127.0.2.{1 + n % 4}", n % 2 == 1, 10))

    posts = [threading.Thread(target=post, args=(n,)) for n in range(40)]
    for thread in posts:
        thread.start()
    for thread in posts:
        thread.join()
    done.set()
    sampler.join()
    assert len(answers) == 40
    for said in answers:
        assert said.startswith(b"HTTP/1.1 413"), said[:100]
        assert b'"too_large"' in said
    assert peak - before < 30_000, f"memory grew by {(peak - before) // 1024} MB"


def test_a_client_leaving_mid_body_is_one_line_of_log(server: LiveServer) -> None:
    mark = len(server.log_text())
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        s.sendall(b'POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Length: 300\r\n\r\n{"na')
        time.sleep(0.2)
    time.sleep(0.3)
    logged = server.log_text()[mark:]
    assert "Traceback" not in logged
    lines = [line for line in logged.splitlines() if line.strip()]
    assert len(lines) == 1 and "went away" in lines[0], logged
    assert httpx.get(f"{server.http}/api/health", timeout=5).status_code == 200
