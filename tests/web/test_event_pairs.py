"""A fixed pairs event of a real club in the browser (tournaments.js, clubs.js): a member
registers with a partner chosen by name among the club's members, the registered pairs
shown; a partner taken meanwhile is a clear error in a toast; the event is played to its
end, its table shown decided (not played on); its final table is in the club's history,
linking to the event. At 390x844 and 1366x657, photographed into
test-artifacts/tournaments/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fouronefour.server.config import ServerConfig
from tests.server.conftest import ThreadServer
from tests.server.tournaments.conftest import Browser

from .pages import Shots

SHOTS = Shots("tournaments")

MARKUP = "<b>Dan</b>"


@pytest.fixture
def real_server(tmp_path: Path) -> Iterator[ThreadServer]:
    config = ServerConfig(db=str(tmp_path / "pairs.db"), bot_delay=0.0, bot_processes=0,
                          hook_seconds=0.05)  # fmt: skip
    server = ThreadServer(config).__enter__()
    try:
        yield server
    finally:
        server.__exit__()


def _api(page: Any, method: str, path: str, body: Any = None) -> Any:
    """A call from the page's own session (its cookie and CSRF token)."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const me = await (await fetch('/api/me')).json();
            const answer = await fetch(path, {method, body: JSON.stringify(body || {}),
                headers: {'Content-Type': 'application/json', 'X-CSRF-Token': me.csrf}});
            return {status: answer.status, body: await answer.json()};
        }""",
        [method, path, body],
    )


def _person(page: Any, url: str, name: str) -> str:
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready=true]")
    assert _api(page, "PATCH", "/api/me", {"name": name})["status"] == 200
    me = page.evaluate("fetch('/api/me').then((r) => r.json())")
    profile_id: str = me["profile"]["id"]
    return profile_id


def _names(page: Any) -> list[str]:
    return [o.strip() for o in page.locator("[data-testid=ev-partner] option").all_text_contents()]


def test_a_pair_registered_in_the_page_plays_and_goes_to_the_clubs_history(
    new_page: Any, real_server: ThreadServer
) -> None:
    url = real_server.url
    # (A phone: touch, so the table's buttons show no keyboard keys. In a desktop window
    # this narrow their keys do not fit, as on main: Play and Clear end in an ellipsis.)
    phone = new_page("ann", 390, 844, mobile=True)
    laptop = new_page("bob", 1366, 657)
    _person(phone, url, "Ann")
    _person(laptop, url, "Bob")
    made = _api(phone, "POST", "/api/clubs", {"name": "Thursday"})
    assert made["status"] == 201, made
    club, invite = made["body"]["id"], made["body"]["invite"]
    assert _api(laptop, "POST", "/api/clubs/join", {"invite": invite})["status"] in (200, 201)
    cat, dan = Browser(url), Browser(url)
    for browser, name in ((cat, "Cat"), (dan, MARKUP)):
        assert browser.http.patch("/api/me", json={"name": name},
                                  headers={"X-CSRF-Token": browser.csrf}).is_success  # fmt: skip
        assert browser.post("/api/clubs/join", {"invite": invite}).is_success
    body = {"name": "Pairs cup", "entry": "pairs", "rounds": 1, "grace_seconds": 0}
    event = _api(phone, "POST", f"/api/clubs/{club}/events", body)["body"]

    # Bob picks Cat among the club's members by name (not himself), and registers the pair.
    laptop.goto(f"{url}/e/{event['id']}")
    laptop.wait_for_selector("[data-testid=ev-partner]")
    assert _names(laptop)[1:] == sorted(["Ann", "Cat", MARKUP])
    assert laptop.locator("[data-testid=ev-partner] b").count() == 0  # (a name is text)
    SHOTS.whole(laptop, "event-partner-1366")
    laptop.select_option("[data-testid=ev-partner]", label="Cat")
    laptop.click("[data-testid=ev-register]")
    laptop.wait_for_selector("[data-testid=ev-withdraw]")
    assert laptop.locator("[data-testid=ev-pair]").all_text_contents() == ["Bob & Cat"]

    # Ann's list has neither of the pair; Dan registers alone while Ann picks him: a toast.
    phone.goto(f"{url}/e/{event['id']}")
    phone.wait_for_selector("[data-testid=ev-partner]")
    assert _names(phone)[1:] == [MARKUP]
    assert dan.post(f"/api/events/{event['id']}/register").is_success
    phone.select_option("[data-testid=ev-partner]", label=MARKUP)
    phone.click("[data-testid=ev-register]")
    toast = phone.locator("#toast")
    toast.wait_for(state="visible")
    assert toast.text_content() == "You (or your partner) are registered already."
    SHOTS.whole(phone, "event-partner-taken-390")
    # The list as it is now (Dan is in: nobody left to pick), and Ann registers alone.
    phone.wait_for_function(
        "document.querySelectorAll('[data-testid=ev-partner] option').length === 1"
    )
    phone.click("[data-testid=ev-register]")
    phone.wait_for_selector("[data-testid=ev-withdraw]")
    pairs = phone.locator("[data-testid=ev-pair]").all_text_contents()
    assert pairs == ["Bob & Cat", f"{MARKUP} (a partner is drawn at the start)",
                     "Ann (a partner is drawn at the start)"]  # fmt: skip
    SHOTS.whole(phone, "event-pairs-390")
    phone.click("[data-testid=ev-start]")
    phone.wait_for_function(
        "document.querySelector('[data-testid=ev-meta]').textContent.includes('Finished')",
        timeout=60_000,
    )

    # Their table: decided, so over, and said so (one round: the event's length).
    for page, size in ((laptop, "1366"), (phone, "390")):
        page.reload()
        link = page.locator("[data-testid=ev-table-link]")
        link.wait_for()
        link.click()
        page.locator("#screen-table:not([hidden])").wait_for()
        page.locator(".status-text", has_text="The event's table is decided").wait_for()
        assert page.locator("[data-testid=status-play-again]").count() == 0
        SHOTS.whole(page, f"event-table-decided-{size}")
    # Its host (the first seat's player, whoever it is) is offered no play again either, in
    # the results dialog: at this table, or at a new one.
    shown = cat.get(f"/api/events/{event['id']}").json()
    link = shown["schedule"][0]["tables"][0]["link"]
    code, secret = link.removeprefix("/t/").split("#invite=")
    table = cat.http.get(f"/api/tables/{code}", headers={"X-Invite": secret}).json()
    host_id = table["seats"][table["host_seat"]]["profile"]
    me = "fetch('/api/me').then((r) => r.json()).then((m) => m.profile.id)"
    sessions = {p.evaluate(me): p.context.cookies() for p in (phone, laptop)}
    for browser in (cat, dan):
        sessions[browser.id] = [{"name": k, "value": v, "url": url}
                                for k, v in browser.http.cookies.items()]  # fmt: skip
    host = new_page("host", 1366, 657)
    host.context.add_cookies(sessions[host_id])
    host.goto(url + link)
    host.locator("[data-testid=results]").wait_for()
    host.wait_for_function("document.querySelector('#game').dataset.decision === ''")
    assert host.locator(".status-text", has_text="The event's table is decided").count() == 1
    host.wait_for_timeout(2000)  # (play again's first look at the offer is made by then)
    assert host.locator("[data-testid=play-again]").is_hidden()
    assert host.locator("[data-testid=again-panel]").is_hidden()
    # Nor may the host remove or move the players the event seated (the lobby's tools).
    assert host.locator("[data-testid^=kick-]").count() == 0
    assert host.locator("[data-testid^=move-]").count() == 0

    # The club's page: the event's final table in its history, linking to the event.
    for page, size in ((phone, "390"), (laptop, "1366")):
        page.goto(f"{url}/c/{club}")
        entry = page.locator("[data-testid=club-history-event]")
        entry.wait_for()
        assert entry.count() == 1
        rows = entry.locator("tr")
        assert rows.count() == 3  # (a heading and two pairs)
        teams = {rows.nth(1).locator("td").nth(1).text_content(),
                 rows.nth(2).locator("td").nth(1).text_content()}  # fmt: skip
        # (Ann and Dan were drawn together: whoever the draw put first is named first.)
        assert teams in ({"Bob & Cat", f"{MARKUP} & Ann"}, {"Bob & Cat", f"Ann & {MARKUP}"})
        assert entry.locator("b").count() == 0
        SHOTS.whole(page, f"club-history-event-{size}")
    phone.locator(".club-history-event-name").click()
    phone.wait_for_url(f"**/e/{event['id']}")
    phone.wait_for_selector("[data-testid=ev-standings]")


@pytest.mark.parametrize(("width", "height"), [(390, 844), (844, 390), (1366, 657)])
def test_an_events_host_waits_in_the_lobby_for_the_players(
    new_page: Any, real_server: ThreadServer, width: int, height: int
) -> None:
    """With a long grace, the host of an event's table is offered no Start and no Fill: the
    lobby says the event starts it (the server refuses an early start too:
    tests/server/tournaments/test_lifecycle.py)."""
    url = real_server.url
    players = [Browser(url) for _ in range(4)]
    made = players[0].post("/api/clubs", {"name": "Thursday"}).json()
    for player in players[1:]:
        assert player.post("/api/clubs/join", {"invite": made["invite"]}).is_success
    body = {"name": "Late cup", "entry": "individuals", "rounds": 1, "grace_seconds": 600}
    event = players[0].post(f"/api/clubs/{made['id']}/events", body).json()
    for player in players:
        assert player.post(f"/api/events/{event['id']}/register").is_success
    assert players[0].post(f"/api/events/{event['id']}/start").is_success
    link = players[0].get(f"/api/events/{event['id']}").json()["schedule"][0]["tables"][0]
    code, secret = link["link"].removeprefix("/t/").split("#invite=")
    table = players[0].http.get(f"/api/tables/{code}", headers={"X-Invite": secret}).json()
    host_id = table["seats"][table["host_seat"]]["profile"]
    host = next(p for p in players if p.id == host_id)
    page = new_page("host", width, height, mobile=width < 900)
    page.context.add_cookies(
        [{"name": k, "value": v, "url": url} for k, v in host.http.cookies.items()]
    )
    page.goto(url + link["link"])
    page.locator("#lobby-note", has_text="event").wait_for()
    assert page.locator("[data-testid=start]").is_hidden()
    assert page.locator("#fill-bots").is_hidden()
    SHOTS.whole(page, f"event-lobby-host-{width}x{height}")
    after = players[0].http.get(f"/api/tables/{code}", headers={"X-Invite": secret}).json()
    assert after["status"] == "lobby"
