"""Kill a real ``fouronefour serve`` with SIGKILL mid-match, start it again on the same
database (a SQLite file; PostgreSQL with Redis as the broker): the clients reconnect and
finish the match, and no acknowledged move is lost."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests import sandbox

from .conftest import ServeProcess, ThreadServer, free_port, load_example_client


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, tuple[str, ...]]:
    """The server's --db, and its other flags."""
    if request.param == "sqlite":
        return str(tmp_path / "restart.db"), ()
    postgres: sandbox.LocalPostgres = request.getfixturevalue("postgres")
    redis: sandbox.LocalRedis = request.getfixturevalue("redis_server")
    return postgres.new_database(), ("--broker", redis.url)


def test_match_survives_sigkill_of_the_server(backend: tuple[str, tuple[str, ...]]) -> None:
    example = load_example_client()
    db, flags = backend
    kill_at = (40, 160) if not flags else (80,)
    process = ServeProcess(db, free_port(), *flags)
    process.start()
    url = process.url
    kills = 0

    async def scenario() -> tuple[str, list[object]]:
        nonlocal kills
        async with httpx.AsyncClient(base_url=url) as http:
            created = (
                await http.post(
                    "/api/tables",
                    json={
                        "name": "Host",
                        "players": 4,
                        "hook_mode": "fast",
                        "hook_seconds": 2,
                        "turn_seconds": 20,
                    },
                )
            ).json()
            code = created["code"]
            joined = (
                await http.post(f"/api/tables/{code}/join", json={"name": "Guest", "seat": 1})
            ).json()
        host = example.Player(url, code, created["token"], 0, random.Random(1), host=True)
        guest = example.Player(url, code, joined["token"], 1, random.Random(2))
        start = asyncio.Event()
        tasks = [
            asyncio.create_task(guest.play(retry_seconds=60)),
            asyncio.create_task(host.play(start, retry_seconds=60)),
        ]
        # Kill at different points of the match (SQLite twice; PostgreSQL once: the cluster
        # tests kill more), each time starting again at once.
        for threshold in kill_at:
            while len(host.acked) + len(guest.acked) < threshold:
                if any(t.done() for t in tasks):
                    break
                await asyncio.sleep(0.005)
            if any(t.done() for t in tasks):
                break
            process.kill()
            kills += 1
            await asyncio.sleep(0.2)
            await asyncio.to_thread(process.start)
        await asyncio.wait_for(asyncio.gather(*tasks), 90)
        return code, [host, guest]

    try:
        code, clients = asyncio.run(scenario())
        assert kills == len(kill_at), "the match ended before the server could be killed"
        assert all(client.reconnects >= 1 for client in clients)  # type: ignore[attr-defined]
        replay = httpx.get(f"{url}/api/tables/{code}/replays/1").json()
        for client in clients:
            seat = client.seat  # type: ignore[attr-defined]
            stored = [
                s["move"]
                for s in replay["steps"]
                if s["seat"] == seat
                and not (s["decision"] in ("hook", "unhook") and s["move"] == "pass")
            ]
            acked = [move for _, move in client.acked]  # type: ignore[attr-defined]
            # Every acknowledged move is in the stored match, in order; none twice.
            remaining = iter(stored)
            assert all(any(move == m for m in remaining) for move in acked)
            assert len(acked) <= len(stored)
        table = httpx.get(f"{url}/api/tables/{code}").json()
        assert table["status"] == "finished" and table["finished_matches"] == [1]
    finally:
        process.stop()


def test_a_graceful_restart_keeps_the_reconnect_promise(
    make_server: Callable[..., ThreadServer], tmp_path: Path
) -> None:
    """docs/protocol.md section 4: after a restart, a client that saw the last version gets
    the updates since (not a snapshot) and may answer its pending decision with that version.
    A graceful stop (SIGTERM, as docs/hosting.md recommends; uvicorn's handler sets
    ``should_exit`` as ``__exit__`` does here) used to write every player's going offline as
    it closed their sockets: versions the clients never saw, so the reconnect got a
    snapshot and the pending move ``stale_version``."""
    from .test_protocol import hello, new_table

    db = str(tmp_path / "graceful.db")
    first = make_server(db=db)

    async def before() -> tuple[str, list[str], int, int, str]:
        code, tokens = await new_table(first.url, humans=2, players=2, hooking=False)
        clients = [(await hello(first.url, code, token))[0] for token in tokens]
        await clients[0].send({"type": "start", "id": "go"})
        await clients[0].until(lambda m: m["type"] == "ack" and m.get("id") == "go")
        await clients[1].until(lambda m: m.get("state") is not None)
        started = [next(m for m in c.received if m.get("state")) for c in clients]
        assert started[0]["v"] == started[1]["v"]
        acting = next(i for i, m in enumerate(started) if m["you"]["decision"] == "play")
        return code, tokens, started[0]["v"], acting, started[acting]["you"]["legal_moves"][0]

    code, tokens, seen, acting, move = asyncio.run(before())
    first.__exit__()  # the clients' sockets are closed (1012)
    second = make_server(db=db)

    async def after() -> None:
        back, welcome = await hello(second.url, code, tokens[acting], since=seen)
        first = await back.recv()
        assert first["type"] == "update" and first["you"]["decision"] == "play", first
        assert first["v"] == seen + 1 == welcome["v"]  # its own return: one seat change
        await back.send({"type": "move", "id": "m", "v": seen, "move": move})
        ack = await back.until(lambda m: m["type"] in ("ack", "error"))
        assert ack["type"] == "ack", ack
        await back.close()

    asyncio.run(asyncio.wait_for(after(), 20))
