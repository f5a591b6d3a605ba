"""Events through a real server (tournaments/service.py, routes/tournaments.py): set up by an
admin, registered for by members, started, played at real tables by the bots that take the
seats of absent players, and finished, with the club told and the standings kept."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import httpx

from fouronefour.server.players.values import FORMER_PLAYER

from .conftest import Browser, Club


def finished(shown: dict[str, Any]) -> bool:
    return bool(shown["status"] == "finished")


def set_up(admin: Browser, **setup: Any) -> dict[str, Any]:
    body = {"name": "Thursday cup", "grace_seconds": 0, "length": "round", "bot": "greedy"}
    body.update(setup)
    answer = admin.post("/api/clubs/club1/events", body)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def test_a_swiss_of_pairs_is_played_to_the_end_by_bots_for_absent_players(club: Club) -> None:
    admin = club.member("owner")
    others = [club.member() for _ in range(7)]
    event = set_up(admin, format="swiss", entry="pairs", rounds=3)
    assert event["status"] == "open" and event["link"] == f"/e/{event['id']}"
    # Two pairs come together; four players come alone (drawn into two pairs at the start).
    assert admin.post(f"/api/events/{event['id']}/register", {"partner": others[0].id}).is_success
    assert (
        others[1].post(f"/api/events/{event['id']}/register", {"partner": others[2].id}).is_success
    )
    for player in others[3:]:
        assert player.post(f"/api/events/{event['id']}/register").is_success
    started = admin.post(f"/api/events/{event['id']}/start")
    assert started.status_code == 200, started.text
    assert started.json()["status"] == "running"
    # Every member was told, with the event's page (in the background: soon).
    deadline = time.monotonic() + 5
    while len(club.kept.sent) < 8 and time.monotonic() < deadline:
        time.sleep(0.05)
    told = {profile for profile, notice in club.kept.sent if notice.kind == "club_event"}
    assert told == {admin.id, *(p.id for p in others)}
    assert all(n.url == f"/e/{event['id']}" for _, n in club.kept.sent)

    shown = club.until(others[5], event["id"], finished)
    team = next(p["team"] for p in shown["players"] if p["profile_id"] == others[5].id)
    assert shown["you"] == {"admin": False, "registered": True, "entrant": team}
    assert team in {s["entrant"] for s in shown["standings"]}
    assert admin.get(f"/api/events/{event['id']}").json()["you"]["entrant"] == admin.id
    assert len(shown["schedule"]) == 3
    met: Counter[frozenset[str]] = Counter()
    for round_ in shown["schedule"]:
        assert len(round_["tables"]) == 2 and not round_["byes"]
        for table in round_["tables"]:
            assert table["status"] == "decided" and table["winner"] in ("north", "east")
            assert table["link"].startswith(f"/t/{table['code']}#invite=")
            met[frozenset((table["north"][0]["entrant"], table["east"][0]["entrant"]))] += 1
    assert set(met.values()) == {1}  # (4 pairs, 3 rounds: everyone met everyone once)
    standings = shown["standings"]
    assert [s["place"] for s in standings] == [1, 2, 3, 4]
    assert all(s["played"] == 3 for s in standings)
    assert sum(s["points"] for s in standings) == 6
    assert all(" & " in s["name"] for s in standings)
    # The tables were real: made, started, played by bots, seated by the players' profiles.
    for round_ in shown["schedule"]:
        for shown_table in round_["tables"]:
            code, invite = shown_table["code"], shown_table["link"].split("#invite=")[1]
            # A private table: the club's members have its invite; a stranger, nothing.
            assert club.stranger().get(f"/api/tables/{code}").status_code == 404
            table = admin.http.get(f"/api/tables/{code}", headers={"X-Invite": invite}).json()
            # Decided, the table's match is over: its length is the event's (one round).
            assert table["status"] == "finished" and table["match_number"] == 1
            assert table["options"]["goal"] == "round"
            assert [s["kind"] for s in table["seats"]] == ["human"] * 4
            north = shown_table["north"][0]["name"].split(" & ")
            assert [table["seats"][0]["name"], table["seats"][2]["name"]] == north
    # Decided, a table is not played again (the event makes the next round's tables): its
    # host's offer of a new table is refused, as the same table's play again is.
    first = shown["schedule"][0]["tables"][0]
    code, invite = first["code"], first["link"].split("#invite=")[1]
    table = admin.http.get(f"/api/tables/{code}", headers={"X-Invite": invite}).json()
    host_id = table["seats"][table["host_seat"]]["profile"]
    host = next(b for b in (admin, *others) if b.id == host_id)
    token = host.post(f"/api/tables/{code}/return", {"invite": invite}).json()["token"]
    offer = host.post(f"/api/tables/{code}/again", {"token": token, "rotate": True})
    assert offer.status_code == 409, offer.text
    assert offer.json()["error"]["code"] == "wrong_status"


def test_individuals_rotate_partners_with_fair_byes(club: Club) -> None:
    admin = club.member("admin")
    players = [admin, *(club.member() for _ in range(4))]
    event = set_up(admin, format="round_robin", entry="individuals", rounds=5)
    for player in players:
        assert player.post(f"/api/events/{event['id']}/register").is_success
    assert admin.post(f"/api/events/{event['id']}/start").is_success
    shown = club.until(admin, event["id"], finished)
    byes = Counter(b["entrant"] for r in shown["schedule"] for b in r["byes"])
    assert sorted(byes.values()) == [1, 1, 1, 1, 1]  # (5 players, 5 rounds: one bye each)
    partners: Counter[frozenset[str]] = Counter()
    for round_ in shown["schedule"]:
        (table,) = round_["tables"]
        for side in ("north", "east"):
            partners[frozenset(e["entrant"] for e in table[side])] += 1
    assert set(partners.values()) == {1}  # (10 partnerships, 10 played: none twice)
    assert [s["played"] for s in shown["standings"]] == [4] * 5


def test_who_may_do_what(club: Club) -> None:
    admin, member, stranger = club.member("admin"), club.member(), club.stranger()
    outsider_admin = club.member("owner", club="club2")
    refused = member.post("/api/clubs/club1/events", {"name": "Mine"})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_club_admin"
    assert outsider_admin.post("/api/clubs/club1/events", {"name": "X"}).status_code == 403
    event = set_up(admin)
    for who in (stranger, outsider_admin):  # (not told that the event exists)
        answer = who.get(f"/api/events/{event['id']}")
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "event_not_found"
        assert who.post(f"/api/events/{event['id']}/register").status_code == 404
    assert stranger.get("/api/clubs/club1/events").status_code == 403
    assert member.get("/api/clubs/club1/events").json()["events"][0]["id"] == event["id"]
    assert member.post(f"/api/events/{event['id']}/start").status_code == 403
    no_csrf = member.post(f"/api/events/{event['id']}/register", csrf=False)
    assert no_csrf.status_code == 403 and no_csrf.json()["error"]["code"] == "bad_csrf"
    no_session = httpx.get(f"{club.server.url}/api/events/{event['id']}")
    assert no_session.status_code == 401 and no_session.json()["error"]["code"] == "no_session"


def test_bad_input_is_refused_and_changes_nothing(club: Club) -> None:
    admin, member = club.member("owner"), club.member()
    cases = [
        ({"name": ""}, "bad_name"),
        ({"name": "x" * 41}, "bad_name"),
        ({"name": "line\nbreak"}, "bad_name"),
        ({"name": "\u202egnp.exe"}, "bad_name"),
        ({"name": "\u3164\u3164"}, "bad_name"),
        ({"name": 5}, "bad_name"),
        ({"name": "Cup", "rounds": 0}, "bad_option"),
        ({"name": "Cup", "rounds": 99}, "bad_option"),
        ({"name": "Cup", "rounds": True}, "bad_option"),
        ({"name": "Cup", "format": "knockout"}, "bad_option"),
        ({"name": "Cup", "entry": "teams"}, "bad_option"),
        ({"name": "Cup", "length": "Z"}, "bad_option"),
        ({"name": "Cup", "grace_seconds": -1}, "bad_option"),
        ({"name": "Cup", "bot": "deep blue"}, "bad_option"),
        ({"name": "Cup", "colour": "red"}, "bad_option"),
    ]
    for body, code in cases:
        answer = admin.post("/api/clubs/club1/events", body)
        assert answer.status_code == 400, (body, answer.text)
        assert answer.json()["error"]["code"] == code, body
    big = admin.http.post(
        "/api/clubs/club1/events",
        content=b'{"name": "' + b"x" * 4000 + b'"}',
        headers={"X-CSRF-Token": admin.csrf, "content-type": "application/json"},
    )
    assert big.status_code in (400, 413)
    assert admin.get("/api/clubs/club1/events").json()["events"] == []

    event = set_up(admin, name='  <b>Cup</b> & "friends"  ', entry="pairs")
    assert event["name"] == '<b>Cup</b> & "friends"'  # (kept as text: the page escapes it)
    path = f"/api/events/{event['id']}"
    assert member.post(f"{path}/register", {"partner": member.id}).status_code == 400
    assert member.post(f"{path}/register", {"partner": "nobody"}).status_code == 403
    assert member.post(f"{path}/register", {"team": "x"}).status_code == 400
    assert member.post(f"{path}/register").is_success
    again = member.post(f"{path}/register")
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_registered"
    few = admin.post(f"{path}/start")
    assert few.status_code == 409 and few.json()["error"]["code"] == "too_few_entrants"
    assert member.post(f"{path}/withdraw").is_success
    assert member.post(f"{path}/withdraw").status_code == 409
    for _ in range(4):
        set_up(admin)
    too_many = admin.post("/api/clubs/club1/events", {"name": "Sixth"})
    assert too_many.status_code == 409 and too_many.json()["error"]["code"] == "too_many_events"


def test_registration_closes_when_the_event_starts(club: Club) -> None:
    admin, a, b, late = club.member("admin"), club.member(), club.member(), club.member()
    event = set_up(admin, entry="pairs", rounds=1)
    for player in (admin, a, b):
        assert player.post(f"/api/events/{event['id']}/register").is_success
    assert admin.post(f"/api/events/{event['id']}/start").is_success
    assert admin.post(f"/api/events/{event['id']}/start").status_code == 409
    closed = late.post(f"/api/events/{event['id']}/register")
    assert closed.status_code == 409 and closed.json()["error"]["code"] == "wrong_status"
    assert a.post(f"/api/events/{event['id']}/withdraw").status_code == 409
    shown = club.until(admin, event["id"], finished)
    # Three came alone: two drawn together, the third with a bot partner.
    assert sorted(s["name"].endswith("& bot") for s in shown["standings"]) == [False, True]


def test_a_players_events_are_in_their_export_and_leave_with_them(club: Club) -> None:
    admin, leaver, other = club.member("owner"), club.member(), club.member()
    played = set_up(admin, name="Played", rounds=1, grace_seconds=600)
    upcoming = set_up(admin, name="Upcoming")
    for player in (admin, leaver, other):
        assert player.post(f"/api/events/{played['id']}/register").is_success
    assert leaver.post(f"/api/events/{upcoming['id']}/register").is_success
    assert admin.post(f"/api/events/{played['id']}/start").is_success
    exported = leaver.get("/api/me/export").json()["events"]
    assert {e["name"] for e in exported} == {"Played", "Upcoming"}
    assert all(e["club"] == "club1" for e in exported)
    deleted = leaver.http.delete("/api/me", headers={"X-CSRF-Token": leaver.csrf})
    assert deleted.is_success, deleted.text
    assert admin.get(f"/api/events/{upcoming['id']}").json()["players"] == []
    names = [p["name"] for p in admin.get(f"/api/events/{played['id']}").json()["players"]]
    assert len(names) == 3 and FORMER_PLAYER in names  # (the others' results keep a seat)


def test_a_deleted_profile_is_a_bot_in_the_next_rounds(club: Club) -> None:
    admin = club.member("owner")
    players = [admin, *(club.member() for _ in range(3))]
    event = set_up(admin, entry="individuals", rounds=2)
    for player in players:
        assert player.post(f"/api/events/{event['id']}/register").is_success
    assert admin.post(f"/api/events/{event['id']}/start").is_success
    leaver = players[3]
    assert leaver.http.delete("/api/me", headers={"X-CSRF-Token": leaver.csrf}).is_success
    shown = club.until(admin, event["id"], finished)
    last = shown["schedule"][1]["tables"][0]
    seats = [last["north"][0], last["east"][0], last["north"][1], last["east"][1]]
    code, invite = last["link"][3:].split("#invite=")
    table = admin.http.get(f"/api/tables/{code}", headers={"X-Invite": invite}).json()
    kinds = {e["entrant"]: table["seats"][i]["kind"] for i, e in enumerate(seats)}
    assert kinds.pop(leaver.id) == "bot"
    assert set(kinds.values()) == {"human"}
    assert FORMER_PLAYER in [s["name"] for s in shown["standings"]]


def test_who_left_the_club_before_the_start_does_not_play(club: Club) -> None:
    admin, partner, a, b = club.member("owner"), club.member(), club.member(), club.member()
    event = set_up(admin, entry="pairs", rounds=1)
    assert admin.post(f"/api/events/{event['id']}/register", {"partner": partner.id}).is_success
    for player in (a, b):
        assert player.post(f"/api/events/{event['id']}/register").is_success
    del club.clubs.clubs["club1"][partner.id]  # (removed from the club: kicked, banned, left)
    assert admin.post(f"/api/events/{event['id']}/start").is_success
    shown = club.until(admin, event["id"], finished)
    playing = {p["profile_id"] for p in shown["players"]}
    assert playing == {admin.id, a.id, b.id}
    # The admin, alone now, was drawn into a pair or took a bot partner.
    assert len(shown["standings"]) == 2
    assert sorted(s["name"].endswith("& bot") for s in shown["standings"]) == [False, True]
