"""The club's table link in a cluster: two ``fouronefour serve`` processes over one
PostgreSQL database and one Redis. A member reaching the process that does not own the
club's table is seated by its owner (the ``club_seat`` call, relayed), and a kick at that
table holds there too."""

from __future__ import annotations

import asyncio

import httpx

from tests import sandbox

from ..test_cluster import two_processes
from ..test_protocol import hello


def _person(url: str) -> tuple[httpx.Client, str]:
    client = httpx.Client(timeout=15)
    me = client.get(f"{url}/api/me")
    assert me.status_code in (200, 201), me.text
    return client, me.json()["profile"]["id"]


def _post(client: httpx.Client, url: str, body: object = None) -> httpx.Response:
    return client.post(url, json=body or {}, headers={"X-CSRF-Token": client.cookies["fof_csrf"]})


def test_the_club_table_link_is_relayed_to_the_tables_owner(
    postgres: sandbox.LocalPostgres, redis_server: sandbox.LocalRedis
) -> None:
    with two_processes(postgres.new_database(), redis_server.url) as (first, second):
        ann, _ = _person(first.url)
        bob, _ = _person(second.url)
        made = _post(ann, f"{first.url}/api/clubs", {"name": "Cluster club"})
        assert made.status_code == 201, made.text
        club = made.json()
        joined = _post(bob, f"{second.url}/api/clubs/join", {"invite": club["invite"]})
        assert joined.status_code == 200, joined.text
        link = f"/api/clubs/{club['id']}/table"
        opened = _post(ann, first.url + link)
        assert opened.status_code == 200 and opened.json()["created"], opened.text
        code, host_token = opened.json()["code"], opened.json()["token"]
        # Bob asks the other process: the table's owner seats him.
        seated = _post(bob, second.url + link)
        assert seated.status_code == 200, seated.text
        assert (seated.json()["code"], seated.json()["seat"]) == (code, 1)
        assert seated.json()["node"]  # (where the table's sockets go)

        async def kick() -> None:
            host, _ = await hello(first.url, code, host_token)
            await host.send({"type": "kick", "id": 1, "seat": 1})
            answer = await host.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == 1)
            assert answer["type"] == "ack", answer
            await host.close()

        asyncio.run(kick())
        for url in (second.url, first.url):
            refused = _post(bob, url + link)
            assert refused.status_code == 403 and refused.json()["error"]["code"] == "kicked"
