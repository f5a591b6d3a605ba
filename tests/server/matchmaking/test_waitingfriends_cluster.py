"""Play again's waiting friend across a real cluster of two (PostgreSQL and Redis): Ann and
Bob's table is owned by one process, Ann's friend Dee waits in quick match through the other;
Bob declines; Dee's page, asking its own process, finds her seat in his place, and her
profile socket there is told Ann's invite."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.sync.client import connect

from tests import sandbox

from ..conftest import ThreadServer, thread_cluster
from ..friends.helpers import Page


@pytest.fixture(scope="module")
def patient_cluster(
    postgres: sandbox.LocalPostgres, redis_server: sandbox.LocalRedis
) -> Iterator[list[ThreadServer]]:
    """Two processes whose quick-match queue never fills with bots while a test runs."""
    with thread_cluster(
        db=postgres.new_database(), broker=redis_server.url, quickmatch_bot_seconds=600.0
    ) as servers:
        yield servers


def finished(ann: Page, bob: Page) -> tuple[str, str, str]:
    """Ann's 2-player table (her session's: its seat is her profile's) with Bob, its match
    played out by the table's bot on 50 ms timers; its code and both seat tokens."""
    options = {"players": 2, "turn_seconds": 0.05, "hook_mode": "fast", "hook_seconds": 0.05,
               "bot": "greedy", "round_pause_seconds": 0}  # fmt: skip
    made = ann.post("/api/tables", {"name": "Ann", **options}).json()
    code, ann_token = made["code"], made["token"]
    joined = bob.post(f"/api/tables/{code}/join", {"name": "Bob", "seat": 1}).json()
    with connect(ann.url.replace("http", "ws", 1) + f"/ws/{code}") as socket:
        socket.send(json.dumps({"type": "hello", "protocol": 3, "token": ann_token}))
        socket.send(json.dumps({"type": "start", "id": "go"}))
        while '"go"' not in str(socket.recv(timeout=10)):
            pass
    deadline = time.monotonic() + 90
    while ann.http.get(f"/api/tables/{code}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the match did not end"
        time.sleep(0.2)
    return code, ann_token, joined["token"]


def test_a_friend_waiting_through_the_other_process_takes_the_declined_seat(
    patient_cluster: list[ThreadServer],
) -> None:
    owner, other = patient_cluster
    ann, bob = Page(owner.url, name="Ann"), Page(owner.url, name="Bob")
    dee = Page(other.url, name="Dee")
    ann.befriend(dee)

    async def scenario() -> None:
        socket = await dee.socket(other.url)
        try:
            code, ann_token, bob_token = finished(ann, bob)
            assert dee.post("/api/quickmatch").status_code == 200
            # Offered and declined through the other process (relayed to the owner).
            ann.http.post(f"{other.url}/api/tables/{code}/again", json={"token": ann_token})
            bob.http.post(
                f"{other.url}/api/tables/{code}/again/answer",
                json={"token": bob_token, "accept": False},
            )
            deadline = time.monotonic() + 10
            while True:
                status: dict[str, Any] = dee.http.get("/api/quickmatch", headers=dee.headers).json()
                if status["state"] == "seated":
                    break
                assert status["state"] == "waiting", status
                assert time.monotonic() < deadline, "Dee was never seated"
                await asyncio.sleep(0.2)
            assert status["seat"] == 1 and status["node"]
            table = dee.http.get(f"/api/tables/{status['code']}").json()
            assert [(s["kind"], s["name"]) for s in table["seats"]] == [
                ("human", "Ann"),
                ("human", "Dee"),
            ]
            invite = await socket.until(lambda m: m.get("type") == "invite", timeout=10)
            assert invite["from"] == {"id": ann.id, "name": "Ann"}
            assert invite["code"] == status["code"]
            # One queue: asked through the owner, she is out of it and seated too.
            there = dee.http.get(f"{owner.url}/api/quickmatch", headers=dee.headers).json()
            assert there["state"] == "seated" and there["code"] == status["code"]
        finally:
            await socket.close()

    asyncio.run(scenario())
