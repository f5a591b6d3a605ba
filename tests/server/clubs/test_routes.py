"""Clubs through the real server (uvicorn, WebSockets, SQLite and PostgreSQL): sessions and
CSRF, a non-member's and a member's refusals, the club's table link on two devices, a kick
at the table that the link does not undo, a new table when the evening's is full, and the
club's part of a profile's export and deletion."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from fouronefour.server.notify import Notice

from ..conftest import ThreadServer
from ..test_protocol import hello

Make = Callable[..., ThreadServer]


@pytest.fixture(params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, make_server: Make) -> ThreadServer:
    if request.param == "sqlite":
        return make_server()
    postgres = request.getfixturevalue("postgres")
    return make_server(db=postgres.new_database())


class Person:
    """A browser with its own guest session (cookies), acting as the page does."""

    def __init__(self, server: ThreadServer, name: str) -> None:
        self.http = httpx.Client(base_url=server.url, timeout=10)
        me = self.http.get("/api/me")
        assert me.status_code in (200, 201), me.text
        self.id = me.json()["profile"]["id"]
        assert self.send("PATCH", "/api/me", {"name": name}).status_code == 200

    def send(self, method: str, path: str, body: Any = None) -> httpx.Response:
        headers = {"X-CSRF-Token": self.http.cookies["fof_csrf"]}
        return self.http.request(method, path, json=body, headers=headers)

    def ok(self, method: str, path: str, body: Any = None, status: int = 200) -> Any:
        answer = self.send(method, path, body) if method != "GET" else self.http.get(path)
        assert answer.status_code == status, answer.text
        return answer.json()

    def refused(self, method: str, path: str, body: Any = None) -> tuple[int, str]:
        answer = self.send(method, path, body) if method != "GET" else self.http.get(path)
        assert answer.status_code >= 400, answer.text
        return answer.status_code, answer.json()["error"]["code"]


def test_sessions_csrf_and_who_may_do_what(server: ThreadServer) -> None:
    ann, bob, eve = (Person(server, n) for n in ("Ann", "Bob", "Eve"))
    anonymous = httpx.Client(base_url=server.url)
    assert anonymous.get("/api/clubs").status_code == 401
    # No CSRF header, or another site's page: refused, and nothing made.
    forged = ann.http.post("/api/clubs", json={"name": "Forged"})
    assert forged.status_code == 403 and forged.json()["error"]["code"] == "bad_csrf"
    cross = ann.http.post(
        "/api/clubs",
        json={"name": "Forged"},
        headers={"X-CSRF-Token": ann.http.cookies["fof_csrf"], "Origin": "https://evil.example"},
    )
    assert cross.status_code == 403
    assert ann.ok("GET", "/api/clubs") == {"clubs": []}
    club = ann.ok("POST", "/api/clubs", {"name": "Thursday"}, 201)
    cid = club["id"]
    assert ann.refused("POST", "/api/clubs", {"name": "x"}) == (400, "bad_club_name")
    assert ann.refused("POST", "/api/clubs", "not an object") == (400, "bad_json")
    big = ann.http.post(
        "/api/clubs",
        content=b'{"name": "' + b"x" * 5000 + b'"}',
        headers={"X-CSRF-Token": ann.http.cookies["fof_csrf"]},
    )
    assert big.status_code in (400, 413)
    assert bob.ok("POST", "/api/clubs/invite", {"invite": club["invite"]})["name"] == "Thursday"
    assert bob.ok("POST", "/api/clubs/join", {"invite": club["invite"]})["role"] == "member"
    # A stranger: nothing about the club, whatever the call.
    for method, path, body in (
        ("GET", f"/api/clubs/{cid}", None),
        ("GET", f"/api/clubs/{cid}/chat", None),
        ("GET", f"/api/clubs/{cid}/leaderboard", None),
        ("GET", f"/api/clubs/{cid}/history", None),
        ("POST", f"/api/clubs/{cid}/chat", {"text": "hi"}),
        ("POST", f"/api/clubs/{cid}/table", {}),
        ("POST", f"/api/clubs/{cid}/members/{bob.id}", {"action": "kick"}),
        ("PATCH", f"/api/clubs/{cid}", {"name": "Mine"}),
    ):
        assert eve.refused(method, path, body) == (404, "club_not_found")
    # A member: the admins' tools are refused.
    for method, path, body in (
        ("PATCH", f"/api/clubs/{cid}", {"name": "Mine"}),
        ("POST", f"/api/clubs/{cid}/invite", {}),
        ("POST", f"/api/clubs/{cid}/members/{ann.id}", {"action": "ban"}),
        ("DELETE", f"/api/clubs/{cid}/bans/{eve.id}", None),
    ):
        assert bob.refused(method, path, body) == (403, "not_allowed")
    assert ann.refused("POST", f"/api/clubs/{cid}/members/{bob.id}", {"action": "x"})[0] == 400
    assert ann.ok("GET", f"/api/clubs/{cid}")["name"] == "Thursday"
    # Admins' table settings are checked as a new table's would be.
    refused = ann.refused("PATCH", f"/api/clubs/{cid}", {"table_settings": {"players": 99}})
    assert refused == (400, "bad_club_settings")
    changed = ann.ok("PATCH", f"/api/clubs/{cid}", {"table_settings": {"players": 4}})
    assert changed["table_settings"] == {"players": 4}
    # The chat wall over HTTP.
    assert bob.ok("POST", f"/api/clubs/{cid}/chat", {"text": "<i>hi</i>"}, 201)["text"]
    assert [line["text"] for line in ann.ok("GET", f"/api/clubs/{cid}/chat")] == ["<i>hi</i>"]
    # The client's pages are served.
    for path in ("/clubs", f"/c/{cid}", f"/c/{cid}/table", "/c/join"):
        assert anonymous.get(path).status_code == 200


async def kick(url: str, code: str, token: str, seat: int) -> None:
    host, _ = await hello(url, code, token)
    await host.send({"type": "kick", "id": 1, "seat": seat})
    answer = await host.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == 1)
    assert answer["type"] == "ack", answer
    await host.close()


class Told:
    """A notifier that keeps what it was asked to send (Web Push's place, notify.py)."""

    def __init__(self) -> None:
        self.notices: list[tuple[str, Notice]] = []

    async def notify(self, profile_id: str, notice: Notice) -> int:
        self.notices.append((profile_id, notice))
        return 1


def test_the_club_table_link_and_a_kick_at_the_table(server: ThreadServer) -> None:
    told = Told()
    server.app.state.server.notifier = told
    people = [Person(server, n) for n in ("Ann", "Bob", "Cat", "Dan", "Fay")]
    ann, bob, cat, dan, fay = people
    club = ann.ok("POST", "/api/clubs", {"name": "Thursday"}, 201)
    cid = club["id"]
    for person in people[1:]:
        person.ok("POST", "/api/clubs/join", {"invite": club["invite"]})
    link = f"/api/clubs/{cid}/table"
    first = ann.ok("POST", link)
    assert first["created"] is True and first["seat"] == 0
    code = first["code"]
    # The other members are told the club's table started (a club event), Ann is not.
    deadline = time.monotonic() + 5
    while len(told.notices) < 4 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert sorted(pid for pid, _ in told.notices) == sorted(p.id for p in people[1:])
    notice = told.notices[0][1]
    assert notice.kind == "club_event" and notice.url == f"/c/{cid}/table"
    assert notice.params == {"club": "Thursday", "from": "Ann"}
    # A private table: its code alone shows nothing; the club's invite opens it.
    assert httpx.get(f"{server.url}/api/tables/{code}").status_code == 404
    joined = bob.ok("POST", link)
    assert (joined["code"], joined["seat"], joined["created"]) == (code, 1, False)
    # The same member again (another device): their own seat back, with a new token.
    again = bob.ok("POST", link)
    assert (again["code"], again["seat"]) == (code, 1) and again["token"] != joined["token"]
    summary = httpx.get(f"{server.url}/api/tables/{code}", headers={"x-invite": first["invite"]})
    seats = summary.json()["seats"]
    assert [s.get("profile") for s in seats[:2]] == [ann.id, bob.id]
    # The host removes Bob: the club's link does not seat him at that table again.
    asyncio.run(kick(server.url, code, first["token"], 1))
    assert bob.refused("POST", link) == (403, "kicked")
    assert cat.ok("POST", link)["seat"] == 1
    assert dan.ok("POST", link)["seat"] == 2
    assert ann.ok("POST", link)["seat"] == 0  # (the host: her seat back)
    assert bob.refused("POST", link) == (403, "kicked")
    # Still one free seat: Fay takes it; a full table gives the next one a new table.
    assert fay.ok("POST", link)["seat"] == 3
    fay.ok("POST", f"/api/clubs/{cid}/leave")
    assert fay.refused("POST", link) == (404, "club_not_found")
    ann.ok("POST", f"/api/clubs/{cid}/members/{cat.id}", {"action": "kick"})
    assert cat.refused("POST", link) == (404, "club_not_found")
    # (Cat left the club but keeps her seat at the table: the table is the host's.)
    fay_back = Person(server, "Gus")
    fresh = ann.ok("POST", f"/api/clubs/{cid}/invite")["invite"]
    fay_back.ok("POST", "/api/clubs/join", {"invite": fresh})
    newer = fay_back.ok("POST", link)
    assert newer["created"] is True and newer["code"] != code and newer["seat"] == 0
    # The link now opens the new table: Bob, kicked only from the first, sits there.
    bobs = bob.ok("POST", link)
    assert (bobs["code"], bobs["seat"], bobs["created"]) == (newer["code"], 1, False)
    # The club's tables are in every member's export, and deletion hands the club on.
    exported = ann.ok("GET", "/api/me/export")["clubs"]
    assert exported["memberships"][0]["role"] == "owner"
    assert {t["code"] for t in exported["tables"]} == {code}
    ann.ok("DELETE", "/api/me")
    page = bob.ok("GET", f"/api/clubs/{cid}")
    assert [m["id"] for m in page["members"] if m["role"] == "owner"] == [bob.id]
    assert ann.id not in [m["id"] for m in page["members"]]
