"""An event outlives its server and its players: a restart goes on where it was (the event
is in the database), and players who sit down and then leave mid-event leave their seats
to bots, and the event finishes."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from fouronefour.server.players.postgres import postgres_players
from fouronefour.server.players.sqlite import sqlite_players
from fouronefour.server.players.sqlstore import SqlPlayerStore
from fouronefour.server.storage.sqlite import GroupCommitStorage
from fouronefour.server.tournaments.access import MemoryClubs
from fouronefour.server.tournaments.history import ClubEvents
from fouronefour.server.tournaments.lengths import decided
from fouronefour.server.tournaments.service import written_match
from tests import sandbox
from tests.server.conftest import Client

from .conftest import Browser, Club, Kept, start_server


def finished(shown: dict[str, Any]) -> bool:
    return bool(shown["status"] == "finished")


def test_a_restarted_server_carries_the_event_on(tmp_path: Path) -> None:
    clubs, kept = MemoryClubs(), Kept()
    server = start_server(tmp_path / "club.db", clubs, kept)
    club = Club(server, clubs, kept)
    admin = club.member("owner")
    players = [admin, *(club.member() for _ in range(3))]
    body = {"name": "Cup", "grace_seconds": 2, "rounds": 2, "bot": "greedy", "entry": "pairs"}
    event = admin.post("/api/clubs/club1/events", body).json()
    for player in players:
        assert player.post(f"/api/events/{event['id']}/register").is_success
    assert admin.post(f"/api/events/{event['id']}/start").is_success
    shown = admin.get(f"/api/events/{event['id']}").json()
    assert [t["status"] for t in shown["schedule"][0]["tables"]] == ["lobby"]
    server.__exit__()  # (within the grace time: the table waits in its lobby)

    again = start_server(tmp_path / "club.db", clubs, kept)
    try:
        admin.http.base_url = again.url  # type: ignore[assignment]
        shown = Club(again, clubs, kept).until(admin, event["id"], finished)
        assert [len(r["tables"]) for r in shown["schedule"]] == [1, 1]
        assert all(t["status"] == "decided" for r in shown["schedule"] for t in r["tables"])
        assert [s["played"] for s in shown["standings"]] == [2, 2]
    finally:
        again.__exit__()
    # What another process of a cluster reads: each table's match as written decides it as
    # the event recorded.
    asyncio.run(read_as_written(tmp_path / "club.db", shown))
    # The restarted server finished it: its final table is the club's, once.
    asyncio.run(one_final_table(sqlite_players(str(tmp_path / "club.db")), shown))


async def one_final_table(players: SqlPlayerStore, shown: dict[str, Any]) -> None:
    """The club's history has the event's final table once, as its page's standings."""
    await players.open()
    try:
        history = await ClubEvents(players.db).club_history("club1", 30)
    finally:
        await players.close()
    assert [entry["event"] for entry in history] == [shown["id"]]
    kept = [(s["place"], s["points"], s["buchholz"]) for s in history[0]["standings"]]
    assert kept == [(s["place"], s["points"], s["buchholz"]) for s in shown["standings"]]


async def read_as_written(path: Path, shown: dict[str, Any]) -> None:
    storage = GroupCommitStorage(str(path))
    await storage.open()
    try:
        for round_ in shown["schedule"]:
            for table in round_["tables"]:
                stored = await storage.fetch_table(table["code"])
                assert stored is not None
                match = written_match(stored)
                assert match is not None
                assert decided("round", match) == (table["winner"], table["level_difference"])
    finally:
        storage.close()


def match_started(message: dict[str, Any]) -> bool:
    events = message.get("events", []) if message.get("type") == "update" else []
    return any(event.get("type") == "match_start" for event in events)


async def sit_and_leave(browser: Browser, url: str, code: str, invite: str) -> None:
    """Take the profile's seat at the table (as the page does), say hello, then leave."""
    answer = browser.post(f"/api/tables/{code}/return", {"invite": invite})
    assert answer.status_code == 200, answer.text
    client = await Client.connect(url, code)
    await client.send({"type": "hello", "protocol": 3, "token": answer.json()["token"]})
    await client.until(lambda m: m.get("type") == "welcome")
    await client.until(match_started, timeout=10)
    await client.close()


def one_table_event(
    club: Club, grace_seconds: int
) -> tuple[list[Browser], dict[str, Any], str, str]:
    """An admin and three members in an event of one round of individuals, started: the
    players, the event, and its one table's code and invite."""
    players = [club.member("admin"), *(club.member() for _ in range(3))]
    body = {"name": "Cup", "grace_seconds": grace_seconds, "rounds": 1, "bot": "greedy",
            "entry": "individuals"}  # fmt: skip
    event = players[0].post("/api/clubs/club1/events", body).json()
    for player in players:
        assert player.post(f"/api/events/{event['id']}/register").is_success
    assert players[0].post(f"/api/events/{event['id']}/start").is_success
    shown = players[0].get(f"/api/events/{event['id']}").json()
    code, invite = shown["schedule"][0]["tables"][0]["link"][3:].split("#invite=")
    return players, event, code, invite


def host_of(players: list[Browser], code: str, invite: str) -> Browser:
    """Which of ``players`` holds the table's host seat (the event chose it)."""
    table = players[0].http.get(f"/api/tables/{code}", headers={"X-Invite": invite}).json()
    host_profile = table["seats"][table["host_seat"]]["profile"]
    return next(p for p in players if p.id == host_profile)


def test_players_who_leave_mid_event_leave_it_to_bots_and_it_finishes(tmp_path: Path) -> None:
    clubs, kept = MemoryClubs(), Kept()
    # A long grace: the table starts because its four players sat down, not because it ran
    # out; a short turn: a player who left is away after it (docs/protocol.md section 5).
    server = start_server(tmp_path / "club.db", clubs, kept, turn_seconds=0.3)
    try:
        club = Club(server, clubs, kept)
        players, event, code, invite = one_table_event(club, grace_seconds=600)

        async def everyone() -> None:
            await asyncio.gather(*(sit_and_leave(p, server.url, code, invite) for p in players))

        started = time.monotonic()
        asyncio.run(everyone())
        assert time.monotonic() - started < 30  # (never the 600 s of grace)
        shown = club.until(players[1], event["id"], finished)
        table = players[1].http.get(f"/api/tables/{code}", headers={"X-Invite": invite}).json()
        assert [s["kind"] for s in table["seats"]] == ["human"] * 4
        assert all(s["away"] or not s["online"] for s in table["seats"])
        assert [s["played"] for s in shown["standings"]] == [1] * 4
    finally:
        server.__exit__()


def test_the_host_of_an_events_table_cannot_start_it_before_its_players(
    tmp_path: Path,
) -> None:
    """With a long grace, the host alone at the table asks to start: refused, the table
    stays in its lobby for the players still to come (docs/tournaments.md, "Grace")."""
    clubs, kept = MemoryClubs(), Kept()
    server = start_server(tmp_path / "club.db", clubs, kept)
    try:
        club = Club(server, clubs, kept)
        players, _, code, invite = one_table_event(club, grace_seconds=600)
        host = host_of(players, code, invite)

        async def host_starts() -> dict[str, Any]:
            token = host.post(f"/api/tables/{code}/return", {"invite": invite}).json()["token"]
            client = await Client.connect(server.url, code)
            await client.send({"type": "hello", "protocol": 3, "token": token})
            await client.until(lambda m: m.get("type") == "welcome")
            await client.send({"type": "start", "id": "early"})
            refusal = await client.until(lambda m: m.get("type") == "error")
            await client.close()
            return refusal

        refusal = asyncio.run(host_starts())
        assert refusal["code"] == "wrong_status" and "event" in refusal["message"]
        after = players[0].http.get(f"/api/tables/{code}", headers={"X-Invite": invite}).json()
        assert after["status"] == "lobby"  # (the return and the hello changed only its seats)
    finally:
        server.__exit__()


def test_an_event_on_postgresql(tmp_path: Path, postgres: sandbox.LocalPostgres) -> None:
    """The same event with PostgreSQL as the server's database (a cluster's)."""
    clubs, kept = MemoryClubs(), Kept()
    server = start_server(postgres.new_database(), clubs, kept)
    try:
        club = Club(server, clubs, kept)
        players = [club.member("owner"), *(club.member() for _ in range(5))]
        body = {"name": "Cup", "grace_seconds": 0, "rounds": 3, "bot": "greedy",
                "entry": "pairs", "format": "round_robin"}  # fmt: skip
        event = players[0].post("/api/clubs/club1/events", body).json()
        for player in players:
            assert player.post(f"/api/events/{event['id']}/register").is_success
        assert players[0].post(f"/api/events/{event['id']}/start").is_success
        shown = club.until(players[0], event["id"], finished)
        # Three pairs, three rounds of a round robin: each met the others once, one bye each.
        assert [len(r["tables"]) for r in shown["schedule"]] == [1, 1, 1]
        assert sorted(b["entrant"] for r in shown["schedule"] for b in r["byes"]) == sorted(
            s["entrant"] for s in shown["standings"])  # fmt: skip
        assert [s["played"] for s in shown["standings"]] == [2, 2, 2]
    finally:
        server.__exit__()


def test_a_host_who_pauses_cannot_hold_the_event_up(tmp_path: Path) -> None:
    clubs, kept = MemoryClubs(), Kept()
    server = start_server(tmp_path / "club.db", clubs, kept, turn_seconds=0.3)
    try:
        club = Club(server, clubs, kept)
        players, event, code, invite = one_table_event(club, grace_seconds=2)
        host = host_of(players, code, invite)

        async def pause() -> float:
            token = host.post(f"/api/tables/{code}/return", {"invite": invite}).json()["token"]
            client = await Client.connect(server.url, code)
            await client.send({"type": "hello", "protocol": 3, "token": token})
            await client.until(match_started, timeout=15)
            await client.send({"type": "pause", "id": "p1"})
            await client.until(lambda m: m.get("type") == "ack" and m.get("id") == "p1")
            paused = time.monotonic()
            await client.until(lambda m: m.get("type") == "update" and any(
                e == {"type": "paused", "paused": False} for e in m.get("events", [])),
                timeout=15)  # fmt: skip
            await client.close()
            return time.monotonic() - paused

        held = asyncio.run(pause())
        assert 1.5 < held < 6  # (the grace time, then the next pass)
        club.until(players[1], event["id"], finished)
    finally:
        server.__exit__()


def test_an_event_across_a_cluster_of_two_processes(
    postgres: sandbox.LocalPostgres, redis_server: sandbox.LocalRedis
) -> None:
    """Two server processes (here two in-process servers) on one PostgreSQL and one Redis:
    the event's passes are taken in turn, its tables made and read wherever they are."""
    clubs, kept = MemoryClubs(), Kept()
    db = postgres.new_database()
    servers = [
        start_server(db, clubs, kept, broker=redis_server.url, node=f"n{i}") for i in range(2)
    ]
    try:
        clubs_a = Club(servers[0], clubs, kept)
        players = [clubs_a.member("owner")]
        players += [Club(servers[i % 2], clubs, kept).member() for i in range(7)]
        body = {"name": "Cup", "grace_seconds": 0, "rounds": 3, "bot": "greedy", "entry": "pairs"}
        event = players[0].post("/api/clubs/club1/events", body).json()
        for player in players:
            assert player.post(f"/api/events/{event['id']}/register").is_success
        assert players[1].post(f"/api/events/{event['id']}/start").status_code == 403
        assert players[0].post(f"/api/events/{event['id']}/start").is_success
        # Read through the other process: the same event, to its end.
        assert str(players[2].http.base_url).rstrip("/") == servers[1].url
        shown = Club(servers[1], clubs, kept).until(players[2], event["id"], finished)
        assert [len(r["tables"]) for r in shown["schedule"]] == [2, 2, 2]
        assert all(t["status"] == "decided" for r in shown["schedule"] for t in r["tables"])
        assert sum(s["points"] for s in shown["standings"]) == 6
    finally:
        for server in servers:
            server.__exit__()
    # Two processes stepped it: its final table was written once.
    asyncio.run(one_final_table(postgres_players(db), shown))
