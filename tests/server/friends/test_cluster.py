"""Friends across a cluster: two ``fouronefour serve`` processes sharing PostgreSQL and
Redis. A friend's status and invites reach a profile socket on the other process; a killed
process's profiles go offline within seconds and come back as they reconnect elsewhere; an
invite acknowledged before a process died is still there; a flood spread over the processes
meets one budget."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from fouronefour.server.friends.presence import GONE_SECONDS
from fouronefour.server.players.throttle import BUDGETS, Attempt
from tests import sandbox

from ..conftest import ServeProcess, free_port
from .helpers import Page, presence


@pytest.fixture
def processes(
    postgres: sandbox.LocalPostgres, redis_server: sandbox.LocalRedis
) -> Iterator[list[ServeProcess]]:
    db = postgres.new_database()
    made = [
        ServeProcess(db, free_port(), "--broker", redis_server.url, "--node", f"f{n}")
        for n in range(2)
    ]
    try:
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda p: p.start(), made))
        yield made
    finally:
        for process in made:
            process.stop()


def test_presence_and_invites_cross_processes_and_survive_a_kill(
    processes: list[ServeProcess],
) -> None:
    one, two = processes

    async def scenario() -> None:
        ann, bob = Page(one.url, name="Ann"), Page(two.url, name="Bob")
        ann.befriend(bob)  # (Ann's table on one, Bob's join relayed there from two)
        ann_socket = await ann.socket(one.url)
        await ann_socket.until(presence(bob.id, "offline"))
        bob_socket = await bob.socket(two.url)
        await ann_socket.until(presence(bob.id, "online"))
        await bob_socket.until(presence(ann.id, "online"))
        # Bob sits at a table of his own process's: Ann is told "at a table" only.
        code = bob.table_with()
        await bob_socket.send({"type": "at", "table": code})
        await ann_socket.until(presence(bob.id, "table"))
        # Ann invites him to hers (owned by one; Bob's socket is on two).
        mine = ann.table_with()
        started = time.monotonic()
        assert ann.post("/api/friends/invites", {"id": bob.id, "table": mine}).status_code == 201
        live = await bob_socket.until(lambda m: m.get("type") == "invite")
        assert live["link"] == f"/t/{mine}" and time.monotonic() - started < 2.0
        await bob_socket.send({"type": "seen", "id": live["id"]})
        await bob_socket.send({"type": "ping"})  # (answered once the seen is written)
        await bob_socket.until(lambda m: m.get("type") == "pong")
        # Two is killed: Bob goes offline for Ann within seconds.
        two.kill()
        killed = time.monotonic()
        await ann_socket.until(presence(bob.id, "offline"), timeout=GONE_SECONDS + 5)
        assert time.monotonic() - killed < GONE_SECONDS + 3
        # An invite Ann had answered (201) before a process died is kept: one dies now.
        assert ann.post("/api/friends/invites", {"id": bob.id, "table": mine}).status_code == 201
        one.kill()
        two.start()
        # Bob's page reconnects to two (restarted): the invite waits for him there.
        again = await bob.socket(two.url)
        waiting = await again.until(lambda m: m.get("type") == "invites")
        assert [i["link"] for i in waiting["invites"]] == [f"/t/{mine}"]
        # Ann's page reconnects to two as well, and sees Bob online there.
        ann_again = await ann.socket(two.url)
        await ann_again.until(presence(bob.id, "online"))
        one.start()
        # Bob moves to one: he stays online for Ann throughout, then goes when he leaves.
        bob_on_one = await bob.socket(one.url)
        await again.close()
        await asyncio.sleep(1.0)
        assert not [m for m in ann_again.got if m.get("friends", {}).get(bob.id) == {
            "status": "offline"}]  # fmt: skip
        await bob_on_one.close()
        await ann_again.until(presence(bob.id, "offline"))
        await ann_again.close()

    asyncio.run(scenario())


def test_a_request_flood_spread_over_processes_meets_one_budget(
    processes: list[ServeProcess],
) -> None:
    one, two = processes
    ann = Page(one.url)
    burst = BUDGETS[Attempt.FRIEND_REQUEST_ACCOUNT].burst
    codes = [
        ann.http.post(
            f"{(one, two)[n % 2].url}/api/friends/requests",
            json={"username": f"nobody{n}"},
            headers=ann.headers,
        ).status_code
        for n in range(burst + 2)
    ]
    assert codes == [404] * burst + [429, 429]
