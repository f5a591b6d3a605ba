"""Kill a real ``fouronefour serve`` with SIGKILL mid-match, start it again on the same
database (a SQLite file; PostgreSQL with Redis as the broker): the clients reconnect and
finish the match, and no acknowledged move is lost."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import httpx
import pytest

from fouronefour.server import sandbox

from .conftest import ServeProcess, free_port, load_example_client


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
