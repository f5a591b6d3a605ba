"""The friends' HTTP routes and profile socket on a real server (routes/friends.py), tried
as the players and an abuser would: requests by username and from a table played at
together, blocks that the blocked one cannot tell from success, floods, live presence and
invites, the export and the deletion."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from fouronefour.server.friends.service import INVITE_SECONDS
from fouronefour.server.players.throttle import BUDGETS, Attempt

from ..conftest import ThreadServer
from .helpers import Page, presence

MakeServer = Callable[..., ThreadServer]


@pytest.fixture
def server(make_server: MakeServer) -> ThreadServer:
    # (Friends' floods are throttled per profile, loopback too: the address limits are off.)
    return make_server()


def test_friends_by_username_asked_accepted_listed_and_removed(server: ThreadServer) -> None:
    ann, bob = Page(server.url, "ann_f", "Ann"), Page(server.url, "bob_f", "Bob")
    asked = ann.ask(username="  BOB_F ")
    assert asked.status_code == 201 and asked.json() == {"status": "requested", "id": bob.id}
    assert [p["id"] for p in bob.lists()["incoming"]] == [ann.id]
    assert [p["id"] for p in ann.lists()["outgoing"]] == [bob.id]
    assert ann.post(f"/api/friends/requests/{bob.id}/accept").json()["error"]["code"] == (
        "no_request"
    )
    accepted = bob.post(f"/api/friends/requests/{ann.id}/accept")
    assert accepted.status_code == 200 and accepted.json()["status"] == "friends"
    mine = ann.lists()
    assert [(f["id"], f["name"], f["status"]) for f in mine["friends"]] == [
        (bob.id, "Bob", "offline")
    ]
    assert mine["incoming"] == mine["outgoing"] == []
    assert ann.delete(f"/api/friends/{bob.id}").status_code == 200
    assert bob.lists()["friends"] == []
    assert ann.delete(f"/api/friends/{bob.id}").json()["error"]["code"] == "not_friends"
    # Declined: gone from Bob's list, still waiting on Ann's (as if he had not answered).
    ann.ask(username="bob_f")
    assert bob.delete(f"/api/friends/requests/{ann.id}").status_code == 200
    assert bob.lists()["incoming"] == []
    assert [p["id"] for p in ann.lists()["outgoing"]] == [bob.id]
    assert ann.delete(f"/api/friends/requests/sent/{bob.id}").status_code == 200
    assert ann.lists()["outgoing"] == []


def test_bad_and_forged_requests_change_nothing(server: ThreadServer) -> None:
    ann, bob = Page(server.url, "ann_b"), Page(server.url)
    assert ann.ask(username="nobody_here").json()["error"]["code"] == "player_not_found"
    assert ann.ask(username="ann_b").json()["error"]["code"] == "not_allowed"
    assert ann.ask(username="x", id=bob.id).json()["error"]["code"] == "bad_message"
    assert ann.ask(id="'; DROP TABLE").json()["error"]["code"] == "bad_message"
    # A stranger by id: never played together.
    refused = ann.ask(id=bob.id)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_allowed"
    # Without the CSRF header, or from another site: refused.
    forged = ann.http.post("/api/friends/requests", json={"username": "bob"})
    assert forged.status_code == 403 and forged.json()["error"]["code"] == "bad_csrf"
    evil = {**ann.headers, "Origin": "https://evil.example"}
    other_site = ann.http.post("/api/friends/requests", json={"id": bob.id}, headers=evil)
    assert other_site.status_code == 403
    assert bob.lists()["incoming"] == []


def test_a_request_by_id_needs_a_table_shared_now(server: ThreadServer) -> None:
    ann, bob, cy = Page(server.url), Page(server.url), Page(server.url)
    code = ann.table_with(bob)
    # Cy is not at that table: naming it does not help her.
    assert cy.ask(id=ann.id, table=code).json()["error"]["code"] == "not_allowed"
    asked = bob.ask(id=ann.id, table=code)
    assert asked.status_code == 201 and asked.json()["status"] == "requested"
    # Ann asks back: that is an answer (the two are friends).
    assert ann.ask(id=bob.id, table=code).json()["status"] == "friends"
    assert [f["id"] for f in bob.lists()["friends"]] == [ann.id]


def test_a_blocked_player_is_answered_as_if_nothing_were_wrong(server: ThreadServer) -> None:
    async def scenario() -> None:
        ann, bob = Page(server.url, "ann_k"), Page(server.url, "bob_k")
        ann.befriend(bob)
        ann_socket = await ann.socket()
        await ann_socket.until(lambda m: m.get("type") == "invites")
        assert ann.post("/api/friends/blocks", {"id": bob.id}).status_code == 201
        await ann_socket.until(lambda m: m.get("type") == "friends_changed")
        assert ann.lists()["friends"] == bob.lists()["friends"] == []
        assert [p["id"] for p in ann.lists()["blocked"]] == [bob.id]
        # Bob asks again: the same answer as anybody's, kept on his side, never shown to Ann.
        asked = bob.ask(username="ann_k")
        assert asked.status_code == 201 and asked.json() == {"status": "requested", "id": ann.id}
        assert [p["id"] for p in bob.lists()["outgoing"]] == [ann.id]
        assert ann.lists()["incoming"] == []
        # Bob invites her to his table: "invited", as to any friend; she gets nothing.
        code = bob.table_with()
        invited = bob.post("/api/friends/invites", {"id": ann.id, "table": code})
        assert invited.status_code == 201 and invited.json()["status"] == "invited"
        assert ann.http.get("/api/friends/invites").json()["invites"] == []
        await asyncio.sleep(0.3)
        assert not [m for m in ann_socket.got if m.get("type") in ("invite", "friends_changed")]
        # Ann herself is told why she cannot ask him (she knows she blocks him).
        assert ann.ask(username="bob_k").json()["error"]["code"] == "you_block"
        await ann_socket.close()

    asyncio.run(scenario())


def test_request_floods_are_throttled_per_profile(server: ThreadServer) -> None:
    ann = Page(server.url)
    burst = BUDGETS[Attempt.FRIEND_REQUEST_ACCOUNT].burst
    codes = [ann.ask(username=f"nobody{n}").status_code for n in range(burst + 1)]
    assert codes[:burst] == [404] * burst
    refused = ann.ask(username="nobody_more")
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) >= 1
    # Another profile (the same address) has its own budget.
    assert Page(server.url).ask(username="nobody0").status_code == 404


def test_invites_live_kept_until_seen_and_floods_throttled(server: ThreadServer) -> None:
    async def scenario() -> None:
        ann, bob, cy = Page(server.url, name="Ann"), Page(server.url), Page(server.url)
        ann.befriend(bob)
        bob_socket = await bob.socket()
        await bob_socket.until(lambda m: m.get("type") == "invites" and m["invites"] == [])
        code = ann.table_with()
        # Not a friend: answered as sent (as to a friend who blocks her), reaching nobody.
        stranger = ann.post("/api/friends/invites", {"id": cy.id, "table": code})
        assert stranger.status_code == 201 and stranger.json()["status"] == "invited"
        assert cy.http.get("/api/friends/invites").json()["invites"] == []
        # Not seated, a bad code: refused, nothing sent.
        stranger_table = cy.table_with()
        not_seated = ann.post("/api/friends/invites", {"id": bob.id, "table": stranger_table})
        assert not_seated.json()["error"]["code"] == "not_seated"
        bad = ann.post("/api/friends/invites", {"id": bob.id, "table": "<b>"})
        assert bad.json()["error"]["code"] == "bad_message"
        invited = ann.post("/api/friends/invites", {"id": bob.id, "table": code})
        assert invited.status_code == 201
        live = await bob_socket.until(lambda m: m.get("type") == "invite")
        assert live["from"] == {"id": ann.id, "name": "Ann"} and live["link"] == f"/t/{code}"
        assert live["expires_at"] - live["created_at"] == INVITE_SECONDS * 1000
        await bob_socket.close()
        # A tab that opens later finds it waiting, until it says it was seen.
        again = await bob.socket()
        waiting = await again.until(lambda m: m.get("type") == "invites")
        assert [i["id"] for i in waiting["invites"]] == [live["id"]]
        await again.send({"type": "seen", "id": live["id"]})
        await again.send({"type": "ping"})
        await again.until(lambda m: m.get("type") == "pong")
        assert bob.http.get("/api/friends/invites").json()["invites"] == []
        await again.close()
        # A flood: the rest of the burst (the four above, refused ones too, took theirs),
        # then refused.
        burst = BUDGETS[Attempt.INVITE_ACCOUNT].burst
        answers = [
            ann.post("/api/friends/invites", {"id": bob.id, "table": code}).status_code
            for _ in range(burst)
        ]
        assert answers == [201] * (burst - 4) + [429] * 4

    asyncio.run(scenario())


def test_presence_on_the_profile_socket(server: ThreadServer) -> None:
    async def scenario() -> None:
        ann, bob = Page(server.url), Page(server.url)
        ann.befriend(bob)
        ann_socket = await ann.socket()
        await ann_socket.until(presence(bob.id, "offline"))
        bob_socket = await bob.socket()
        await ann_socket.until(presence(bob.id, "online"))
        code = bob.table_with()
        # A table Bob holds no seat at is not believed; his own is (without its code for
        # Ann, who is not there).
        other = ann.table_with()
        await bob_socket.send({"type": "at", "table": other})
        await bob_socket.send({"type": "at", "table": code})
        await ann_socket.until(presence(bob.id, "table"))
        assert not [m for m in ann_socket.got if m.get("friends", {}).get(bob.id, {}).get(
            "table") == other]  # fmt: skip
        assert ann.lists()["friends"][0]["status"] == "table"
        await bob_socket.close()
        await ann_socket.until(presence(bob.id, "offline"))
        await ann_socket.close()

    asyncio.run(scenario())


def test_the_socket_is_the_pages_only(server: ThreadServer) -> None:
    async def scenario() -> None:
        import websockets

        ann = Page(server.url)
        # No cookie (the documented protocol client): refused at once, nothing else.
        async with websockets.connect(server.url.replace("http", "ws") + "/ws/me") as ws:
            message: Any = await ws.recv()
            assert '"no_session"' in message
        # Another site's page with Ann's cookies: refused as well.
        stolen = await ann.socket(origin="https://evil.example")
        assert (await stolen.until(lambda m: True))["code"] == "no_session"
        # Her own page: welcome; nonsense is answered, a flood closes it.
        mine = await ann.socket(origin=server.url)
        await mine.until(lambda m: m.get("type") == "presence")
        await mine.send({"type": "steal"})
        assert (await mine.until(lambda m: m.get("type") == "error"))["code"] == "bad_message"
        await mine.ws.send("x" * 1000)
        await asyncio.wait_for(mine.ws.wait_closed(), 5)

    asyncio.run(scenario())


def test_export_and_delete_include_the_friends(server: ThreadServer) -> None:
    ann, bob, cy = Page(server.url, name="Ann"), Page(server.url), Page(server.url)
    ann.befriend(bob)
    ann.post("/api/friends/blocks", {"id": cy.id})
    mine = ann.http.get("/api/me/export").json()["friends"]
    assert [f["id"] for f in mine["friends"]] == [bob.id]
    assert [b["id"] for b in mine["blocked"]] == [cy.id]
    assert ann.delete("/api/me").status_code == 200
    assert bob.lists()["friends"] == []
    assert bob.http.get("/api/me/export").json()["friends"]["friends"] == []


def test_a_socket_closes_when_its_session_or_profile_ends(
    server: ThreadServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fouronefour.server.routes import friends as friends_routes

    async def scenario() -> None:
        ann, bob = Page(server.url), Page(server.url)
        ann.befriend(bob)
        # Deleted: closed at once (its sessions are looked at again only every two minutes).
        bob_socket = await bob.socket()
        await bob_socket.until(lambda m: m.get("type") == "invites")
        assert bob.delete("/api/me").status_code == 200
        await asyncio.wait_for(bob_socket.ws.wait_closed(), 2)
        # Signed out everywhere (a lost device): its open socket hears nothing more, once
        # its session is looked at again.
        monkeypatch.setattr(friends_routes, "RECHECK_SECONDS", 0.3)
        ann_socket = await ann.socket()
        await ann_socket.until(lambda m: m.get("type") == "invites")
        assert ann.delete("/api/sessions").status_code == 200
        await asyncio.wait_for(ann_socket.ws.wait_closed(), 5)
        assert ann_socket.ws.close_code == 1008

    asyncio.run(scenario())
