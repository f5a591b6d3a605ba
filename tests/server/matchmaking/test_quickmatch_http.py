"""Quick match through a real server (and a real cluster of two): pages join with their
session, learn their seat by asking, and find themselves at a rated table whose seats are
theirs; the abuse a stranger could try is refused."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from tests import sandbox

from ..conftest import ThreadServer, thread_cluster

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
    # The profile's export shows where the queue seated it (never the token).
    exported = ann.get("/api/me/export").json()["quickmatch"]
    assert exported == {"waiting": None, "seated": {"code": seat["code"], "seat": seat["seat"]}}


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


def test_a_waiting_profile_is_in_its_export_and_leaves_the_queue_when_deleted(
    make_server: Make,
) -> None:
    server = make_server(quickmatch_bot_seconds=600.0)
    cy = page(server.url)
    cy_id = me(cy)
    assert cy.post("/api/quickmatch", headers=csrf(cy)).status_code == 200
    exported = cy.get("/api/me/export").json()["quickmatch"]
    assert exported["waiting"]["rating"] == 0.0 and exported["seated"] is None
    queue = server.app.state.server.matchmaking.quick.queue
    assert asyncio.run(queue.entry(cy_id)) is not None
    assert cy.delete("/api/me", headers=csrf(cy)).status_code == 200
    assert asyncio.run(queue.entry(cy_id)) is None


@pytest.fixture(scope="module")
def cluster(
    postgres: sandbox.LocalPostgres, redis_server: sandbox.LocalRedis
) -> Iterator[list[ThreadServer]]:
    with thread_cluster(
        db=postgres.new_database(), broker=redis_server.url, quickmatch_bot_seconds=1.0
    ) as servers:
        yield servers


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


def finished_pair(url: str) -> tuple[str, str, str]:
    """A 2-player table of Ann (host) and Bob whose 50 ms turn timers run out, so the table's
    bot plays the match out for both; its code and the two seat tokens, once it is over."""
    options = {"players": 2, "turn_seconds": 0.05, "hook_mode": "fast", "hook_seconds": 0.05,
               "bot": "greedy", "round_pause_seconds": 0}  # fmt: skip
    made = httpx.post(f"{url}/api/tables", json={"name": "Ann", **options}, timeout=10).json()
    code, ann = made["code"], made["token"]
    bob = httpx.post(f"{url}/api/tables/{code}/join", json={"name": "Bob", "seat": 1}).json()
    with connect(url.replace("http", "ws", 1) + f"/ws/{code}") as socket:
        socket.send(json.dumps({"type": "hello", "protocol": 3, "token": ann}))
        socket.send(json.dumps({"type": "start", "id": "go"}))
        while '"go"' not in str(socket.recv(timeout=10)):
            pass
    deadline = time.monotonic() + 90
    while httpx.get(f"{url}/api/tables/{code}", timeout=10).json()["status"] != "finished":
        assert time.monotonic() < deadline, "the match did not end"
        time.sleep(0.2)
    return code, ann, bob["token"]


def again(url: str, code: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(f"{url}/api/tables/{code}/again{path}", json=body, timeout=10)
    assert answer.status_code == 200, answer.text
    offer: dict[str, Any] = answer.json()["offer"]
    return offer


def test_play_again_through_the_other_process_of_a_cluster(cluster: list[ThreadServer]) -> None:
    """Every call through the process that does not own the old table (relayed to it); the
    new table is made by the owner, and both players find their seats from either process."""
    owner, other = cluster
    code, ann, bob = finished_pair(owner.url)
    offered = again(other.url, code, "", {"token": ann, "rotate": False})
    assert offered["state"] == "open"
    assert [p["answer"] for p in offered["people"]] == ["accepted", "waiting"]
    again(other.url, code, "/answer", {"token": bob, "accept": True})
    deadline = time.monotonic() + 10
    views = {}
    while len(views) < 2:
        assert time.monotonic() < deadline, "the new table was not made"
        for name, token, server in (("ann", ann, owner), ("bob", bob, other)):
            view = again(server.url, code, "/view", {"token": token})
            if view["state"] == "made":
                views[name] = view["table"]
        time.sleep(0.2)
    assert views["ann"]["code"] == views["bob"]["code"]
    assert (views["ann"]["seat"], views["bob"]["seat"]) == (0, 1)
    table = httpx.get(f"{other.url}/api/tables/{views['bob']['code']}", timeout=10).json()
    assert [s["name"] for s in table["seats"]] == ["Ann", "Bob"]
    # (started at once; with 50 ms timers its bots may have played it out already)
    assert table["match_number"] == 1 and table["options"]["turn_seconds"] == 0.05


def test_an_offer_nobody_answers_is_settled_when_its_time_is_up(make_server: Make) -> None:
    server = make_server(again_seconds=1.0)
    code, ann, bob = finished_pair(server.url)
    again(server.url, code, "", {"token": ann, "rotate": True})
    offers = server.app.state.server.matchmaking.again.offers
    deadline = time.monotonic() + 10
    while offers[code].state != "made":  # (nobody asks meanwhile: the timer settles it)
        assert time.monotonic() < deadline, offers[code].state
        time.sleep(0.1)
    view = again(server.url, code, "/view", {"token": bob})
    assert [p["answer"] for p in view["people"]] == ["accepted", "waiting"]
    assert "table" not in view  # (Bob did not answer: a bot has his seat)
    made = again(server.url, code, "/view", {"token": ann})["table"]
    table = httpx.get(f"{server.url}/api/tables/{made['code']}", timeout=10).json()
    assert [s["kind"] for s in table["seats"]] == ["human", "bot"]
