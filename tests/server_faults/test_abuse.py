"""Abuse that careful users found (issue 15): spectators locking players out, sockets that
hold a descriptor and never finish a request, bodies too large to read, clients that leave
mid-body. One server with the per-address limits applied to loopback too, so that each
attacker here is a loopback address of its own (127.0.0.2, ...) and the honest clients
(127.0.0.1) can be told apart from them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from websockets.asyncio.client import connect

from fouronefour.server.sockets.session import PROTOCOL

from .live import (
    ROOT,
    Conn,
    LiveServer,
    create_table,
    open_raw,
    raise_open_files,
    running,
    seated_table,
    table_summary,
)

PER_ADDRESS = 20  # connections one address may hold (--max-connections-per-address)
TIMEOUT = 2.0  # seconds to send a whole request, or a hello (--request-timeout)


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
        await conn.send({"type": "hello", "protocol": PROTOCOL, **hello})
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
    # The last five of each address: refused at once (an answer; the deadline says nothing).
    for kind, sockets in held.items():
        for s in sockets[PER_ADDRESS:]:
            _, said = _closed_after(s, began, TIMEOUT)
            assert said.startswith(b"HTTP/1.1 429") and b"too_many_connections" in said, kind
            s.close()

    async def honest() -> None:  # while the others are held
        async with httpx.AsyncClient(base_url=server.http, timeout=5) as http:
            assert (await http.get("/api/health")).status_code == 200
        conn = await Conn.open(server.ws, code, tokens[0], since=0)
        assert conn.messages[0]["role"] == "player"
        await conn.close()

    asyncio.run(honest())

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
    # Whole requests in one write: 20 KB of headers is refused, 10 KB is served.
    for size, status in ((20_000, b"431"), (10_000, b"200")):
        with socket.create_connection(("127.0.0.1", server.port)) as s:
            headers = b"X-A: b\r\n" * (size // 8)
            s.sendall(
                b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + headers + b"\r\n"
            )
            _, said = _closed_after(s, time.monotonic(), 5)
        assert said.startswith(b"HTTP/1.1 " + status), (size, said[:100])
    # A request the HTTP parser refuses gets the API's error body too (it was plain text).
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        s.sendall(b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n")
        _, said = _closed_after(s, time.monotonic(), 5)
    assert said.startswith(b"HTTP/1.1 400"), said[:100]
    assert orjson.loads(said.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "bad_message"


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


# ---------------------------------------------------------------- rate limit recovery


def test_rate_limited_names_the_message_and_when_to_send_it_again(server: LiveServer) -> None:
    """A refusal used to say `"id": null`: a client could not tell which move to resend.
    It names the message and `retry_after_ms`; a client that waits as told and resends
    loses nothing and is never closed, however fast it goes."""

    async def scenario() -> None:
        code, _ = create_table(server)
        conn = await Conn.open(server.ws, code)
        answered: dict[str, str] = {}
        refusals = 0
        for n in range(80):  # as fast as the server answers: several times its 20 a second
            request = f"p{n}"
            while True:
                mark = len(conn.messages)
                await conn.send({"type": "ping", "id": request})
                reply = await conn.wait_for(lambda m, r=request: m.get("id") == r, mark)
                if reply["type"] == "pong":
                    answered[request] = "pong"
                    break
                assert reply["code"] == "rate_limited", reply
                assert 0 < reply["retry_after_ms"] <= 1000, reply
                refusals += 1
                await asyncio.sleep(reply["retry_after_ms"] / 1000)
        assert len(answered) == 80 and refusals > 0
        assert not conn.closed
        await conn.close()

    asyncio.run(scenario())


def test_the_example_client_plays_four_seats_without_a_stall(tmp_path: Path) -> None:
    """`examples/client.py --humans 4` used to lose rate-limited moves, and its table then
    waited for a turn timer. Here a lost move would wait an hour (--turn-seconds 3600): the
    match must end within a minute, with some moves sent again after rate_limited. (The
    limit is 40 a second in bursts of 5 so that the match, 1,429 decisions with this seed,
    takes ~10 s; at the default 20 it takes ~20-30 s.)"""
    extra = ("--seed", "6", "--turn-seconds", "3600", "--rate", "40", "--rate-burst", "5")
    with running(LiveServer(tmp_path / "t.db", tmp_path / "server.log", extra=extra)) as live:
        done = subprocess.run(
            [sys.executable, "examples/client.py", "--humans", "4", "--server", live.http],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert "match over" in done.stdout, done.stdout
    resent = int(done.stdout.split("sent again after rate_limited: ")[1].split()[0])
    assert resent > 0, done.stdout  # the limit was met, and recovered from


# ---------------------------------------------------------------- protocol and server agree


def test_the_server_does_what_the_protocol_says(server: LiveServer) -> None:
    code, tokens, conns = asyncio.run(_started(server))
    del conns

    async def scenario() -> None:
        def hello(**fields: Any) -> dict[str, Any]:
            return {"type": "hello", "protocol": PROTOCOL, **fields}

        # protocol is the integer, not a number equal to it.
        for protocol in (float(PROTOCOL), str(PROTOCOL), True):
            conn = Conn(await open_raw(f"{server.ws}/ws/{code}"))
            await conn.send(hello(protocol=protocol))
            await asyncio.wait_for(conn._reader, 5)
            assert refusal(conn) == "bad_protocol", protocol
        # since: newer than the server's, beyond 64 bits, negative, fractional: a snapshot.
        for since in (10**9, 2**70, -1, 2.5):
            conn = Conn(await open_raw(f"{server.ws}/ws/{code}"))
            await conn.send(json.dumps(hello(since=since)))  # (orjson stops at 64 bits)
            snapshot = await conn.wait_for(lambda m: m["type"] in ("snapshot", "error"))
            assert snapshot["type"] == "snapshot", (since, conn.messages)
            assert conn.messages[0]["type"] == "welcome"
            await conn.close()
        conn = Conn(await open_raw(f"{server.ws}/ws/{code}"))
        await conn.send(hello(since="5"))
        await conn.wait_for(lambda m: m["type"] == "error")
        assert refusal(conn) == "bad_message"
        await conn.send(hello())  # not greeted: hello again
        await conn.wait_for(lambda m: m["type"] == "snapshot")
        # Binary frames are not messages.
        reply = await conn.ask(orjson.dumps({"type": "ping", "id": "b"}))
        assert [m.get("code") for m in reply] == ["bad_json"], reply
        await conn.close()
        binary_first = Conn(await open_raw(f"{server.ws}/ws/{code}"))
        await binary_first.send(orjson.dumps(hello()))
        await asyncio.wait_for(binary_first._reader, 5)
        assert refusal(binary_first) == "bad_json" and binary_first.close_code == 1008
        # A move needs an id.
        player = await Conn.open(server.ws, code, tokens[0])
        you = player.you
        assert you is not None
        version = player.version
        move = (you["legal_moves"] or ["pass"])[0]
        reply = await player.ask({"type": "move", "v": version, "move": move})
        assert [m.get("code") for m in reply] == ["bad_message"], reply
        assert table_summary(server, code)["version"] == version
        await player.close()

    asyncio.run(scenario())

    # HTTP: every error has the API's body.
    with httpx.Client(base_url=server.http, timeout=5) as http:
        for method, path, status, error in (
            ("GET", "/api/nope", 404, "unknown_type"),
            ("DELETE", f"/api/tables/{code}", 405, "unknown_type"),
            ("GET", f"/api/tables/{code}/replays/abc", 404, "replay_not_found"),
            ("GET", f"/api/tables/{code}/replays/99999999999999999999", 404, "replay_not_found"),
            ("POST", "/api/tables", 400, "bad_json"),  # an empty body
        ):
            answer = http.request(method, path)
            assert answer.status_code == status, (path, answer.text)
            assert answer.json()["error"]["code"] == error, (path, answer.text)


async def _started(server: LiveServer) -> tuple[str, list[str], list[Conn]]:
    code, tokens, conns = await seated_table(server, hooking=False, turn_seconds=120)
    for conn in conns:
        await conn.close()
    return code, tokens, conns


def test_guessing_invite_codes_is_throttled_per_address(server: LiveServer) -> None:
    """Codes could be tried ~500 a second. An address may ask for 10 codes that are no
    table, then one every 10 s; meanwhile every lookup from it is refused, a real table's
    too (a refusal tells nothing), over HTTP and WebSocket; other addresses go on."""
    code, _ = create_table(server)

    def get(path: str, address: str) -> httpx.Response:
        transport = httpx.HTTPTransport(local_address=address)
        with httpx.Client(base_url=server.http, transport=transport, timeout=5) as http:
            return http.get(path)

    guesses = [get(f"/api/tables/ZZZZ{n:02d}", "127.0.3.1") for n in range(10)]
    assert {g.status_code for g in guesses} == {404}
    refused = [get(path, "127.0.3.1") for path in ("/api/tables/ZZZZ99", f"/api/tables/{code}")]
    for answer in refused:
        assert answer.status_code == 429, answer.text
        assert answer.json()["error"]["code"] == "rate_limited"
        assert 1 <= int(answer.headers["Retry-After"]) <= 10

    async def watch(address: str) -> Conn:
        ws = await connect(
            f"{server.ws}/ws/{code}", compression=None, open_timeout=5, local_addr=(address, 0)
        )
        conn = Conn(ws)
        await asyncio.wait_for(conn._reader, 5)
        return conn

    assert refusal(asyncio.run(watch("127.0.3.1"))) == "rate_limited"
    assert get(f"/api/tables/{code}", "127.0.3.2").status_code == 200


def test_a_private_table_is_found_only_with_its_invite(server: LiveServer) -> None:
    """A found code let anyone watch or take a free seat. A private table answers without
    its invite exactly as a code that is no table does (each asking counts as a failed
    lookup); with it, or with a seat's token, as any table."""
    created = httpx.post(
        f"{server.http}/api/tables", json={"name": "Ann", "private": True}, timeout=5
    ).json()
    code, invite, token = created["code"], created["invite"], created["token"]
    assert created["link"] == f"/t/{code}#invite={invite}" and len(invite) >= 24
    assert created["table"]["options"]["private"] is True
    assert "invite_hash" not in str(created)
    bad = httpx.post(f"{server.http}/api/tables", json={"name": "A", "private": "yes"}, timeout=5)
    assert bad.json()["error"]["code"] == "bad_option"

    def http(method: str, path: str, address: str, **kwargs: Any) -> httpx.Response:
        transport = httpx.HTTPTransport(local_address=address)
        with httpx.Client(base_url=server.http, transport=transport, timeout=5) as client:
            return client.request(method, path, **kwargs)

    nobody = http("GET", "/api/tables/ZZZZZZ", "127.0.4.1").json()["error"]
    wrong = invite[:-1] + ("B" if invite.endswith("A") else "A")  # (an invite may end in A)
    for headers in ({}, {"X-Invite": wrong}):
        hidden = http("GET", f"/api/tables/{code}", "127.0.4.1", headers=headers)
        assert hidden.status_code == 404
        assert hidden.json()["error"] == {**nobody, "message": f"no table {code!r}"}
    seen = http("GET", f"/api/tables/{code}", "127.0.4.1", headers={"X-Invite": invite})
    assert seen.status_code == 200 and seen.json()["options"]["private"] is True
    join = f"/api/tables/{code}/join"
    assert http("POST", join, "127.0.4.1", json={"name": "Bo", "seat": 1}).status_code == 404
    joined = http("POST", join, "127.0.4.1", json={"name": "Bo", "seat": 1, "invite": invite})
    assert joined.status_code == 200
    # A wrong handoff secret (whatever the name) as well: a 400 bad_handoff told that the
    # code was a private table. A public table's code is no secret: there, bad_handoff.
    claim = f"/api/tables/{code}/claim"
    for name in ("Cy", ""):
        hidden = http("POST", claim, "127.0.4.1", json={"handoff": "x", "name": name})
        assert hidden.status_code == 404
        assert hidden.json()["error"] == {**nobody, "message": f"no table {code!r}"}
    public, _ = create_table(server)
    wrong = http("POST", f"/api/tables/{public}/claim", "127.0.4.1", json={"handoff": "x"})
    assert wrong.json()["error"]["code"] == "bad_handoff"
    # The failed lookups counted: 6 so far, 4 more, then even the invite is refused.
    for _ in range(4):
        http("GET", f"/api/tables/{code}", "127.0.4.1")
    refused = http("GET", f"/api/tables/{code}", "127.0.4.1", headers={"X-Invite": invite})
    assert refused.status_code == 429

    async def hello(**fields: Any) -> Conn:
        conn = Conn(await open_raw(f"{server.ws}/ws/{code}"))
        await conn.send({"type": "hello", "protocol": PROTOCOL, **fields})
        await conn.wait_for(lambda m: m["type"] in ("snapshot", "error"))
        return conn

    async def scenario() -> None:
        for fields in ({}, {"invite": "nope"}, {"token": "forged"}):
            conn = await hello(**fields)
            await asyncio.wait_for(conn._reader, 5)
            assert refusal(conn) == "table_not_found", fields
            assert conn.close_code == 1008
        for fields, role in (({"invite": invite}, "spectator"), ({"token": token}, "player")):
            conn = await hello(**fields)
            assert conn.messages[0]["role"] == role
            await conn.close()
        # A code that is no table is refused after the hello too: when, tells nothing.
        unknown = Conn(await open_raw(f"{server.ws}/ws/ZZZZZZ"))
        await asyncio.sleep(0.3)
        assert not unknown.messages and not unknown.closed
        await unknown.send({"type": "hello", "protocol": PROTOCOL})
        await asyncio.wait_for(unknown._reader, 5)
        assert refusal(unknown) == "table_not_found"

    asyncio.run(scenario())
