"""'Your turn' by Web Push (push/turns.py): a match on a real server, its signed-in player's
page hidden (the socket's ``visibility`` message) or closed, the notice decrypted at the
local push service; a page in sight, or the kind switched off, gets none."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx

from fouronefour.server.notify import Notice
from fouronefour.server.push.turns import TurnNotices
from fouronefour.server.sockets.admission import Admission

from ... import sandbox
from ..conftest import Client, ThreadServer
from ..test_protocol import hello
from .pushservice import PushService

MakeServer = Callable[..., ThreadServer]


def signed_in_table(
    server: ThreadServer, push_service: PushService
) -> tuple[httpx.Client, str, str]:
    """A profile with a device subscribed, host of a new table: (its page, code, token)."""
    page = httpx.Client(base_url=server.url)
    page.get("/api/me")
    page.headers["X-CSRF-Token"] = page.cookies["fof_csrf"]
    _, subscription = push_service.device()
    assert page.post("/api/me/push/subscriptions", json=subscription).status_code == 201
    # (No hooking: fair claim windows, 3 s after every single card, made a turn come 12 s
    # or more after the one before, past the tests' wait on a loaded machine.)
    made = page.post("/api/tables", json={"name": "Ann", "hooking": False})
    assert made.status_code == 201, made.text
    return page, made.json()["code"], made.json()["token"]


async def start(client: Client) -> None:
    await client.send({"type": "fill_bots", "id": "fill"})
    await client.send({"type": "start", "id": "go"})
    await client.until(lambda m: m["type"] == "ack" and m["id"] == "go")


def my_turn(message: dict[str, Any]) -> bool:
    you = message.get("you") if message["type"] in ("update", "snapshot") else None
    return bool(you and you.get("decision") not in (None, "hook", "unhook"))


async def next_turn(client: Client) -> dict[str, Any]:
    """The seat's turn: already offered (in the update the last request's ack rode in), or
    the next one."""
    seen = [m for m in client.received if m["type"] in ("update", "snapshot") and m.get("you")]
    if seen and my_turn(seen[-1]):
        return seen[-1]
    return await client.until(my_turn, timeout=20)


def test_a_hidden_page_is_told_its_turn_once_and_never_a_card(
    make_server: MakeServer, push_service: PushService
) -> None:
    server = make_server(push_private_endpoints=True, turn_seconds=30)
    _, code, token = signed_in_table(server, push_service)

    async def scenario() -> None:
        client, _ = await hello(server.url, code, token)
        await client.send({"type": "visibility", "hidden": True})
        await start(client)
        await next_turn(client)
        notices = await asyncio.to_thread(push_service.wait, 1)
        assert notices[0].payload == {
            "kind": "turn",
            "title": "Your turn",
            "body": f"Table {code} is waiting for your move",
            "url": f"/t/{code}",
            "tag": f"turn-{code}",
        }
        assert notices[0].headers["urgency"] == "high"
        # The player is back on the page: their next turns are theirs to see.
        await client.send({"type": "visibility", "hidden": False})
        await client.send({"type": "pause", "id": "p"})
        await client.until(lambda m: m["type"] == "ack" and m["id"] == "p")
        await client.send({"type": "resume", "id": "r"})
        await client.until(lambda m: m["type"] == "ack" and m["id"] == "r")
        await client.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))
    time.sleep(0.3)
    assert len(push_service.received) == 1 and not push_service.refused


def test_a_page_in_sight_gets_no_notice_a_closed_one_does(
    make_server: MakeServer, push_service: PushService
) -> None:
    server = make_server(push_private_endpoints=True, turn_seconds=30)
    page, code, token = signed_in_table(server, push_service)

    async def scenario() -> None:
        client, _ = await hello(server.url, code, token)
        await start(client)
        turn = await next_turn(client)
        await asyncio.sleep(0.5)
        assert push_service.received == []  # (looking: nothing sent)
        # The tab closes during its turn; it plays on from another that is hidden; the
        # next turn of the seat goes to the device.
        await client.close()
        other, _ = await hello(server.url, code, token)
        await other.send({"type": "visibility", "hidden": True})
        you = turn["you"]
        move = you["legal_moves"][-1]
        await other.send({"type": "move", "id": "m1", "v": turn["v"], "move": move})
        await other.until(lambda m: m["type"] == "ack" and m["id"] == "m1")
        await next_turn(other)
        await asyncio.to_thread(push_service.wait, 1)
        await other.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))
    assert [r.payload["kind"] for r in push_service.received] == ["turn"]
    # Switched off: the next turns are not told.
    assert page.patch("/api/me/push/settings", json={"turn": False}).status_code == 200


def test_one_turn_is_told_once() -> None:
    """The same turn falling again (a commit that offers it anew) is not told twice; the
    next is; a seat with a connection in sight is not."""
    told: list[tuple[str, Notice]] = []

    class Recording:
        async def notify(self, profile_id: str, notice: Notice) -> int:
            told.append((profile_id, notice))
            return 1

    class Connection:
        hidden = False

        def replaced(self) -> None: ...

        def moved(self) -> None: ...

    async def scenario() -> None:
        admission = Admission(8, 8, 8)
        turns = TurnNotices(admission, Recording)
        turns.turn("ABCD", 0, "ann", (1, 7))
        turns.turn("ABCD", 0, "ann", (1, 7))
        turns.turn("ABCD", 0, "ann", (1, 11))
        looking = Connection()
        admission.admit_player("ABCD", 0, looking)
        turns.turn("ABCD", 0, "ann", (1, 15))
        looking.hidden = True
        turns.turn("ABCD", 0, "ann", (1, 19))
        await asyncio.sleep(0)

    asyncio.run(scenario())
    assert [(p, n.url, n.tag) for p, n in told] == [("ann", "/t/ABCD", "turn-ABCD")] * 3


def test_a_seat_relayed_through_another_process_is_told_by_the_tables_owner(
    make_server: MakeServer,
    push_service: PushService,
    postgres: sandbox.LocalPostgres,
    redis_server: sandbox.LocalRedis,
) -> None:
    """A cluster: the page's socket reaches a process that does not own the table and is
    relayed to the owner, where its ``visibility`` is kept and the turn is told."""
    url = postgres.new_database()
    settings = {"db": url, "broker": redis_server.url, "push_private_endpoints": True}
    owner, other = make_server(**settings), make_server(**settings)
    _, code, token = signed_in_table(owner, push_service)

    async def scenario() -> None:
        client, _ = await hello(other.url, code, token)
        await client.send({"type": "visibility", "hidden": True})
        await start(client)
        await next_turn(client)
        # (Relayed: the other process holds the socket, not the table.)
        assert code in owner.app.state.server.registry.tables
        assert code not in other.app.state.server.registry.tables
        notices = await asyncio.to_thread(push_service.wait, 1)
        assert notices[0].payload["url"] == f"/t/{code}"
        await client.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))
