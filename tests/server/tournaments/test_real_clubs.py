"""An event over the server's own clubs (clubs/, ServerState.clubs), not the tests'
in-memory ones: a club made and joined through its invite link, an event of its members,
and a banned member who no longer sees it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from fouronefour.server.config import ServerConfig
from tests.server.conftest import ThreadServer

from .conftest import Browser


def test_an_event_of_a_real_club(tmp_path: Path) -> None:
    config = ServerConfig(db=str(tmp_path / "real.db"), bot_delay=0.0, bot_processes=0,
                          hook_seconds=0.05)  # fmt: skip
    server = ThreadServer(config).__enter__()
    try:
        owner = Browser(server.url)
        made = owner.post("/api/clubs", {"name": "Thursday"})
        assert made.status_code == 201, made.text
        club, invite = made.json()["id"], made.json()["invite"]
        members = [Browser(server.url) for _ in range(3)]
        for member in members:
            assert member.post("/api/clubs/join", {"invite": invite}).is_success
        banned = Browser(server.url)
        assert banned.post("/api/clubs/join", {"invite": invite}).is_success

        body = {"name": "Cup", "entry": "individuals", "rounds": 1, "grace_seconds": 0,
                "bot": "greedy"}  # fmt: skip
        refused = members[0].post(f"/api/clubs/{club}/events", body)
        assert refused.status_code == 403  # (a member, not an admin)
        event = owner.post(f"/api/clubs/{club}/events", body).json()
        for player in (owner, *members, banned):
            assert player.post(f"/api/events/{event['id']}/register").is_success
        action = owner.post(f"/api/clubs/{club}/members/{banned.id}", {"action": "ban"})
        assert action.is_success, action.text
        assert banned.get(f"/api/events/{event['id']}").status_code == 404
        assert owner.post(f"/api/events/{event['id']}/start").is_success

        deadline = time.monotonic() + 60
        shown: dict[str, Any] = {}
        while time.monotonic() < deadline:
            shown = members[1].get(f"/api/events/{event['id']}").json()
            if shown["status"] == "finished":
                break
            time.sleep(0.2)
        assert shown["status"] == "finished"
        playing = {s["entrant"] for s in shown["standings"]}
        assert playing == {owner.id, *(m.id for m in members)}  # (the banned one: not)
        # Its final table is in the club's history, once, with the standings of its page.
        history = members[2].get(f"/api/clubs/{club}/history").json()
        finals = [entry for entry in history if entry["kind"] == "event"]
        assert [entry["event"] for entry in finals] == [event["id"]]
        assert finals[0]["link"] == f"/e/{event['id']}" and finals[0]["name"] == "Cup"
        shown_table = [(s["place"], s["entrant"], s["points"], s["buchholz"])
                       for s in shown["standings"]]  # fmt: skip
        kept = [(s["place"], s["players"][0]["profile"], s["points"], s["buchholz"])
                for s in finals[0]["standings"]]  # fmt: skip
        assert kept == shown_table
        assert banned.get(f"/api/clubs/{club}/history").status_code == 404
        # A player's place is in their export; deleted, a former player's place stays.
        leaver = members[0]
        results = leaver.get("/api/me/export").json()["event_results"]
        assert [(r["event"], r["club"], r["name"]) for r in results] == [(event["id"], club, "Cup")]
        assert leaver.http.delete("/api/me", headers={"X-CSRF-Token": leaver.csrf}).is_success
        after = members[2].get(f"/api/clubs/{club}/history").json()
        places = next(e for e in after if e["kind"] == "event")["standings"]
        gone = [p["players"][0] for p in places if p["players"][0]["former"]]
        assert gone == [{"profile": None, "name": "a former player", "former": True}]
        assert leaver.id not in str(places)
    finally:
        server.__exit__()
