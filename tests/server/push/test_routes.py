"""Web Push over HTTP (routes/push.py) on a real server: the key made at the first start and
kept across a restart, subscriptions checked and owned by their session, the kinds a profile
wants, its export and deletion."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from ... import sandbox
from ...server_faults.test_storage import _make_read_only as make_read_only
from ...server_faults.test_storage import _make_writable as make_writable
from ..conftest import ThreadServer
from .pushservice import PushService

MakeServer = Callable[..., ThreadServer]
P256DH = "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM"


def page(server: ThreadServer) -> httpx.Client:
    client = httpx.Client(base_url=server.url)
    assert client.get("/api/me").status_code == 201
    client.headers["X-CSRF-Token"] = client.cookies["fof_csrf"]
    return client


def error(response: httpx.Response) -> str:
    return str(response.json()["error"]["code"])


def test_the_key_is_made_at_the_first_start_and_kept(make_server: MakeServer) -> None:
    first = make_server()
    key = httpx.get(f"{first.url}/api/push/key").json()["key"]
    first.__exit__()
    again = make_server(db=first.config.db)
    assert httpx.get(f"{again.url}/api/push/key").json()["key"] == key
    assert len(key) == 87  # (65 bytes, base64url unpadded: the page's applicationServerKey)


def test_a_subscription_is_checked_and_only_a_pages_session_changes_it(
    make_server: MakeServer, push_service: PushService
) -> None:
    server = make_server(push_private_endpoints=True)
    client = page(server)
    _, subscription = push_service.device()
    url = "/api/me/push/subscriptions"
    # No CSRF header, another site, no session: refused, nothing kept.
    bare = httpx.Client(base_url=server.url, cookies=client.cookies)
    assert error(bare.post(url, json=subscription)) == "bad_csrf"
    other = client.post(url, json=subscription, headers={"Origin": "https://evil.example"})
    assert error(other) == "bad_csrf"
    assert error(httpx.post(f"{server.url}{url}", json=subscription)) == "no_session"
    assert client.get("/api/me/push").json()["endpoints"] == []
    bad: list[Any] = [
        {**subscription, "endpoint": subscription["endpoint"].replace("https", "http")},
        {**subscription, "endpoint": "https://127.0.0.1/" + "x" * 1100},
        {**subscription, "endpoint": "https://user:pw@127.0.0.1/push"},
        {**subscription, "keys": {"p256dh": "AAAA", "auth": subscription["keys"]["auth"]}},
        {**subscription, "keys": {**subscription["keys"], "auth": "not base64!"}},
        {**subscription, "keys": {"p256dh": "B" + "A" * 86, "auth": "A" * 22}},  # off the curve
        {"endpoint": subscription["endpoint"]},
    ]
    for body in bad:
        refused = client.post(url, json=body)
        assert refused.status_code == 400 and error(refused) == "bad_subscription", body
    assert error(client.post(url, json=[subscription])) == "bad_json"
    assert client.get("/api/me/push").json()["endpoints"] == []
    made = client.post(url, json=subscription)
    assert made.status_code == 201
    assert client.get("/api/me/push").json()["endpoints"] == [subscription["endpoint"]]
    # Another profile cannot remove it; its own session can.
    stranger = page(server)
    assert stranger.request("DELETE", url, json=subscription).json()["removed"] is False
    gone = client.request("DELETE", url, json={"endpoint": subscription["endpoint"]})
    assert gone.json() == {"ok": True, "removed": True}


def test_a_server_refuses_endpoints_on_its_own_network(make_server: MakeServer) -> None:
    server = make_server()
    client = page(server)
    keys = {"p256dh": P256DH, "auth": "tBHItJI5svbpez7KI4CCXg"}
    for endpoint in (
        "https://127.0.0.1:9/push",
        "https://localhost/push",
        "https://10.1.2.3/push",
        "https://[::1]/push",
        "https://169.254.169.254/latest",
    ):
        refused = client.post(
            "/api/me/push/subscriptions", json={"endpoint": endpoint, "keys": keys}
        )
        assert error(refused) == "bad_subscription", endpoint
    made = client.post(
        "/api/me/push/subscriptions",
        json={"endpoint": "https://updates.push.services.mozilla.com/wpush/v2/abc", "keys": keys},
    )
    assert made.status_code == 201


def test_settings_export_and_deletion(make_server: MakeServer, push_service: PushService) -> None:
    server = make_server(push_private_endpoints=True)
    client = page(server)
    _, subscription = push_service.device()
    client.post("/api/me/push/subscriptions", json=subscription)
    assert client.get("/api/me/push").json()["settings"] == {
        "invite": True,
        "turn": True,
        "club_event": True,
    }
    changed = client.patch("/api/me/push/settings", json={"turn": False})
    assert changed.json()["settings"]["turn"] is False
    for body in ({"turn": "no"}, {"cards": False}, {}, {"turn": False, "cards": True}):
        refused = client.patch("/api/me/push/settings", json=body)
        assert error(refused) == "bad_push_settings", body
    assert client.get("/api/me/push").json()["settings"]["turn"] is False
    export = client.get("/api/me/export").json()["push"]
    assert export["settings"] == {"invite": True, "turn": False, "club_event": True}
    assert [d["endpoint"] for d in export["devices"]] == [subscription["endpoint"]]
    assert client.delete("/api/me").json() == {"ok": True}
    # A new profile on that browser finds nothing of the old one's.
    again = page(server)
    assert again.get("/api/me/push").json()["endpoints"] == []


@pytest.mark.parametrize("changes", [25])
def test_subscription_changes_are_throttled_per_profile(
    make_server: MakeServer, push_service: PushService, changes: int
) -> None:
    server = make_server(push_private_endpoints=True)
    client = page(server)
    answers = [
        client.post("/api/me/push/subscriptions", json=push_service.device()[1]).status_code
        for _ in range(changes)
    ]
    assert answers[:20] == [201] * 20 and 429 in answers[20:]
    assert len(client.get("/api/me/push").json()["endpoints"]) == 10


def test_a_read_only_database_starts_without_notices(
    make_server: MakeServer, tmp_path: Path
) -> None:
    """Profiles need a database they can write (players/); without them there is nobody to
    notify: the server starts all the same, says so, and sends nothing."""
    first = make_server(db=str(tmp_path / "kept.db"))
    assert httpx.get(f"{first.url}/api/push/key").status_code == 200
    first.__exit__()
    make_read_only(tmp_path / "kept.db")
    try:
        again = make_server(db=str(tmp_path / "kept.db"))
        refused = httpx.get(f"{again.url}/api/push/key")
        assert refused.status_code == 503 and error(refused) == "push_unavailable"
        assert httpx.get(f"{again.url}/api/health").status_code == 200
        again.__exit__()
    finally:
        make_writable(tmp_path / "kept.db")


def test_the_processes_of_a_cluster_sign_with_one_key(
    make_server: MakeServer, postgres: sandbox.LocalPostgres
) -> None:
    url = postgres.new_database()
    first, second = make_server(db=url), make_server(db=url)
    keys = {httpx.get(f"{s.url}/api/push/key").json()["key"] for s in (first, second)}
    assert len(keys) == 1
