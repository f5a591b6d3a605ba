"""A club's event in the browser (tournaments.js): an admin sets it up on the club's events
page with a name that is markup, registers, starts it; a member registers from a laptop;
both follow the rounds' tables and the standings live to the end. Each page is checked
whole at 390x844 and 1366x657 and photographed into test-artifacts/tournaments/."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fouronefour.server.tournaments.access import MemoryClubs
from fouronefour.server.tournaments.errors import EventCode
from tests.server.conftest import ThreadServer
from tests.server.tournaments.conftest import Browser, Kept, start_server

from .pages import Shots

SHOTS = Shots("tournaments")
I18N = Path(__file__).resolve().parents[2] / "src" / "fouronefour" / "web" / "static" / "i18n"
MARKUP = '<img src=x onerror="window.pwned=1">&Co'


@pytest.fixture
def club_server(tmp_path: Path) -> Iterator[tuple[ThreadServer, MemoryClubs]]:
    clubs = MemoryClubs()
    server = start_server(tmp_path / "web.db", clubs, Kept())
    try:
        yield server, clubs
    finally:
        server.__exit__()


def _member(page: Any, url: str, clubs: MemoryClubs, role: str) -> str:
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready=true]")
    me = page.evaluate("fetch('/api/me').then((r) => r.json())")
    profile_id: str = me["profile"]["id"]
    clubs.clubs.setdefault("club1", {})[profile_id] = role  # type: ignore[assignment]
    return profile_id


def test_an_event_set_up_registered_started_and_followed(
    new_page: Any, club_server: tuple[ThreadServer, MemoryClubs]
) -> None:
    server, clubs = club_server
    phone = new_page("admin", 390, 844)
    laptop = new_page("member", 1366, 657)
    _member(phone, server.url, clubs, "owner")
    _member(laptop, server.url, clubs, "member")
    others = [Browser(server.url) for _ in range(2)]
    for other in others:
        clubs.clubs["club1"][other.id] = "member"

    phone.goto(server.url + "/c/club1/events")
    phone.wait_for_selector("[data-testid=ev-setup]")
    SHOTS.whole(phone, "club-events-390")
    phone.fill("[data-testid=ev-name]", MARKUP)
    phone.select_option("[data-testid=ev-entry]", "individuals")
    phone.fill("[data-testid=ev-rounds]", "2")
    phone.fill("input[name=grace_seconds]", "0")
    phone.click("[data-testid=ev-create]")
    phone.wait_for_url(re.compile(r"/e/[0-9a-f]+$"))
    event_id = phone.url.rsplit("/", 1)[1]
    title = phone.locator("[data-testid=ev-title]")
    assert title.text_content() == MARKUP  # (as text: no element made of it)
    assert phone.locator("[data-testid=ev-page] img").count() == 0
    # The event's page leads back to its club, not only Home.
    assert (phone.get_attribute("[data-testid=ev-club]", "href") or "").startswith("/c/")
    phone.click("[data-testid=ev-register]")
    phone.wait_for_selector("[data-testid=ev-withdraw]")

    laptop.goto(f"{server.url}/e/{event_id}")
    laptop.wait_for_selector("[data-testid=ev-register]")
    assert laptop.locator("[data-testid=ev-start]").count() == 0  # (a member: no start)
    laptop.click("[data-testid=ev-register]")
    laptop.wait_for_selector("[data-testid=ev-withdraw]")
    for other in others:
        assert other.post(f"/api/events/{event_id}/register").is_success
    phone.reload()
    phone.wait_for_selector("[data-testid=ev-players] li >> nth=3")
    SHOTS.whole(phone, "event-open-390")
    phone.click("[data-testid=ev-start]")
    phone.wait_for_selector("[data-testid=ev-round-1] [data-testid=ev-table-link]")
    SHOTS.whole(phone, "event-running-390")

    # The laptop's page follows the event on its own to the end.
    laptop.wait_for_selector("[data-testid=ev-round-2]", timeout=60_000)
    laptop.wait_for_function(
        "document.querySelector('[data-testid=ev-meta]').textContent.includes('Finished')",
        timeout=60_000,
    )
    standings = laptop.locator("[data-testid=ev-standings] tr")
    assert standings.count() == 5  # (a heading and four players)
    links = laptop.locator("[data-testid=ev-table-link]")
    assert links.count() == 2
    assert re.fullmatch(r"/t/[A-Z0-9]+#invite=[\w-]+", links.first.get_attribute("href") or "")
    SHOTS.whole(laptop, "event-finished-1366")
    phone.wait_for_function(
        "document.querySelector('[data-testid=ev-meta]').textContent.includes('Finished')",
        timeout=60_000,
    )
    SHOTS.whole(phone, "event-finished-390")
    assert not phone.evaluate("window.pwned || false")


def test_a_stranger_sees_no_event(
    new_page: Any, club_server: tuple[ThreadServer, MemoryClubs]
) -> None:
    server, clubs = club_server
    admin = Browser(server.url)
    clubs.clubs["club1"] = {admin.id: "owner"}
    event = admin.post("/api/clubs/club1/events", {"name": "Secret cup"}).json()
    page = new_page("stranger", 1366, 657)
    page.goto(f"{server.url}/e/{event['id']}")
    page.wait_for_selector("[data-testid=screen-tournament] h2")
    assert "Secret cup" not in (page.content() or "")
    SHOTS.whole(page, "event-stranger-1366")


def test_every_word_the_page_builds_exists() -> None:
    """The keys tournaments.js makes from values (statuses, formats, errors) are in every
    language (the literal ones: tests/web/test_translations.py)."""
    made = [f"ev_status_{s}" for s in ("open", "running", "finished")]
    made += [f"ev_format_{f}" for f in ("swiss", "round_robin")]
    made += [f"ev_entry_{e}" for e in ("pairs", "individuals")]
    made += [f"ev_table_{s}" for s in ("new", "lobby", "playing", "decided")]
    made += [f"error_{code}" for code in EventCode]
    for lang in ("en", "de", "it", "hi", "zh"):
        strings = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
        assert not [key for key in made if key not in strings], lang
