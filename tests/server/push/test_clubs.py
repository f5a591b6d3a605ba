"""A club's event reaches a member's closed tab: a member opens the club's table (clubs/,
docs/clubs.md) and another member's device gets the ``club_event`` notice through the real
server's Web Push, decrypted at the local push service, in that member's language."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx

from ..conftest import ThreadServer
from .pushservice import PushService

MakeServer = Callable[..., ThreadServer]


def page(server: ThreadServer, language: str = "en") -> httpx.Client:
    client = httpx.Client(base_url=server.url, headers={"Accept-Language": language})
    assert client.get("/api/me").status_code == 201
    client.headers["X-CSRF-Token"] = client.cookies["fof_csrf"]
    return client


def test_a_member_opening_the_clubs_table_tells_the_others(
    make_server: MakeServer, push_service: PushService
) -> None:
    server = make_server(push_private_endpoints=True)
    ann, bea = page(server), page(server, "it")
    assert ann.patch("/api/me", json={"name": "Ann"}).status_code == 200
    club = ann.post("/api/clubs", json={"name": "Thursday"}).json()
    assert bea.post("/api/clubs/join", json={"invite": club["invite"]}).status_code == 200
    _, subscription = push_service.device()
    assert bea.post("/api/me/push/subscriptions", json=subscription).status_code == 201
    # Ann has a device too: the one who opens the table is not told.
    _, own = push_service.device()
    assert ann.post("/api/me/push/subscriptions", json=own).status_code == 201
    opened = ann.post(f"/api/clubs/{club['id']}/table")
    assert opened.status_code == 200 and opened.json()["created"], opened.text
    notice = push_service.wait(1)[0]
    assert notice.device == subscription["endpoint"].removeprefix(push_service.url)
    assert notice.payload == {
        "kind": "club_event",
        "title": "Thursday: il tavolo del club sta per iniziare",
        "body": "Ann è al tavolo del club: tocca per entrare",
        "url": f"/c/{club['id']}/table",
        "tag": f"club:{club['id']}",
    }
    time.sleep(0.5)
    assert len(push_service.received) == 1 and not push_service.refused
