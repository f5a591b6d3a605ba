"""Finished matches reach the players (recording.py): a seat carries its player's profile,
a match's record is written with its result, recorded once, never lost with a restart."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from fouronefour.engine import Rules
from fouronefour.server.players.service import Players
from fouronefour.server.players.sqlite import sqlite_players
from fouronefour.server.players.values import MatchRecord, MatchSeat
from fouronefour.server.recording import match_record, record_pending
from fouronefour.server.storage.sqlite import GroupCommitStorage
from fouronefour.server.tables.model import TableOptions
from fouronefour.server.tables.settings import TableSettings
from fouronefour.server.tables.table import Table

from .conftest import Harness, ThreadServer


def finished_rated_table(harness: Harness, profile: str) -> Table:
    """A rated 4-player table whose signed-in host never acts (bots play it out)."""
    options = TableOptions(Rules(4), turn_seconds=5.0, bot="random", rated=True)
    table, _ = Table.create(
        "REC001", options, "Ann", 0, harness.services(), TableSettings(0.0), profile
    )
    harness.storage.create_table(table.stored())
    table.seating.fill_bots(0)
    table.start(0)
    harness.scheduler.run_until_idle()
    assert table.status == "finished"
    return table


def test_a_rated_match_changes_its_players_rating_once(harness: Harness, tmp_path: Path) -> None:
    async def scenario() -> None:
        players = Players(sqlite_players(str(tmp_path / "players.db")))
        await players.store.open()
        try:
            ann = (await players.start_guest(None)).profile
            table = finished_rated_table(harness, ann.id)
            assert table.seats[0].public()["profile"] == ann.id
            pending = await harness.storage.pending_records(10)
            assert [(code, number) for code, number, _ in pending] == [("REC001", 1)]
            record = match_record(pending[0][2])
            assert record.rated and record.rounds == len(table.match.results)  # type: ignore[union-attr]
            assert [s.profile_id for s in record.seats] == [ann.id, None, None, None]
            assert [s.bot_level for s in record.seats] == [None, "random", "random", "random"]
            winners = table.match.winning_team  # type: ignore[union-attr]
            assert [s.rank for s in record.seats] == [
                1 if s % 2 == winners else 2 for s in range(4)
            ]
            assert await record_pending(harness.storage, players) == 1
            entry = (await players.store.history(ann.id, 1))[0].to_dict()
            assert entry["levels"][str(winners)] == "A"  # (a match is won at A)
            assert set(entry["levels"]) == {"0", "1"}
            assert not any(seat["former"] for seat in entry["seats"])
            after = await players.public(ann.id)
            assert after["rating"]["matches"] == 1
            assert after["stats"]["matches"] == 1
            # Handed over again (a process that stopped before marking it done): no change.
            again = await players.record_match(record)
            assert not again.new
            assert (await players.public(ann.id))["rating"] == after["rating"]
            assert await harness.storage.pending_records(10) == []
            assert await record_pending(harness.storage, players) == 0
        finally:
            await players.store.close()

    asyncio.run(scenario())


def test_a_record_outlives_a_restart_before_it_is_recorded(
    harness: Harness, tmp_path: Path
) -> None:
    finished_rated_table(harness, "someone")
    harness.storage.close()
    reopened = GroupCommitStorage(harness.storage.path)
    try:
        pending = asyncio.run(reopened.pending_records(10))
        assert [(code, number) for code, number, _ in pending] == [("REC001", 1)]
    finally:
        reopened.close()


def test_a_table_of_players_without_profiles_records_nothing(harness: Harness) -> None:
    harness.table(humans=1, turn_seconds=5.0)
    harness.scheduler.run_until_idle()
    assert asyncio.run(harness.storage.pending_records(10)) == []


def test_a_rated_table_plays_the_standard_rules(make_server: object) -> None:
    server: ThreadServer = make_server()  # type: ignore[operator]
    made = httpx.post(f"{server.url}/api/tables", json={"name": "Ann", "rated": True})
    assert made.status_code == 201 and made.json()["table"]["options"]["rated"] is True
    for changed in ({"hooking": False}, {"decks": 3}, {"tribute": False}):
        refused = httpx.post(
            f"{server.url}/api/tables", json={"name": "Ann", "rated": True, **changed}
        )
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_option"
    six = httpx.post(f"{server.url}/api/tables", json={"name": "Ann", "rated": True, "players": 6})
    assert six.status_code == 201
    bad = httpx.post(f"{server.url}/api/tables", json={"name": "Ann", "rated": "yes"})
    assert bad.status_code == 400


@pytest.fixture
def browser(make_server: object) -> tuple[ThreadServer, httpx.Client]:
    server: ThreadServer = make_server()  # type: ignore[operator]
    client = httpx.Client(base_url=server.url)
    assert client.get("/api/me").status_code in (200, 201)
    return server, client


def page_headers(client: httpx.Client) -> dict[str, str]:
    return {"X-CSRF-Token": client.cookies["fof_csrf"]}


def test_seats_follow_the_profile_from_the_page_only(
    browser: tuple[ThreadServer, httpx.Client],
) -> None:
    server, client = browser
    me = client.get("/api/me").json()["profile"]["id"]
    made = client.post("/api/tables", json={"name": "Ann"}, headers=page_headers(client))
    code, token = made.json()["code"], made.json()["token"]
    assert made.json()["table"]["seats"][0]["profile"] == me
    # A profile is the session's, never the body's; no CSRF header: a client without one.
    friend = httpx.post(
        f"{server.url}/api/tables/{code}/join",
        json={"name": "Bob", "seat": 1, "_profile": me, "profile": me},
    )
    assert friend.json()["table"]["seats"][1]["profile"] is None
    forged = client.post(f"/api/tables/{code}/join", json={"name": "Cy", "seat": 2},
                         headers={"X-CSRF-Token": "not it"})  # fmt: skip
    assert forged.json()["table"]["seats"][2]["profile"] is None
    other_site = client.post(
        f"/api/tables/{code}/join",
        json={"name": "Di", "seat": 3},
        headers={**page_headers(client), "Origin": "https://evil.example"},
    )
    assert other_site.json()["table"]["seats"][3]["profile"] is None
    # On a new device (the same profile, no seat token): the seat comes back with a new token.
    back = client.post(f"/api/tables/{code}/return", json={}, headers=page_headers(client))
    assert back.status_code == 200 and back.json()["seat"] == 0
    assert back.json()["token"] != token
    assert back.json()["table"]["seats"][0]["profile"] == me
    # Without a session, or a profile that holds no seat here: refused, nothing changes.
    nobody = httpx.post(f"{server.url}/api/tables/{code}/return", json={})
    assert nobody.status_code == 401 and nobody.json()["error"]["code"] == "not_signed_in"
    stranger = httpx.Client(base_url=server.url)
    stranger.get("/api/me")
    refused = stranger.post(f"/api/tables/{code}/return", json={}, headers=page_headers(stranger))
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_seat"
    version = client.get(f"/api/tables/{code}").json()["version"]
    assert version == back.json()["table"]["version"]


def test_what_each_seat_did_is_counted_as_the_events_told_it() -> None:
    """The record's tallies, read from each round's log as it ended, agree with the public
    events the table sent move by move (tables/play.py) over whole random matches."""
    from fouronefour.engine import PASS, Match
    from fouronefour.engine.moves import BombKind, Kind, classify_text
    from fouronefour.server.tables.play import play
    from fouronefour.server.tables.records import TALLIES, tallies

    for seed in (1, 2, 3):
        rng = random.Random(seed)
        match = Match(Rules(4), seed)
        expected = [dict.fromkeys(TALLIES, 0) for _ in range(4)]
        top: int | None = None
        for tribute in match.round.tributes:
            expected[tribute["from"]]["tribute_paid"] += 1
            expected[tribute["to"]]["tribute_received"] += 1
        while not match.is_over:
            r = match.round
            assert r.to_act is not None and r.decision is not None
            prompt = (str(r.decision), r.legal_moves())
            played = play(match, r.to_act, prompt, rng.choice(prompt[1]), 1)
            for event in played.events:
                if event["type"] == "play":
                    combination = classify_text(event["move"])
                    if combination is not None and combination.kind is Kind.BOMB:
                        name = (
                            "four_four_a" if combination.bomb is BombKind.FOUR_FOUR_ACE else "bombs"
                        )
                        expected[event["seat"]][name] += 1
                    top = event["seat"]
                elif event["type"] in ("hook", "unhook") and event["move"] != PASS:
                    # (play() takes the engine's offers one by one: a decline is no claim)
                    if event["type"] == "hook":
                        expected[event["seat"]]["hooks_made"] += 1
                        assert top is not None
                        expected[top]["hooks_suffered"] += 1
                    top = event["seat"]
                elif event["type"] == "round_start":
                    top = None
                    for tribute in event["tributes"]:
                        expected[tribute["from"]]["tribute_paid"] += 1
                        expected[tribute["to"]]["tribute_received"] += 1
            match = played.after
        assert tallies(match) == expected
        assert sum(e["hooks_made"] for e in expected) > 0 or seed != 1  # (seed 1 hooks)


def test_accuracy_is_the_share_of_choices_labelled_best_or_good() -> None:
    from fouronefour.server.recording import accuracy_by_seat

    decisions = [
        {"seat": 0, "label": "best"}, {"seat": 0, "label": "forced"},
        {"seat": 0, "label": "mistake"}, {"seat": 0, "label": "good"},
        {"seat": 1, "label": "forced"}, {"seat": 2, "label": "blunder"},
    ]  # fmt: skip
    assert accuracy_by_seat(decisions) == {0: 2 / 3, 2: 0.0}


def test_a_matchs_accuracy_waits_for_its_rounds_analyses(harness: Harness, tmp_path: Path) -> None:
    from fouronefour.server.recording import fill_accuracy
    from fouronefour.server.storage import StoredAnalysis

    async def scenario() -> None:
        players = Players(sqlite_players(str(tmp_path / "players.db")))
        await players.store.open()
        try:
            ann = (await players.start_guest(None)).profile
            table = finished_rated_table(harness, ann.id)
            await record_pending(harness.storage, players)
            rounds = len(table.match.results)  # type: ignore[union-attr]
            # Not analysed (this table's server analyses nothing): settled without accuracy.
            assert await fill_accuracy(harness.storage, players) == 1
            assert await players.store.accuracy_due(10) == []
            assert (await players.store.history(ann.id, 5))[0].accuracy is None
            # Another match of the same table, its rounds analysed one after the other.
            again = replace_number(await players.store.history(ann.id, 1), rounds)
            await players.record_match(again)
            for number in range(1, rounds + 1):
                await harness.storage.store_analysis("REC001", StoredAnalysis(2, number))
            assert await fill_accuracy(harness.storage, players) == 0  # (due: wait)
            for number in range(1, rounds + 1):
                decisions = [{"seat": 0, "label": "best" if number % 2 else "mistake"},
                             {"seat": 1, "label": "good"}]  # fmt: skip
                await harness.storage.store_analysis(
                    "REC001", StoredAnalysis(2, number, 8, decisions)
                )
            assert await fill_accuracy(harness.storage, players) == 1
            share = sum(1 for n in range(1, rounds + 1) if n % 2) / rounds
            assert (await players.store.history(ann.id, 1))[0].accuracy == pytest.approx(share)
            stats = (await players.public(ann.id))["stats"]
            assert stats["accuracy"] == pytest.approx(share) and stats["analysed_matches"] == 1
            assert stats["levels_climbed"] >= 0 and "bombs" in stats and "tribute_paid" in stats
        finally:
            await players.store.close()

    asyncio.run(scenario())


def replace_number(history: list[Any], rounds: int) -> MatchRecord:
    """Match 2 of the same table, as the record of match 1 had it (a profile at seat 0)."""
    entry = history[0]
    seats = tuple(
        MatchSeat(s.seat, s.team, s.name, s.rank, s.place, s.profile_id, s.bot_level)
        for s in entry.seats
    )
    return MatchRecord(entry.code, 2, entry.finished_at + 1, False, seats, rounds)
