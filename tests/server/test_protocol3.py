"""Protocol 3 over real sockets, as a client reads docs/protocol.md: the end-of-round pause
and ready, chat and quick phrases, presence, the host's tools and seat handoff.

One server for the module (each test its own tables)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from fouronefour.server.config import ServerConfig

from .conftest import Client, ThreadServer
from .test_protocol import hello, is_type, new_table


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    path: Path = tmp_path_factory.mktemp("protocol3") / "tables.db"
    with ThreadServer(ServerConfig(db=str(path), bot_delay=0.0, bot_processes=0)) as running:
        yield running


def run(scenario: Callable[[], Any], seconds: float = 30) -> Any:
    return asyncio.run(asyncio.wait_for(scenario(), seconds))


def shed(legal: list[str]) -> str:
    real = [m for m in legal if m != "pass"]
    return max(real, key=len) if real else "pass"


def round_ended(message: dict[str, Any]) -> bool:
    return message["type"] == "update" and bool((message["state"] or {}).get("round_end"))


async def answer_until(client: Client, stop: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Play this seat's turns (its longest move) until a message passes ``stop``."""
    versions = [m for m in client.received if m["type"] in ("update", "snapshot")]
    message = versions[-1] if versions else None  # a prompt may have been read already
    you = next((m["you"] for m in reversed(versions) if m.get("you")), None)
    while True:
        if message is not None and you and you["decision"]:
            move = shed(you["legal_moves"])
            await client.send(
                {"type": "move", "id": f"m{message['v']}", "v": message["v"], "move": move}
            )
        message = await client.recv(20)
        if stop(message):
            return message
        if message["type"] not in ("update", "snapshot"):
            message = None
        elif message.get("you"):
            you = message["you"]
        else:
            message = None  # nothing new to answer


async def started(url: str, humans: int, **options: Any) -> tuple[str, list[str], list[Client]]:
    """A table of ``humans`` connected players and bots, its first match started."""
    code, tokens = await new_table(url, humans=humans, **options)
    clients = [(await hello(url, code, token))[0] for token in tokens]
    await clients[0].send({"type": "fill_bots", "id": "fill"})
    await clients[0].send({"type": "start", "id": "go"})
    await clients[0].until(lambda m: m["type"] == "ack" and m["id"] == "go")
    return code, tokens, clients


def test_a_round_over_the_wire_with_its_pause_and_ready(server: ThreadServer) -> None:
    async def scenario() -> None:
        code, _, clients = await started(
            server.url, 2, hooking=False, turn_seconds=60, round_pause_seconds=30
        )
        watcher, _ = await hello(server.url, code)
        ends = await asyncio.gather(*(answer_until(c, round_ended) for c in clients))
        pause = ends[0]["state"]["round_end"]
        assert ends[1]["state"]["round_end"] == pause
        assert "round_start" not in [e["type"] for e in ends[0]["events"]]
        assert pause["ready"] == [2, 3] and pause["until"] > ends[0]["server_time"] + 29_000
        caught = pause["result"]["caught"]
        assert [s for s, hand in enumerate(pause["hands"]) if hand] == sorted(caught)
        for seat, end in enumerate(ends):  # each sees its own cards left, and no prompt
            if "you" in end:
                assert end["you"]["decision"] is None
                assert (end["you"]["hand"] or None) == pause["hands"][seat]
        seen = await watcher.until(round_ended)
        assert seen["state"]["round_end"] == pause and "you" not in seen
        # Ready: each acknowledged inside its update; the last one starts the next round.
        await clients[0].send({"type": "ready", "id": "r0"})
        ack = await clients[0].until(lambda m: m["type"] == "ack" and m["id"] == "r0")
        update = clients[0].received[-2]
        assert update["ack"] == ack and update["events"] == [{"type": "ready", "seat": 0}]
        assert update["state"]["round_end"]["ready"] == [0, 2, 3]
        await clients[1].send({"type": "ready", "id": "r1"})
        start = await clients[1].until(lambda m: m["type"] == "update" and "ack" in m)
        assert [e["type"] for e in start["events"]] == ["ready", "round_start"]
        assert start["state"]["round_end"] is None and start["state"]["round_number"] == 2
        assert len(start["you"]["hand"]) >= 20  # the new deal
        await watcher.send({"type": "ready", "id": "w"})
        assert (await watcher.until(is_type("error")))["code"] == "not_seated"
        await clients[0].send({"type": "ready", "id": "late"})
        late = await clients[0].until(lambda m: m["type"] == "error")
        assert late["code"] == "wrong_status"
        for client in [*clients, watcher]:
            await client.close()

    run(scenario, 60)


def test_chat_and_quick_phrases_between_players_and_spectators(server: ThreadServer) -> None:
    async def scenario() -> None:
        code, tokens = await new_table(server.url, humans=2)
        host, _ = await hello(server.url, code, tokens[0])
        guest, welcome = await hello(server.url, code, tokens[1])
        assert welcome["name"] == "P1"
        watcher, watched = await hello(server.url, code, name="Dana")
        assert watched["name"] == "Dana" and watched["role"] == "spectator"

        await host.send({"type": "chat", "id": 1, "text": "  hello <b>all</b>  "})
        line = await guest.until(
            lambda m: m["type"] == "update" and m["events"][0]["type"] == "chat"
        )
        chat = line["events"][0]
        assert {k: v for k, v in chat.items() if k != "at"} == {
            "type": "chat",
            "seat": 0,
            "name": "Host",
            "spectator": False,
            "text": "hello <b>all</b>",  # as text; trimmed, never interpreted
        }
        assert (await watcher.until(lambda m: m.get("v") == line["v"]))["events"] == [chat]
        await guest.send({"type": "chat", "id": 2, "phrase": "good_luck"})
        phrase = await host.until(
            lambda m: m["type"] == "update" and m["events"][0].get("phrase") is not None
        )
        assert phrase["events"][0]["phrase"] == "good_luck" and "text" not in phrase["events"][0]

        async def refused(client: Client, body: dict[str, Any]) -> dict[str, Any]:
            await client.send(body)
            error = await client.until(
                lambda m: m["type"] in ("error", "ack") and m["id"] == body["id"]
            )
            assert error["type"] == "error", error
            return error

        for n, bad in enumerate(
            [
                {"text": ""},
                {"text": "x" * 201},
                {"text": "two\nlines"},
                {"phrase": "launch"},
                {"text": "a", "phrase": "wow"},
                {"text": 7},
            ]
        ):
            assert (await refused(host, {"type": "chat", "id": f"bad{n}", **bad}))[
                "code"
            ] == "bad_message"
        assert (await refused(watcher, {"type": "chat", "id": "w1", "text": "hi"}))[
            "code"
        ] == "chat_closed"
        # The guest has 4 lines left of its burst of 5; the 6th waits.
        for n in range(4):
            await guest.send({"type": "chat", "id": f"g{n}", "text": f"line {n}"})
            await guest.until(lambda m, n=n: m["type"] == "ack" and m["id"] == f"g{n}")
        limited = await refused(guest, {"type": "chat", "id": "g5", "text": "one too many"})
        assert limited["code"] == "rate_limited" and 0 < limited["retry_after_ms"] <= 2000
        # The host lets spectators chat: a spectator line carries its name and no seat.
        await host.send({"type": "settings", "id": "s", "spectator_chat": True})
        setting = await host.until(lambda m: m["type"] == "ack" and m["id"] == "s")
        await watcher.until(lambda m: m.get("v") == setting["v"])
        await watcher.send({"type": "chat", "id": "w2", "text": "go team A"})
        said = await host.until(
            lambda m: m["type"] == "update" and m["events"][0].get("name") == "Dana"
        )
        assert said["events"][0]["seat"] is None and said["events"][0]["spectator"] is True
        # A newcomer finds the lines in its snapshot, oldest first.
        late, _ = await hello(server.url, code)
        snapshot = await late.until(is_type("snapshot"))
        texts = [c.get("text") or c.get("phrase") for c in snapshot["chat"]]
        assert texts == [
            "hello <b>all</b>",
            "good_luck",
            "line 0",
            "line 1",
            "line 2",
            "line 3",
            "go team A",
        ]
        assert snapshot["table"]["settings"]["spectator_chat"] is True
        for client in (host, guest, watcher, late):
            await client.close()

    run(scenario)


def test_presence_names_the_spectators_and_is_coalesced(server: ThreadServer) -> None:
    async def scenario() -> None:
        code, tokens = await new_table(server.url, humans=1)
        host, _ = await hello(server.url, code, tokens[0])
        first = await host.until(is_type("presence"))
        assert first["spectators"] == 0 and first["watchers"] == []
        watchers = [(await hello(server.url, code, name=f"W{n}"))[0] for n in range(5)]
        anonymous, welcome = await hello(server.url, code)
        assert welcome["name"].startswith("Guest ")
        await host.until(lambda m: m["type"] == "presence" and m["spectators"] == 6, 5)
        seen = [m for m in host.received if m["type"] == "presence"][1:]
        assert 1 <= len(seen) <= 3  # six arrivals within a moment: at most one a second
        assert seen[-1]["watchers"] == [*(f"W{n}" for n in range(5)), welcome["name"]]
        for client in watchers:
            await client.close()
        last = await host.until(lambda m: m["type"] == "presence" and m["spectators"] == 1, 5)
        assert last["watchers"] == [welcome["name"]]
        # A spectator's name is checked like a seat's.
        bad = await Client.connect(server.url, code)
        await bad.send({"type": "hello", "protocol": 3, "name": "x" * 40})
        assert (await bad.recv())["code"] == "bad_name"
        for client in (host, anonymous, bad):
            await client.close()

    run(scenario)


def test_a_kicked_player_is_refused_a_seat_until_the_host_hands_one(server: ThreadServer) -> None:
    """Issue 27: the kicked player could sit again at once. Their join and a handoff claim
    that carry their token are refused with 403 ``kicked``; a handoff the host offered
    lets them back."""

    async def scenario() -> None:
        code, tokens = await new_table(server.url, humans=3)
        host, _ = await hello(server.url, code, tokens[0])
        await host.send({"type": "kick", "id": 1, "seat": 2})
        await host.until(lambda m: m["type"] == "ack" and m["id"] == 1)
        url = f"{server.url}/api/tables/{code}"
        refused = httpx.post(f"{url}/join", json={"name": "Bob", "seat": 2, "token": tokens[2]})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "kicked"
        assert httpx.get(url).json()["seats"][2]["kind"] == "empty"
        await host.send({"type": "fill_bots", "id": 2})
        await host.send({"type": "handoff", "id": 3, "seat": 3})
        offer = await host.until(lambda m: m["type"] == "ack" and m["id"] == 3)
        claim = {"handoff": offer["handoff"]["secret"], "name": "Bob", "token": tokens[2]}
        claimed = httpx.post(f"{url}/claim", json=claim)
        assert claimed.status_code == 200, claimed.text
        assert claimed.json()["seat"] == 3
        await host.close()

    run(scenario)


def test_the_host_removes_and_moves_players_between_matches(server: ThreadServer) -> None:
    async def scenario() -> None:
        code, tokens = await new_table(server.url, humans=3)
        host, _ = await hello(server.url, code, tokens[0])
        ann, _ = await hello(server.url, code, tokens[1])
        bob, _ = await hello(server.url, code, tokens[2])

        async def request(client: Client, body: dict[str, Any]) -> dict[str, Any]:
            await client.send(body)
            return await client.until(
                lambda m: m["type"] in ("ack", "error") and m["id"] == body["id"]
            )

        assert (await request(ann, {"type": "kick", "id": 1, "seat": 2}))["code"] == "not_host"
        assert (await request(host, {"type": "kick", "id": 2, "seat": 0}))["code"] == "bad_seat"
        assert (await request(host, {"type": "kick", "id": 3, "seat": 3}))["code"] == "bad_seat"
        assert (await request(host, {"type": "move_seat", "id": 4, "from": 1, "to": 1}))[
            "code"
        ] == "bad_seat"
        # Ann moves to seat 3; her connection follows, with the same token.
        moved = await request(host, {"type": "move_seat", "id": 5, "from": 1, "to": 3})
        assert moved["type"] == "ack"
        swap = await ann.until(lambda m: m.get("v") == moved["v"])
        assert swap["events"][0] == {"type": "seats_swapped", "seats": [1, 3], "host_seat": 0}
        assert [(e["seat"], e["name"]) for e in swap["events"][1:]] == [(1, None), (3, "P1")]
        await ann.send({"type": "chat", "id": "c", "text": "from seat 3"})
        said = await host.until(
            lambda m: m["type"] == "update" and m["events"][0]["type"] == "chat"
        )
        assert said["events"][0]["seat"] == 3
        again, welcome = await hello(server.url, code, tokens[1])
        assert welcome["seat"] == 3
        # Bob is removed: told why, closed, and his token no longer opens a seat.
        kicked = await request(host, {"type": "kick", "id": 6, "seat": 2})
        assert kicked["type"] == "ack"
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await bob.recv()
        assert [m.get("code") for m in bob.received if m["type"] == "error"] == ["kicked"]
        assert not any(m.get("v") == kicked["v"] for m in bob.received)
        gone = await Client.connect(server.url, code)
        await gone.send({"type": "hello", "protocol": 3, "token": tokens[2]})
        assert (await gone.recv())["code"] == "bad_token"
        table = httpx.get(f"{server.url}/api/tables/{code}").json()
        assert [s["kind"] for s in table["seats"]] == ["human", "empty", "empty", "human"]
        # A missing or wrong-typed seat is bad_message (not "no seat None"); two empty
        # seats have nobody to move: refused, as a no-op with a new version was.
        for body in (
            {"type": "kick", "id": 10, "seat": "1"},
            {"type": "kick", "id": 11},
            {"type": "move_seat", "id": 12, "from": 1},
        ):
            refused = await request(host, body)
            assert refused["code"] == "bad_message" and "None" not in refused["message"]
        empty = await request(host, {"type": "move_seat", "id": 13, "from": 1, "to": 2})
        assert empty["code"] == "bad_seat"
        joined = httpx.post(f"{server.url}/api/tables/{code}/join", json={"name": "Cy"}).json()
        assert joined["error"]["code"] == "bad_message", joined
        assert httpx.get(f"{server.url}/api/tables/{code}").json()["version"] == table["version"]
        await host.send({"type": "fill_bots", "id": 7})
        await host.send({"type": "start", "id": 8})
        await host.until(lambda m: m["type"] == "ack" and m["id"] == 8)
        playing = await request(host, {"type": "move_seat", "id": 9, "from": 1, "to": 2})
        assert playing["code"] == "wrong_status"
        for client in (host, ann, again, gone):
            await client.close()

    run(scenario)


def test_a_seat_is_handed_to_a_new_device_mid_match(server: ThreadServer) -> None:
    async def scenario() -> None:
        code, _, clients = await started(server.url, 2, hooking=False, turn_seconds=60)
        host, guest = clients
        watcher, _ = await hello(server.url, code)
        guest_you = (await guest.until(lambda m: m["type"] == "update" and "you" in m))["you"]
        await guest.send({"type": "handoff", "id": "h", "seat": 0})
        assert (await guest.until(is_type("error")))["code"] == "not_host"
        await watcher.send({"type": "handoff", "id": "w", "seat": 1})
        assert (await watcher.until(is_type("error")))["code"] == "not_seated"
        await host.send({"type": "handoff", "id": "h1", "seat": 1})
        first = await host.until(lambda m: m["type"] == "ack" and m["id"] == "h1")
        await host.send({"type": "handoff", "id": "h2", "seat": 1})  # replaces the first
        offer = await host.until(lambda m: m["type"] == "ack" and m["id"] == "h2")
        secret = offer["handoff"]["secret"]
        assert offer["handoff"]["seat"] == 1 and offer["v"] == first["v"]  # no update
        assert offer["handoff"]["expires_at"] > offer_time(host) + 590_000

        async with httpx.AsyncClient(base_url=server.url) as http:
            stale = await http.post(
                f"/api/tables/{code}/claim",
                json={"handoff": first["handoff"]["secret"], "name": "Bo"},
            )
            assert stale.status_code == 400 and stale.json()["error"]["code"] == "bad_handoff"
            claimed = await http.post(
                f"/api/tables/{code}/claim", json={"handoff": secret, "name": "Bo"}
            )
            assert claimed.status_code == 200, claimed.text
            body = claimed.json()
            assert body["seat"] == 1 and body["table"]["seats"][1]["name"] == "Bo"
            reused = await http.post(
                f"/api/tables/{code}/claim", json={"handoff": secret, "name": "Cy"}
            )
            assert reused.json()["error"]["code"] == "bad_handoff"
            # A bot's seat waits for the end of the round.
            await host.send({"type": "handoff", "id": "h3", "seat": 2})
            bot_offer = await host.until(lambda m: m["type"] == "ack" and m["id"] == "h3")
            busy = await http.post(
                f"/api/tables/{code}/claim",
                json={"handoff": bot_offer["handoff"]["secret"], "name": "Di"},
            )
            assert busy.status_code == 409 and busy.json()["error"]["code"] == "wrong_status"
        # The old device is told and closed; the new one has the seat's cards and turn.
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await guest.recv()
        errors = [m for m in guest.received if m["type"] == "error"]
        assert errors[-1]["code"] == "bad_token"
        new_device, welcome = await hello(server.url, code, body["token"])
        assert welcome["seat"] == 1 and welcome["name"] == "Bo"
        snapshot = await new_device.until(is_type("snapshot"))
        assert snapshot["you"]["seat"] == 1
        assert len(snapshot["you"]["hand"]) <= len(guest_you["hand"]) == 27
        # Nobody but the asking connection ever saw a secret.
        for client in (guest, watcher, new_device):
            assert secret not in json.dumps(client.received)
        for client in (host, watcher, new_device):
            await client.close()

    run(scenario)


def offer_time(client: Client) -> int:
    return max(int(m["server_time"]) for m in client.received if "server_time" in m)


def test_the_documented_config_is_the_servers(server: ThreadServer) -> None:
    """docs/protocol.md's /api/config example names every default and limit the server
    sends (its `defaults` lacked `private`)."""
    import re

    from .conftest import ROOT

    doc = (ROOT / "docs" / "protocol.md").read_text()
    example = re.search(r"### `GET /api/config`\n```json\n(.*?)```", doc, re.S)
    assert example is not None
    documented = json.loads(example.group(1).replace(", ...", ""))
    served = httpx.get(f"{server.url}/api/config").json()
    assert set(documented) == set(served)
    for part in ("defaults", "limits"):
        assert set(documented[part]) == set(served[part]), part
