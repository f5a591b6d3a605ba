"""The protocol over real sockets: several clients, spectators, reconnects, races, bad input."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import websockets

from .conftest import Client, ServeProcess, ThreadServer, load_example_client, server_seed
from .test_table import hookable_lead


async def new_table(url: str, humans: int = 1, **options: Any) -> tuple[str, list[str]]:
    async with httpx.AsyncClient(base_url=url) as http:
        created = await http.post("/api/tables", json={"name": "Host", **options})
        assert created.status_code == 201, created.text
        code = created.json()["code"]
        tokens = [created.json()["token"]]
        for seat in range(1, humans):
            joined = await http.post(
                f"/api/tables/{code}/join", json={"name": f"P{seat}", "seat": seat}
            )
            assert joined.status_code == 200, joined.text
            tokens.append(joined.json()["token"])
    return code, tokens


async def hello(
    url: str,
    code: str,
    token: str | None = None,
    since: int | None = None,
    name: str | None = None,
) -> tuple[Client, dict[str, Any]]:
    client = await Client.connect(url, code)
    body: dict[str, Any] = {"type": "hello", "protocol": 3}
    if token is not None:
        body["token"] = token
    if since is not None:
        body["since"] = since
    if name is not None:
        body["name"] = name
    await client.send(body)
    welcome = await client.recv()
    assert welcome["type"] == "welcome", welcome
    return client, welcome


def is_type(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda message: message["type"] == kind


def table_version(url: str, code: str) -> int:
    return int(httpx.get(f"{url}/api/tables/{code}").json()["version"])


def test_whole_match_played_by_clients_of_a_server_process(serve_process: ServeProcess) -> None:
    example = load_example_client()
    url = serve_process.url

    async def scenario() -> tuple[str, list[Any], list[dict[str, Any]]]:
        match_task = asyncio.create_task(
            example.play_match(
                url, players=4, humans=2, seed=3, options={"hook_mode": "fast", "hook_seconds": 2}
            )
        )
        code, clients = await match_task
        spectator, welcome = await hello(url, code)
        snapshot = await spectator.recv()
        await spectator.close()
        assert welcome["role"] == "spectator"
        return code, clients, [snapshot]

    code, clients, spectator_messages = asyncio.run(asyncio.wait_for(scenario(), 90))
    final = spectator_messages[0]
    assert final["state"]["match_over"] and final["table"]["status"] == "finished"
    assert final["you"] is None and final["game"]["hand"] == ""
    assert all(client.state["match_over"] for client in clients)
    replay = httpx.get(f"{url}/api/tables/{code}/replays/1").json()
    assert replay["winning_team"] == final["state"]["match_winner"]
    for client in clients:
        mine = iter(step["move"] for step in replay["steps"] if step["seat"] == client.seat)
        assert client.acked, "the client played"
        # Every acknowledged move is in the stored match, in order.
        assert all(any(move == stored for stored in mine) for _, move in client.acked)


def test_spectators_see_public_facts_only(make_server: Callable[..., ThreadServer]) -> None:
    server = make_server()

    async def scenario() -> None:
        code, tokens = await new_table(server.url, humans=1, hook_mode="fast")
        host, welcome = await hello(server.url, code, tokens[0])
        assert welcome["role"] == "player" and welcome["host"] is True
        await host.until(is_type("snapshot"))
        watcher, watcher_welcome = await hello(server.url, code)
        assert watcher_welcome == {
            **watcher_welcome,
            "role": "spectator",
            "seat": None,
            "host": False,
        }
        lobby = await watcher.recv()
        assert lobby["type"] == "snapshot" and lobby["state"] is None
        await host.send({"type": "fill_bots", "id": 1})
        await host.send({"type": "start", "id": 2})
        ack = await host.until(lambda m: m["type"] == "ack" and m["id"] == 2)
        start = await watcher.until(lambda m: m.get("v") == ack["v"])
        kinds = [e["type"] for e in start["events"]]
        assert kinds == ["status", "match_start", "round_start"]
        # The spectator never gets a hand, a decision or legal moves.
        await watcher.send({"type": "move", "id": "x", "v": start["v"], "move": "pass"})
        refused = await watcher.until(is_type("error"))
        assert refused["code"] == "not_seated"
        for message in watcher.received:
            assert message.get("you") is None
            assert '"hand"' not in json.dumps(message) or message["type"] == "snapshot"
        late, _ = await hello(server.url, code)
        snapshot = await late.recv()
        assert snapshot["you"] is None and snapshot["game"]["hand"] == ""
        assert snapshot["game"]["decision"] is None and snapshot["game"]["legal_moves"] == []
        for client in (host, watcher, late):
            await client.close()

    asyncio.run(asyncio.wait_for(scenario(), 30))


async def play_until_my_turn(client: Client) -> dict[str, Any]:
    """Read updates until this seat has a normal decision; returns its ``you``."""
    you = next((m["you"] for m in reversed(client.received) if m.get("you")), None)
    while you is None or you["decision"] not in ("play", "return"):
        message = await client.recv()
        if message["type"] in ("update", "snapshot") and message.get("you"):
            you = message["you"]
    return you


def test_reconnect_with_a_stale_version_gets_what_it_missed(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server()

    async def scenario() -> None:
        code, tokens = await new_table(
            server.url, humans=2, hook_mode="fast", hooking=False, turn_seconds=0.3
        )
        host, _ = await hello(server.url, code, tokens[0])
        guest, _ = await hello(server.url, code, tokens[1])
        await host.send({"type": "fill_bots"})
        await host.send({"type": "start", "id": "go"})
        await host.until(lambda m: m["type"] == "ack" and m["id"] == "go")
        await guest.until(lambda m: m["type"] == "update" and m["state"] is not None)
        # The guest drops its connection, remembering the last version it applied.
        seen = max(m["v"] for m in guest.received if m["type"] in ("update", "snapshot"))
        guest_you = next(m["you"] for m in reversed(guest.received) if m.get("you"))
        await guest.close()
        # The host plays on alone (bots too) for a few turns.
        for _ in range(3):
            you = await play_until_my_turn(host)
            await host.send(
                {
                    "type": "move",
                    "id": f"h{you['prompt_v']}",
                    "v": you["prompt_v"],
                    "move": you["legal_moves"][0],
                }
            )
            await host.until(is_type("ack"))
        now = table_version(server.url, code)
        assert now > seen + 3
        back, welcome = await hello(server.url, code, tokens[1], since=seen)
        assert welcome["v"] >= now
        missed = [await back.recv() for _ in range(welcome["v"] - seen)]
        assert [m["type"] for m in missed] == ["update"] * len(missed)
        assert [m["v"] for m in missed] == list(range(seen + 1, welcome["v"] + 1))
        for message in missed:
            guest_you = message.get("you", guest_you)
        fresh, _ = await hello(server.url, code, tokens[1])
        snapshot = await fresh.until(is_type("snapshot"))
        assert snapshot["you"]["hand"] == guest_you["hand"]
        assert snapshot["you"]["decision"] == guest_you["decision"]
        assert snapshot["state"]["counts"] == missed[-1]["state"]["counts"]
        # Too old, or from the future: a snapshot instead.
        for since in (-5, welcome["v"] + 100):
            again, _ = await hello(server.url, code, tokens[1], since=since)
            assert (await again.recv())["type"] == "snapshot"
            await again.close()
        for client in (host, back, fresh):
            await client.close()

    asyncio.run(asyncio.wait_for(scenario(), 30))


def test_two_clients_racing_for_one_hook_nearest_wins(
    make_server: Callable[..., ThreadServer],
) -> None:
    seed = server_seed(lambda m: hookable_lead(m, 2) is not None)
    server = make_server(seed=seed)

    async def scenario() -> None:
        code, tokens = await new_table(server.url, humans=4, hook_mode="fast", hook_seconds=5)
        clients = [(await hello(server.url, code, token))[0] for token in tokens]
        await clients[0].send({"type": "start", "id": "go"})
        starts = [
            await c.until(lambda m: m["type"] == "update" and m["state"] is not None)
            for c in clients
        ]
        leader = next(i for i, m in enumerate(starts) if m.get("you", {}).get("decision"))
        leader_you = starts[leader]["you"]
        hand = leader_you["hand"]
        # The same rank the engine-level helper picks: a single two others can hook.
        others = [(await hello(server.url, code, tokens[i]))[0] for i in range(4)]
        snapshots = [await c.until(is_type("snapshot")) for c in others]
        holders = {
            rank: [
                i for i in range(4) if i != leader and snapshots[i]["you"]["hand"].count(rank) >= 2
            ]
            for rank in set(hand) - set("BR")
        }
        rank = next(r for r in hand if r in holders and len(holders[r]) >= 2)
        for client in others:
            await client.close()
        await clients[leader].send(
            {"type": "move", "id": "lead", "v": leader_you["prompt_v"], "move": rank}
        )
        offered = sorted(holders[rank], key=lambda s: (s - leader) % 4)
        prompts = {}
        for seat in offered:
            prompts[seat] = await clients[seat].until(
                lambda m: m["type"] == "update" and (m.get("you") or {}).get("decision") == "hook"
            )
        nearest, farther = offered[0], offered[-1]
        # Both claim at once, the farther one's message first.
        await asyncio.gather(
            clients[farther].send(
                {"type": "move", "id": "f", "v": prompts[farther]["v"], "move": rank * 2}
            ),
            clients[nearest].send(
                {"type": "move", "id": "n", "v": prompts[nearest]["v"], "move": rank * 2}
            ),
        )
        closed = await clients[0].until(
            lambda m: (
                m["type"] == "update" and any(e["type"] == "window_close" for e in m["events"])
            )
        )
        close_event = next(e for e in closed["events"] if e["type"] == "window_close")
        assert close_event["claimed_by"] == nearest
        assert {"type": "hook", "seat": nearest, "move": rank * 2} in closed["events"]
        for seat in (nearest, farther):
            ack = await clients[seat].until(lambda m: m["type"] in ("ack", "error"))
            assert ack["type"] == "ack" and ack["claim"] is True
        for client in clients:
            await client.close()

    asyncio.run(asyncio.wait_for(scenario(), 30))


def test_bad_input_gets_a_clear_error_and_changes_nothing(
    make_server: Callable[..., ThreadServer],
) -> None:
    server = make_server(rate_per_second=5.0, rate_burst=8, rate_strikes=3)
    url = server.url

    async def scenario() -> None:
        code, tokens = await new_table(url, humans=2, hook_mode="fast", hooking=False)
        host, _ = await hello(url, code, tokens[0])
        await host.send({"type": "fill_bots"})
        await host.send({"type": "start", "id": "go"})
        await host.until(lambda m: m["type"] == "ack" and m["id"] == "go")
        guest, _ = await hello(url, code, tokens[1])
        guest_you = (await guest.until(is_type("snapshot")))["you"]
        spectator, _ = await hello(url, code)
        await spectator.until(is_type("snapshot"))
        version = table_version(url, code)

        async def expect(client: Client, body: dict[str, Any] | str, *codes: str) -> str:
            await client.send(body)
            message = await client.until(lambda m: m["type"] in ("error", "ack"))
            assert message["type"] == "error" and message["code"] in codes, message
            await asyncio.sleep(0.25)  # stay under the rate limit
            return str(message["message"])

        await expect(spectator, "{not json", "bad_json")
        await expect(spectator, "[1, 2]", "bad_json")
        await expect(spectator, {"type": "launch_missiles"}, "unknown_type")
        await expect(spectator, {"type": "hello", "protocol": 3}, "already_hello")
        await expect(spectator, {"type": "move", "move": "3", "v": version}, "not_seated")
        await expect(spectator, {"type": "start"}, "not_seated")
        await expect(spectator, {"type": "ping", "id": {"nested": 1}}, "bad_message")
        whose = guest_you["decision"] is None
        # A move by a seat whose turn it is not (someone else's turn).
        idle, idle_token_index = (guest, 1) if whose else (host, 0)
        del idle_token_index
        await expect(idle, {"type": "move", "id": "m", "v": version, "move": "3"}, "not_your_turn")
        await expect(guest, {"type": "start"}, "not_host")
        assert table_version(url, code) == version

        # The seat to act: an illegal move, a bad version, an old version, then a real move
        # and its replay.
        actor = host if whose else guest
        snapshot_you = guest_you
        if whose:
            fresh, _ = await hello(url, code, tokens[0])
            snapshot_you = (await fresh.until(is_type("snapshot")))["you"]
            await fresh.close()
        prompt_v = snapshot_you["prompt_v"]
        version = table_version(url, code)
        await expect(
            actor, {"type": "move", "id": "i", "v": prompt_v, "move": "3345"}, "illegal_move"
        )
        await expect(actor, {"type": "move", "id": "b", "v": "new", "move": "pass"}, "bad_message")
        long = {"type": "move", "id": "l", "v": prompt_v, "move": "3" * 3000}
        assert "at most 200 characters" in await expect(actor, long, "bad_message")
        await expect(
            actor,
            {"type": "move", "id": "s", "v": prompt_v - 1, "move": snapshot_you["legal_moves"][0]},
            "stale_version",
        )
        # A move without an id (nothing would name its ack or error): refused.
        await expect(
            actor,
            {"type": "move", "v": prompt_v, "move": snapshot_you["legal_moves"][0]},
            "bad_message",
        )
        assert table_version(url, code) == version
        move = snapshot_you["legal_moves"][0]
        await actor.send({"type": "move", "id": "once", "v": prompt_v, "move": move})
        first = await actor.until(is_type("ack"))
        # Protocol 2: the ack came inside the update the move made, not as a message.
        update = actor.received[-2]
        assert update["type"] == "update" and update["ack"] == first, update
        assert first["v"] == update["v"] and first["move"] is not None
        others = [host, guest]
        others.remove(actor)
        seen = await others[0].until(lambda m: m.get("v") == update["v"])
        assert "ack" not in seen  # another seat's copy carries none
        await asyncio.sleep(0.25)
        after = table_version(url, code)
        await actor.send({"type": "move", "id": "once", "v": prompt_v, "move": move})
        second = await actor.until(lambda m: m["type"] in ("ack", "error"))
        assert second == first
        await asyncio.sleep(0.25)
        # The same move again under a new id: refused whether or not the seat has a new turn.
        await expect(
            actor,
            {"type": "move", "id": "twice", "v": prompt_v, "move": move},
            "stale_version",
            "not_your_turn",
        )
        assert table_version(url, code) >= after

        # A message over 4096 bytes (counted in UTF-8) is answered too_large, then the
        # connection is closed (1009); the table is untouched.
        before = table_version(url, code)
        big, _ = await hello(url, code)
        await big.send({"type": "chat", "id": 1, "text": "字" * 1400})  # 4,200 bytes
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await big.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        assert [m.get("code") for m in big.received[-1:]] == ["too_large"], big.received
        # Flooding: rate_limited, then the connection is closed (1008).
        flood, _ = await hello(url, code)
        for i in range(40):
            try:
                await flood.send({"type": "ping", "id": i})
            except websockets.ConnectionClosed:
                break
        codes = []
        with pytest.raises(websockets.ConnectionClosed) as flooded:
            while True:
                message = await flood.recv()
                codes.append(message.get("code"))
        assert "rate_limited" in codes
        assert flooded.value.rcvd is not None and flooded.value.rcvd.code == 1008
        # Without hello, a wrong token or protocol, an unknown table: error, then closed.
        for path_code, body, expected in [
            (code, {"type": "ping"}, "hello_required"),
            (code, {"type": "hello", "protocol": 3, "token": "forged"}, "bad_token"),
            (code, {"type": "hello", "protocol": 99}, "bad_protocol"),
            ("NOPE00", {"type": "hello", "protocol": 3}, "table_not_found"),
        ]:
            client = await Client.connect(url, path_code)
            with contextlib.suppress(websockets.ConnectionClosed):  # may be closed already
                await client.send(body)
            with pytest.raises(websockets.ConnectionClosed):
                while True:
                    await client.recv()
            assert any(m.get("code") == expected for m in client.received), client.received
        assert table_version(url, code) == before
        for client in (host, guest, spectator):
            await client.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))

    # HTTP: typed errors, nothing created or changed.
    count = httpx.get(f"{url}/api/health").json()["tables"]
    bad_creates = [
        (b"{oops", "bad_json"),
        (json.dumps({"name": "A", "players": 1}).encode(), "bad_option"),
        (json.dumps({"name": "A", "hook_mode": "slow"}).encode(), "bad_option"),
        (json.dumps({"name": "A", "bot": "genius"}).encode(), "bad_option"),
        (json.dumps({"name": "A", "turn_seconds": -1}).encode(), "bad_option"),
        (json.dumps({"name": "A", "hook_secs": 2}).encode(), "bad_option"),  # misspelt
        (json.dumps({"name": "A", "round_pause_seconds": 500}).encode(), "bad_option"),
        (json.dumps({"name": "A", "spectator_chat": "yes"}).encode(), "bad_option"),
        (json.dumps({"name": ""}).encode(), "bad_name"),
        (json.dumps({"name": "A", "seat": 7}).encode(), "bad_seat"),
        (b"x" * 10_000, "too_large"),
        (b"", "bad_json"),
    ]
    for body, expected in bad_creates:
        response = httpx.post(f"{url}/api/tables", content=body)
        status = 413 if expected == "too_large" else 400
        assert response.status_code == status and response.json()["error"]["code"] == expected
    assert httpx.get(f"{url}/api/health").json()["tables"] == count
    missing = httpx.post(f"{url}/api/tables/NOPE00/join", json={"name": "A", "seat": 1})
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "table_not_found"


def test_replays_only_once_a_match_is_over(make_server: Callable[..., ThreadServer]) -> None:
    server = make_server()

    async def scenario() -> str:
        code, tokens = await new_table(
            server.url, humans=1, turn_seconds=0.05, hook_mode="fast", players=2
        )
        host, _ = await hello(server.url, code, tokens[0])
        await host.send({"type": "chat", "id": "before", "text": "lobby talk"})
        await host.send({"type": "fill_bots"})
        await host.send({"type": "start", "id": "go"})
        await host.until(lambda m: m["type"] == "ack" and m["id"] == "go")
        await host.send({"type": "chat", "id": "during", "phrase": "good_luck"})
        in_progress = httpx.get(f"{server.url}/api/tables/{code}/replays/1")
        assert in_progress.status_code == 409
        assert in_progress.json()["error"]["code"] == "match_in_progress"
        assert "hands" not in in_progress.text
        # A hint: what the greedy bot would play, changing nothing.
        you = next(m["you"] for m in reversed(host.received) if m.get("you"))
        if you["decision"] is not None:
            asked = len(host.received)
            await host.send({"type": "hint", "id": "h"})
            answer = await host.until(lambda m: m.get("id") == "h")
            assert answer["type"] in ("hint", "error")  # the turn timer may have run out
            if answer["type"] == "hint":
                # The 50 ms timer may have moved the table on to another decision of ours
                # meanwhile: the hint is legal in one of those the host had.
                had = [you] + [m["you"] for m in host.received[asked:] if m.get("you")]
                assert any(answer["move"] in y["legal_moves"] for y in had if y["decision"])
        # The absent host is played by a bot after each 50 ms turn timer, to the end.
        await host.until(lambda m: m["type"] == "update" and m["state"]["match_over"], 60)
        await host.send({"type": "hint", "id": "late"})
        assert (await host.until(lambda m: m.get("id") == "late"))["code"] == "no_decision"
        await host.send({"type": "chat", "id": "after", "text": "gg"})
        await host.until(lambda m: m["type"] == "ack" and m["id"] == "after")
        # Play again at the same table: match 2, same seats.
        await host.send({"type": "play_again", "id": "again"})
        again = await host.until(
            lambda m: m["type"] == "update" and any(e["type"] == "match_start" for e in m["events"])
        )
        assert again["state"]["match_number"] == 2 and not again["state"]["match_over"]
        await host.close()
        return code

    code = asyncio.run(scenario())
    listing = httpx.get(f"{server.url}/api/tables/{code}/replays").json()
    replay = httpx.get(f"{server.url}/api/tables/{code}/replays/1").json()
    # (match 2, played by bots at once, may be over too by now)
    assert listing["matches"][0] == {
        "match": 1,
        "moves": len(replay["steps"]),
        "winning_team": replay["winning_team"],
        "rounds": len(replay["results"]),
    }
    # The chat of the match, with where it was said; the lobby's is in no replay.
    said = [(c["step"], c.get("text") or c.get("phrase")) for c in replay["chat"]]
    assert said[0][1] == "good_luck" and said[0][0] <= 2
    assert said[-1] == (len(replay["steps"]), "gg")
    first = replay["rounds"][0]["start"]
    assert len(first["hands"]) == 2 and all(first["hands"])
    assert replay["steps"][-1]["events"][-1]["type"] in ("match_over", "round_start")
    assert httpx.get(f"{server.url}/api/tables/{code}/replays/3").status_code == 404


def test_the_example_client_without_a_server_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It died with an httpx.ConnectError traceback; README says nothing of starting one."""
    from .conftest import free_port

    example = load_example_client()
    assert example.main(["--server", f"http://127.0.0.1:{free_port()}"]) == 1
    said = capsys.readouterr().out.strip().splitlines()
    assert len(said) == 1 and "no 414 server answers" in said[0] and "make serve" in said[0]
