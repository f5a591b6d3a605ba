"""Quick match through a real server (and a real cluster of two): pages join with their
session, learn their seat by asking, and find themselves at a rated table whose seats are
theirs; the abuse a stranger could try is refused."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from fouronefour.server.config import ServerConfig
from tests import sandbox

from ..conftest import ThreadServer

Make = Callable[..., ThreadServer]


def page(url: str) -> httpx.Client:
    """A browser: a guest profile and its session (cookies)."""
    client = httpx.Client(base_url=url, timeout=10)
    assert client.get("/api/me").status_code in (200, 201)
    return client


def csrf(client: httpx.Client) -> dict[str, str]:
    return {"X-CSRF-Token": client.cookies["fof_csrf"]}


def me(client: httpx.Client) -> str:
    profile: str = client.get("/api/me").json()["profile"]["id"]
    return profile


def seated(client: httpx.Client, within: float = 8.0) -> dict[str, Any]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        status: dict[str, Any] = client.get("/api/quickmatch", headers=csrf(client)).json()
        if status["state"] == "seated":
            return status
        assert status["state"] == "waiting", status
        time.sleep(0.2)
    raise AssertionError("never seated")


def test_alone_in_the_queue_bots_of_the_nearest_level_fill_the_table(make_server: Make) -> None:
    server = make_server(quickmatch_bot_seconds=1.0)
    ann = page(server.url)
    joined = ann.post("/api/quickmatch", headers=csrf(ann))
    assert joined.status_code == 200 and joined.json()["state"] == "waiting"
    status = ann.get("/api/quickmatch", headers=csrf(ann)).json()
    assert status["state"] == "waiting" and status["bots_after_ms"] <= 1000
    seat = seated(ann)
    table = ann.get(f"/api/tables/{seat['code']}").json()
    assert table["options"]["rated"] is True and table["status"] == "playing"
    assert table["options"]["bot"] == "beginner"  # (a newcomer's ordinal is 0)
    kinds = [s["kind"] for s in table["seats"]]
    assert kinds.count("human") == 1 and kinds.count("bot") == 3
    assert table["seats"][seat["seat"]]["profile"] == me(ann)
    # The token is the seat's: taking the seat back on this page works with it.
    assert "token" in seat and seat["link"] == f"/t/{seat['code']}"


def test_four_newcomers_share_a_table_at_once(make_server: Make) -> None:
    server = make_server(quickmatch_bot_seconds=60.0)
    pages = [page(server.url) for _ in range(4)]
    for client in pages:
        assert client.post("/api/quickmatch", headers=csrf(client)).status_code == 200
    seats = [seated(client, 5.0) for client in pages]
    assert len({s["code"] for s in seats}) == 1
    assert sorted(s["seat"] for s in seats) == [0, 1, 2, 3]
    assert len({s["token"] for s in seats}) == 4
    table = pages[0].get(f"/api/tables/{seats[0]['code']}").json()
    assert {s["profile"] for s in table["seats"]} == {me(c) for c in pages}


def test_queue_abuse_is_refused_and_changes_nothing(make_server: Make) -> None:
    server = make_server(quickmatch_bot_seconds=600.0)
    ann = page(server.url)
    # Without the page's CSRF header, or from another site: nobody joins.
    assert ann.post("/api/quickmatch").json()["error"]["code"] == "bad_csrf"
    other_site = ann.post(
        "/api/quickmatch", headers={**csrf(ann), "Origin": "https://evil.example"}
    )
    assert other_site.status_code == 403
    assert ann.get("/api/quickmatch", headers=csrf(ann)).json() == {"state": "idle"}
    assert httpx.post(f"{server.url}/api/quickmatch").json()["error"]["code"] == "no_session"
    # One entry a profile.
    assert ann.post("/api/quickmatch", headers=csrf(ann)).status_code == 200
    twice = ann.post("/api/quickmatch", headers=csrf(ann))
    assert twice.status_code == 409 and twice.json()["error"]["code"] == "already_queued"
    # Leaving and joining again at once: refused (a cooldown), then at the back.
    assert ann.delete("/api/quickmatch", headers=csrf(ann)).json() == {"state": "idle"}
    again = ann.post("/api/quickmatch", headers=csrf(ann))
    assert again.status_code == 429 and again.json()["error"]["code"] == "cooling_down"
    assert int(again.headers["Retry-After"]) >= 1
    gone = ann.delete("/api/quickmatch", headers=csrf(ann))
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "not_queued"
    # A flood of changes is throttled for the profile.
    bob = page(server.url)
    answers = [
        (bob.post if i % 2 == 0 else bob.delete)("/api/quickmatch", headers=csrf(bob)).json()
        for i in range(12)
    ]
    codes = [a.get("error", {}).get("code") for a in answers]
    assert "rate_limited" in codes


@pytest.fixture(scope="module")
def cluster(
    postgres: sandbox.LocalPostgres, redis_server: sandbox.LocalRedis
) -> Iterator[list[ThreadServer]]:
    db = postgres.new_database()
    servers = [
        ThreadServer(
            ServerConfig(
                db=db,
                broker=redis_server.url,
                bot_delay=0.0,
                bot_processes=0,
                quickmatch_bot_seconds=1.0,
            )
        )
        for _ in range(2)
    ]
    for server in servers:
        server.__enter__()
    try:
        yield servers
    finally:
        for server in servers:
            server.__exit__()


def test_a_cluster_keeps_one_queue_and_tells_each_page_wherever_it_asks(
    cluster: list[ThreadServer],
) -> None:
    one, two = cluster
    pages = [page(one.url), page(two.url), page(one.url), page(two.url)]
    for client in pages:
        assert client.post("/api/quickmatch", headers=csrf(client)).status_code == 200
    # One entry a profile across the cluster: the same session through the other process.
    ann_elsewhere = httpx.Client(base_url=two.url, cookies=pages[0].cookies, timeout=10)
    twice = ann_elsewhere.post("/api/quickmatch", headers=csrf(pages[0]))
    assert twice.json()["error"]["code"] == "already_queued"
    seats = [seated(client) for client in pages]
    assert len({s["code"] for s in seats}) == 1 and "node" in seats[0]
    assert sorted(s["seat"] for s in seats) == [0, 1, 2, 3]
    # Any process answers for the table (the other relays to its owner).
    for server in cluster:
        table = httpx.get(f"{server.url}/api/tables/{seats[0]['code']}", timeout=10).json()
        assert table["status"] == "playing" and table["options"]["rated"] is True
        assert [s["kind"] for s in table["seats"]] == ["human"] * 4
    # Play again is the old table's owner's: asked through either process, it answers
    # (relayed); a stranger's token is refused there too.
    for server in cluster:
        view = httpx.post(
            f"{server.url}/api/tables/{seats[0]['code']}/again/view",
            json={"token": seats[0]["token"]},
            timeout=10,
        )
        assert view.status_code == 200 and view.json()["offer"] is None
        stranger = httpx.post(
            f"{server.url}/api/tables/{seats[0]['code']}/again", json={"token": "x"}, timeout=10
        )
        assert stranger.json()["error"]["code"] == "not_seated"
    # Someone alone: bots fill after the wait, whichever process matched.
    late = page(two.url)
    assert late.post("/api/quickmatch", headers=csrf(late)).status_code == 200
    alone = seated(late)
    table = httpx.get(f"{one.url}/api/tables/{alone['code']}", timeout=10).json()
    assert [s["kind"] for s in table["seats"]].count("bot") == 3
