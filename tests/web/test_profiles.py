"""The profile in the browser (issue 24; docs/players.md, "In the browser"): a guest from
the first visit, claiming it, a second browser signed in with the one-time code, signing
out everywhere, a passkey through Chromium's virtual authenticator, My games, the profile
and leaderboard pages, each at 390x844 and 1366x657 with nothing cut off and no sideways
scrolling. Each page checked is photographed into test-artifacts/profiles/.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from .pages import Shots, open_ready

SHOTS = Shots("profiles")
SIZES = [(390, 844), (1366, 657)]
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _me(page: Any) -> dict[str, Any]:
    profile: dict[str, Any] = page.evaluate(
        "async () => (await (await fetch('/api/me')).json()).profile"
    )
    return profile


def _go(page: Any, testid: str) -> None:
    """Through the top bar's menu."""
    page.click("[data-testid=me-button]")
    page.click(f"[data-testid={testid}]")


def _get(url: str) -> Any:
    with _DIRECT.open(url, timeout=10) as answer:
        return json.loads(answer.read())


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_guest_claims_signs_in_elsewhere_with_the_code_and_signs_out_everywhere(
    server_url: str, new_page: Any, width: int, height: int
) -> None:
    size = f"{width}x{height}"
    page = new_page("first", width, height)
    open_ready(page, server_url)
    # A new visitor has a guest profile at once: no form, its avatar and name in the bar.
    guest = _me(page)
    assert not guest["claimed"]
    page.locator("[data-testid=me-button]").wait_for()
    assert page.get_attribute("[data-testid=me-button]", "title") == guest["name"]
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert cookies["fof_session"]["httpOnly"] and not cookies["fof_csrf"]["httpOnly"]
    SHOTS.whole(page, f"home-{size}")
    page.click("[data-testid=me-button]")
    assert page.inner_text("[data-testid=me-menu-name]") == guest["name"]
    SHOTS.whole(page, f"menu-{size}")
    page.click("[data-testid=menu-profile]")
    page.locator("[data-testid=profile-name]", has_text=guest["name"]).wait_for()
    assert page.inner_text("[data-testid=profile-provisional]").startswith("Provisional")
    SHOTS.whole(page, f"profile-guest-{size}")

    # Claim it: the same profile (its id) with a username.
    page.click("[data-testid=profile-account]")
    username = f"ann{width}.{int(time.time() * 1000) % 10**8}"
    page.fill("[data-testid=claim-username]", username)
    page.fill("[data-testid=claim-password]", "correct horse battery")
    page.click("[data-testid=claim-submit]")
    page.locator("[data-testid=password-form]").wait_for()
    assert page.locator("[data-testid=claim-form]").is_hidden()
    claimed = _me(page)
    assert claimed["id"] == guest["id"] and claimed["claimed"]
    assert claimed["username"] == username
    page.click("[data-testid=me-button]")
    assert page.inner_text("[data-testid=me-menu-status]") == f"Signed in as {username}"
    page.click("[data-testid=me-button]")

    # Another device: the code and its QR, five minutes.
    page.click("[data-testid=device-show]")
    page.locator("[data-testid=device-code-box]").wait_for()
    code = page.inner_text("[data-testid=device-code]")
    assert len(code) == 11 and code[5] == "-"
    assert page.locator("[data-testid=device-qr] svg").count() == 1
    countdown = page.inner_text("[data-testid=device-countdown]")
    assert countdown.startswith("Valid for 4:5") or countdown.startswith("Valid for 5:00")
    SHOTS.whole(page, f"account-claimed-{size}")

    other = new_page("second", width, height)
    open_ready(other, f"{server_url}/#me/account")
    other_guest = _me(other)
    assert other_guest["id"] != claimed["id"]
    other.fill("[data-testid=code-input]", code.lower().replace("-", " "))
    other.click("[data-testid=code-submit]")
    other.locator("[data-testid=profile-name]", has_text=claimed["name"]).wait_for()
    assert other.url.endswith("/#me")
    assert _me(other)["id"] == claimed["id"]
    assert other.get_attribute("[data-testid=me-button]", "title") == claimed["name"]

    # The first lists both browsers, itself marked.
    open_ready(page, f"{server_url}/#me/account")
    page.locator("[data-testid=device-item]").nth(1).wait_for()
    assert page.locator("[data-testid=device-item]").count() == 2
    assert page.locator("[data-testid=device-item] .badge").inner_text() == "this device"
    SHOTS.whole(page, f"account-devices-{size}")

    # Sign out everywhere (from the first): both browsers are guests again, new ones.
    page.click("[data-testid=signout-all]")
    page.wait_for_url(f"{server_url}/")
    page.locator("[data-testid=toast]", has_text="Signed out everywhere").wait_for()
    assert _me(page)["id"] not in (claimed["id"], guest["id"])
    open_ready(other, f"{server_url}/#me")
    assert _me(other)["id"] != claimed["id"]

    # ... and the password signs the second in again.
    _go(other, "menu-account")
    other.fill("[data-testid=signin-username]", username)
    other.fill("[data-testid=signin-password]", "correct horse battery")
    other.click("[data-testid=signin-submit]")
    other.locator("[data-testid=profile-name]", has_text=claimed["name"]).wait_for()
    assert _me(other)["id"] == claimed["id"]


def test_a_wrong_password_says_so_and_changes_nothing(server_url: str, new_page: Any) -> None:
    page = new_page("guest")
    open_ready(page, f"{server_url}/#me/account")
    before = _me(page)
    page.fill("[data-testid=signin-username]", "nobody-by-this-name")
    page.fill("[data-testid=signin-password]", "not the password")
    page.click("[data-testid=signin-submit]")
    page.locator("[data-testid=toast]", has_text="Wrong username or password.").wait_for()
    assert _me(page)["id"] == before["id"]
    page.fill("[data-testid=code-input]", "AAAAA-AAAAA")
    page.click("[data-testid=code-submit]")
    page.locator("[data-testid=toast]", has_text="That code is wrong").wait_for()
    assert _me(page)["id"] == before["id"]


def test_every_change_carries_the_csrf_header(server_url: str, new_page: Any) -> None:
    """The page's own PATCH passes; the same request without the header is refused."""
    page = new_page("guest")
    open_ready(page, f"{server_url}/#me/account")
    page.locator("[data-testid=edit-name]").wait_for()
    sent: list[str | None] = []
    page.on(
        "request",
        lambda r: sent.append(r.headers.get("x-csrf-token")) if r.method == "PATCH" else None,
    )
    page.fill("[data-testid=edit-name]", "Marguerite")
    page.click("[data-testid=avatar-owl]")
    page.click("[data-testid=edit-save]")
    page.wait_for_function("document.getElementById('me-button').title === 'Marguerite'")
    csrf = {c["name"]: c["value"] for c in page.context.cookies()}["fof_csrf"]
    assert sent == [csrf]
    assert _me(page)["avatar"] == "owl"
    status = page.evaluate(
        """async () => (await fetch('/api/me', {method: 'PATCH',
            headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({name: 'Someone else'})})).status"""
    )
    assert status == 403
    assert _me(page)["name"] == "Marguerite"


def test_a_name_is_shown_as_text_never_markup(server_url: str, new_page: Any) -> None:
    page = new_page("guest", 1366, 657)
    open_ready(page, f"{server_url}/#me/account")
    page.locator("[data-testid=edit-name]").wait_for()
    page.evaluate("() => { window.f = () => { window.pwned = 1; }; }")
    name = "<img src=x onerror=f()>"  # (24 characters at most)
    page.fill("[data-testid=edit-name]", name)
    page.click("[data-testid=edit-save]")
    page.locator("[data-testid=me-name]", has_text="<img").wait_for()
    assert page.inner_text("[data-testid=me-name]") == name
    _go(page, "menu-profile")
    page.locator("[data-testid=profile-name]", has_text="<img").wait_for()
    assert page.inner_text("[data-testid=profile-name]") == name
    assert page.locator("header img, #screen-profile img, #me-menu img").count() == 0
    assert page.evaluate("window.pwned") is None


def _authenticator(page: Any) -> Any:
    """A virtual platform authenticator with user verification (DevTools' WebAuthn)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable", {"enableUI": False})
    cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    return cdp


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_passkey_is_registered_and_signs_in(
    server_url: str, new_page: Any, width: int, height: int
) -> None:
    # A relying party is a host name: "localhost", a secure context over plain HTTP.
    url = server_url.replace("127.0.0.1", "localhost")
    page = new_page("passkey", width, height)
    open_ready(page, f"{url}/#me/account")
    _authenticator(page)
    owner = _me(page)
    page.click("[data-testid=passkey-add]")
    page.locator("[data-testid=toast]", has_text="Passkey added").wait_for()
    # Another browser session (the cookies gone): a new guest, then the passkey.
    page.context.clear_cookies()
    open_ready(page, f"{url}/#me/account")
    assert _me(page)["id"] != owner["id"]
    page.click("[data-testid=passkey-signin]")
    page.locator("[data-testid=profile-name]", has_text=owner["name"]).wait_for()
    assert _me(page)["id"] == owner["id"]


def test_passkeys_are_not_offered_where_the_browser_cannot_use_them(
    server_url: str, new_page: Any
) -> None:
    """A page over plain HTTP from an address other than localhost is no secure context."""
    page = new_page("guest")
    # 127.0.0.1 is a secure context for Chromium too: only the note's logic is checked.
    open_ready(page, f"{server_url}/#me/account")
    secure = page.evaluate("window.isSecureContext")
    assert page.locator("[data-testid=passkey-add]").is_visible() == secure
    assert page.locator("[data-testid=passkey-note]").is_visible() == (not secure)


def _finished_match(page: Any, server_url: str, rated: bool = False) -> str:
    """A 2-player match of this page's profile against a beginner bot, played to its end by
    the table's bot: the host lets the 50 ms turn timer run out. Created as the page does
    (its session cookie and CSRF header: the seat carries the profile)."""
    created = page.evaluate(
        """async (rated) => {
            const csrf = decodeURIComponent(document.cookie.match(/fof_csrf=([^;]+)/)[1]);
            const response = await fetch('/api/tables', {method: 'POST',
                headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf},
                body: JSON.stringify({name: 'Ann', players: 2, turn_seconds: 0.05,
                    hook_mode: 'fast', hook_seconds: 0.05, bot: 'beginner', rated,
                    round_pause_seconds: 0})});
            const body = await response.json();
            localStorage.setItem(`414.table.${body.code}`,
                JSON.stringify({seat: body.seat, token: body.token}));
            return body;
        }""",
        rated,
    )
    code = str(created["code"])
    with connect(server_url.replace("http", "ws", 1) + f"/ws/{code}") as socket:
        socket.send(json.dumps({"type": "hello", "protocol": 3, "token": created["token"]}))
        socket.send(json.dumps({"type": "fill_bots", "id": "bots"}))
        socket.send(json.dumps({"type": "start", "id": "go"}))
        while '"go"' not in str(socket.recv(timeout=10)):
            pass
    deadline = time.monotonic() + 90
    while _get(f"{server_url}/api/tables/{code}")["status"] != "finished":
        assert time.monotonic() < deadline, "the match did not end"
        time.sleep(0.2)
    return code


def _history_entry(code: str, me: dict[str, Any]) -> dict[str, Any]:
    """A rated 4-seat match as GET /api/me/games answers it (players/values.py)."""
    return {
        "code": code,
        "match": 1,
        "finished_at": 1_764_000_000_000,
        "rated": True,
        "rounds": 7,
        "seat": 0,
        "won": True,
        "place": 1,
        "rating_change": {"mu": 1.9, "ordinal": 2.4, "after": {"mu": 26.9, "sigma": 7.6}},
        "accuracy": 0.75,
        "levels": {"0": "A", "1": "9"},
        "seats": [
            {"seat": 0, "team": 0, "name": me["name"], "rank": 1, "place": 1,
             "player": me["id"], "bot_level": None, "former": False},
            {"seat": 1, "team": 1, "name": "<b>Bold</b>", "rank": 2, "place": 2,
             "player": "p-other", "bot_level": None, "former": False},
            {"seat": 2, "team": 0, "name": "Bot 3", "rank": 1, "place": 3,
             "player": None, "bot_level": "expert", "former": False},
            {"seat": 3, "team": 1, "name": "a former player", "rank": 2, "place": 4,
             "player": None, "bot_level": None, "former": True},
        ],
    }  # fmt: skip


def _wait_recorded(page: Any, n: int) -> list[dict[str, Any]]:
    """My games once it holds ``n`` matches (a finished match is recorded just after)."""
    deadline = time.monotonic() + 15
    while True:
        games: list[dict[str, Any]] = page.evaluate(
            "async () => (await (await fetch('/api/me/games')).json()).games"
        )
        if len(games) >= n:
            return games
        assert time.monotonic() < deadline, f"{len(games)} of {n} matches recorded"
        page.wait_for_timeout(200)


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_my_games_lists_a_finished_rated_match_its_rating_change_and_replay(
    server_url: str, new_page: Any, width: int, height: int
) -> None:
    size = f"{width}x{height}"
    page = new_page("player", width, height)
    open_ready(page, f"{server_url}/#games")
    page.locator("[data-testid=games-empty]").wait_for()
    SHOTS.whole(page, f"games-empty-{size}")
    code = _finished_match(page, server_url, rated=True)
    recorded = _wait_recorded(page, 1)[0]
    assert recorded["code"] == code and recorded["rated"]
    open_ready(page, f"{server_url}/#games")
    item = page.locator("[data-testid=game-item]")
    item.wait_for()
    text = item.inner_text()
    assert ("Won" if recorded["won"] else "Lost") in text
    assert "Bot 2 (Beginner)" in text and code in text
    change = recorded["rating_change"]["ordinal"]
    shown = item.locator("[data-testid=game-change]").inner_text()
    assert shown == f"{'+' if change > 0 else '−'}{abs(change):.1f}"
    SHOTS.whole(page, f"games-{size}")
    # Its replay (and the analysis there), and back.
    page.click("[data-testid=game-replay]")
    page.locator("[data-testid=replay-step]").wait_for()
    assert page.evaluate("document.body.dataset.screen") == "replay"
    assert page.locator("[data-testid=replay-analysis]").count() == 1
    page.click("[data-testid=replay-close]")
    page.locator("[data-testid=screen-games]").wait_for()
    # The profile: its rating after the match, provisional, a point on its chart.
    _go(page, "menu-profile")
    me = _me(page)
    page.locator(
        "[data-testid=profile-ordinal]", has_text=f"{me['rating']['ordinal']:.1f}"
    ).wait_for()
    assert page.inner_text("[data-testid=profile-provisional]") == (
        "Provisional (rated matches: 1)"
    )
    page.locator("[data-testid=rating-chart] svg polyline").wait_for()
    assert page.inner_text("[data-stat=stats_matches]") == "1"
    SHOTS.whole(page, f"profile-rated-{size}")
    # Provisional: on no global board yet, and said so; among the people played with (a
    # bot is nobody's profile) it is alone, first.
    _go(page, "menu-leaderboard")
    page.locator("[data-testid=board-rank]", has_text="not ranked yet").wait_for()
    assert all(row["player"] != me["id"] for row in _get(f"{server_url}/api/leaderboard")["rows"])
    page.click("[data-testid=board-played]")
    page.locator("[data-testid=board-row].mine").wait_for()
    assert page.inner_text("[data-testid=board-rank]") == "Your rank: 1"


def test_my_games_draws_partners_opponents_and_the_next_page(
    server_url: str, new_page: Any
) -> None:
    """From a history shaped as the API's (4 seats, a former player, a name with markup):
    the real match above as its entry, so that its replay opens."""
    page = new_page("player")
    open_ready(page, server_url)
    me = _me(page)
    code = _finished_match(page, server_url)
    entry = _history_entry(code, me)
    pages = {
        None: {"games": [entry], "next": "cursor-1"},
        "cursor-1": {"games": [{**entry, "won": False, "place": 4, "rated": False,
                                "rating_change": None}], "next": None},
    }  # fmt: skip

    def history(route: Any) -> None:
        after = route.request.url.partition("after=")[2] or None
        route.fulfill(json=pages[after])

    page.route("**/api/me/games*", history)
    open_ready(page, f"{server_url}/#games")
    item = page.locator("[data-testid=game-item]").first
    item.wait_for()
    text = item.inner_text()
    assert "Won" in text and "Place 1" in text and "rated" in text
    assert item.locator("[data-testid=game-change]").inner_text() == "+2.4"
    assert "With\nBot 3 (Expert)" in text
    assert "Against\n<b>Bold</b>, a former player" in text
    assert item.locator("b").count() == 0
    assert item.locator("a.player-name").count() == 1  # the live profile only
    page.click("[data-testid=games-more]")
    page.locator("[data-testid=game-item]").nth(1).wait_for()
    assert "Lost" in page.locator("[data-testid=game-item]").nth(1).inner_text()
    assert page.locator("[data-testid=games-more]").is_hidden()
    SHOTS.whole(page, "games-drawn-390x844")
    page.locator("[data-testid=game-replay]").first.click()
    page.locator("[data-testid=replay-step]").wait_for()


def _public_player(me: dict[str, Any]) -> dict[str, Any]:
    stats = {
        "matches": 12, "wins": 7, "win_rate": 7 / 12, "rated_matches": 11, "rounds": 90,
        "average_place": 2.25,
        "partners": [{"player": "p-1", "name": "Bartholomew Longname-Smith", "matches": 5,
                      "wins": 3, "win_rate": 0.6}],
        "opponents": [{"player": "p-2", "name": "<i>Ivy</i>", "matches": 7, "wins": 4,
                       "win_rate": 4 / 7}],
    }  # fmt: skip
    rating = {"mu": 27.5, "sigma": 3.1, "ordinal": 18.2, "matches": 11, "provisional": False}
    return {**me, "rating": rating, "rank": 3, "stats": stats}


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_profile_pages_and_the_leaderboard_are_whole(
    server_url: str, new_page: Any, width: int, height: int
) -> None:
    """Drawn from answers shaped as the API's (no server has ranked players in a test's
    time): the own profile with its chart, someone's public page, both leaderboards."""
    size = f"{width}x{height}"
    page = new_page("player", width, height)
    open_ready(page, server_url)
    me = _me(page)
    points = [
        {"at": 1_764_000_000_000 + n * 86_400_000, "mu": 25 + n, "sigma": 8 - n, "ordinal": 3 * n}
        for n in range(1, 4)
    ]
    page.route("**/api/players/*/ratings", lambda route: route.fulfill(json={"ratings": points}))
    page.route(
        f"**/api/players/{me['id']}",
        lambda route: route.fulfill(json={"player": _public_player(me)}),
    )
    page.route(
        "**/api/players/p-1",
        lambda route: route.fulfill(
            json={
                "player": {**_public_player(me), "id": "p-1", "name": "Bartholomew Longname-Smith"}
            }
        ),
    )
    rows = [
        {"rank": n, "player": f"p-{n}", "name": f"Player number {n}", "avatar": "koi",
         "rating": {"mu": 30 - n, "sigma": 2, "ordinal": 24 - n, "matches": 20,
                    "provisional": False}}
        for n in range(1, 6)
    ]  # fmt: skip
    rows[2] = {**rows[2], "player": me["id"], "name": me["name"]}
    page.route(
        "**/api/leaderboard*", lambda route: route.fulfill(json={"rows": rows, "your_rank": 3})
    )
    _go(page, "menu-profile")
    page.locator("[data-testid=profile-ordinal]", has_text="18.2").wait_for()
    assert page.locator("[data-testid=profile-provisional]").is_hidden()
    assert page.inner_text("[data-testid=profile-rank]") == "Rank 3"
    assert page.inner_text("[data-testid=profile-uncertainty]") == "skill 27.5 ± 3.1"
    chart = page.locator("[data-testid=rating-chart] svg polyline")
    chart.wait_for()
    assert len(chart.get_attribute("points").split()) == 3
    assert page.inner_text("[data-stat=stats_win_rate]") == "58%"
    assert page.locator("[data-testid=profile-opponents] i").count() == 0
    SHOTS.whole(page, f"profile-{size}")
    # Someone else's page: no account, their chart.
    page.click("[data-testid=profile-partners] a.player-name")
    page.locator("[data-testid=profile-name]", has_text="Bartholomew").wait_for()
    assert page.url.endswith("/#player/p-1")
    assert page.locator("[data-testid=profile-account]").is_hidden()
    page.locator("[data-testid=rating-chart] svg polyline").wait_for()
    SHOTS.whole(page, f"player-{size}")
    _go(page, "menu-leaderboard")
    page.locator("[data-testid=board-row]").first.wait_for()
    assert page.inner_text("[data-testid=board-rank]") == "Your rank: 3"
    assert "mine" in (page.locator("[data-testid=board-row]").nth(2).get_attribute("class") or "")
    SHOTS.whole(page, f"leaderboard-{size}")
    page.click("[data-testid=board-played]")
    page.wait_for_function(
        "document.querySelector('[data-testid=board-played]').ariaPressed === 'true'"
    )
    assert page.inner_text("[data-testid=board-rank]") == "Your rank: 3"


def test_the_account_screen_is_whole_and_the_profile_keeps_the_language(
    server_url: str, new_page: Any
) -> None:
    page = new_page("guest", 390, 844)
    open_ready(page, f"{server_url}/#me/account")
    page.locator("[data-testid=edit-name]").wait_for()
    SHOTS.whole(page, "account-guest-390x844")
    page.select_option("[data-testid=lang-select]", "de")
    page.wait_for_function("document.documentElement.lang === 'de'")
    deadline = time.monotonic() + 5
    while _me(page)["language"] != "de":
        assert time.monotonic() < deadline, "the profile did not keep the language"
        page.wait_for_timeout(100)
    assert page.inner_text("[data-testid=signin-submit]") == "Anmelden"
    SHOTS.whole(page, "account-guest-de-390x844")
    page.set_viewport_size({"width": 1366, "height": 657})
    SHOTS.whole(page, "account-guest-de-1366x657")
    # The longest words of the other languages fit too, on a phone.
    page.set_viewport_size({"width": 390, "height": 844})
    for lang in ("it", "hi", "zh"):
        page.select_option("[data-testid=lang-select]", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        for route in ("#me/account", "#me", "#games", "#leaderboard"):
            open_ready(page, f"{server_url}/{route}")
            SHOTS.whole(page, f"{route.replace('#', '').replace('/', '-')}-{lang}-390x844")


def test_a_signed_in_player_gets_their_seat_back_on_another_device(
    server_url: str, new_page: Any
) -> None:
    """No handoff link: the second device, signed in to the same profile with the code,
    opens the table and plays the seat (the first is told its token is gone)."""
    first = new_page("laptop", 1366, 657)
    open_ready(first, server_url)
    first.fill("[data-testid=name-input]", "Ann")
    first.click("[data-testid=create-table]")
    first.wait_for_url("**/t/*")
    code = first.url.rsplit("/", 1)[1]
    first.locator("[data-testid=fill-bots]").wait_for()
    owner = _me(first)
    seats = _get(f"{server_url}/api/tables/{code}")["seats"]
    assert seats[0]["profile"] == owner["id"]
    _go(first, "menu-account")
    first.click("[data-testid=device-show]")
    first.locator("[data-testid=device-code-box]").wait_for()
    device_code = first.inner_text("[data-testid=device-code]")

    phone = new_page("phone", 390, 844)
    open_ready(phone, f"{server_url}/#me/account")
    phone.fill("[data-testid=code-input]", device_code)
    phone.click("[data-testid=code-submit]")
    phone.locator("[data-testid=profile-name]", has_text=owner["name"]).wait_for()
    open_ready(phone, f"{server_url}/t/{code}")
    # The host's own tools: this device holds seat 0 now.
    phone.locator("[data-testid=fill-bots]").wait_for()
    assert phone.evaluate(f"JSON.parse(localStorage.getItem('414.table.{code}')).seat") == 0
    # The laptop signs the phone out (its one other device).
    open_ready(first, f"{server_url}/#me/account")
    first.locator("[data-testid=device-signout]").click()
    first.wait_for_function("document.querySelectorAll('[data-testid=device-item]').length === 1")
    assert _me(phone)["id"] != owner["id"]
    assert _me(first)["id"] == owner["id"]


def test_a_rated_table_is_created_with_the_standard_rules(server_url: str, new_page: Any) -> None:
    page = new_page("host", 1366, 657)
    open_ready(page, server_url)
    page.fill("[data-testid=name-input]", "Ann")
    page.fill("[data-testid=opt-players]", "4")
    page.uncheck("[data-testid=opt-tribute]")
    page.check("[data-testid=opt-rated]")
    for rule in ("opt-decks", "opt-hooking", "opt-tribute", "opt-ladder"):
        assert page.locator(f"[data-testid={rule}]").is_disabled(), rule
    page.click("[data-testid=create-table]")
    page.wait_for_url("**/t/*")
    code = page.url.rsplit("/", 1)[1]
    options = _get(f"{server_url}/api/tables/{code}")["options"]
    assert options["rated"] and options["tribute"] and options["hooking"]
    page.locator("#topbar-info", has_text="rated").wait_for()


def test_the_profile_pages_have_no_serious_accessibility_problems(
    server_url: str, new_page: Any, axe_problems: Any
) -> None:
    page = new_page("guest", 1366, 657)
    open_ready(page, server_url)
    _finished_match(page, server_url)
    _wait_recorded(page, 1)
    problems = {}
    for route, ready in (
        ("#me", "[data-testid=profile-name]:not(:empty)"),
        ("#me/account", "[data-testid=device-item]"),
        ("#games", "[data-testid=game-item]"),
        ("#leaderboard", "[data-testid=board-all][aria-pressed=true]"),
    ):
        open_ready(page, f"{server_url}/{route}")
        page.locator(ready).first.wait_for()
        page.wait_for_timeout(200)
        problems[route] = axe_problems(page)
    page.click("[data-testid=me-button]")
    problems["menu"] = axe_problems(page)
    assert not any(problems.values()), problems


def test_my_data_downloads_and_a_deleted_profile_is_gone(server_url: str, new_page: Any) -> None:
    page = new_page("guest")
    open_ready(page, f"{server_url}/#me/account")
    me = _me(page)
    with page.expect_download() as download:
        page.click("[data-testid=export]")
    data = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert data["profile"]["id"] == me["id"]
    # Deleting asks first; "Cancel" keeps the profile.
    page.click("[data-testid=delete-me]")
    page.click("[data-testid=delete-no]")
    assert page.locator("[data-testid=delete-confirm]").is_hidden()
    assert _me(page)["id"] == me["id"]
    page.click("[data-testid=delete-me]")
    page.click("[data-testid=delete-yes]")
    page.wait_for_url(f"{server_url}/")
    page.locator("[data-testid=toast]", has_text="Profile deleted.").wait_for()
    assert _me(page)["id"] != me["id"]
    # Its public page is no more: said, and nothing of another page left on it.
    open_ready(page, f"{server_url}/#me")
    page.locator("[data-testid=profile-name]:not(:empty)").wait_for()
    page.goto(f"{server_url}/#player/{me['id']}")
    page.locator("[data-testid=toast]", has_text="No such player.").wait_for()
    assert page.inner_text("[data-testid=profile-name]") == ""


def _claim(page: Any, password: str) -> str:
    """Claim the page's guest profile through the account page; its username."""
    username = f"cleo{int(time.time() * 1000) % 10**9}"
    open_ready(page, f"{page.url.split('/#')[0].rstrip('/')}/#me/account")
    page.fill("[data-testid=claim-username]", username)
    page.fill("[data-testid=claim-password]", password)
    page.click("[data-testid=claim-submit]")
    page.locator("[data-testid=password-form]").wait_for()
    return username


def test_a_password_change_signs_out_the_other_devices_and_sign_out_ends_this_one(
    server_url: str, new_page: Any
) -> None:
    page = new_page("laptop", 1366, 657)
    open_ready(page, server_url)
    username = _claim(page, "first password")
    owner = _me(page)
    other = new_page("phone")
    open_ready(other, f"{server_url}/#me/account")
    other.fill("[data-testid=signin-username]", username)
    other.fill("[data-testid=signin-password]", "first password")
    other.click("[data-testid=signin-submit]")
    other.locator("[data-testid=profile-name]", has_text=owner["name"]).wait_for()
    # A wrong current password changes nothing.
    page.fill("[data-testid=password-old]", "not it at all")
    page.fill("[data-testid=password-new]", "second password")
    page.click("[data-testid=password-submit]")
    page.locator("[data-testid=toast]", has_text="Wrong username or password.").wait_for()
    assert _me(other)["id"] == owner["id"]
    page.fill("[data-testid=password-old]", "first password")
    page.fill("[data-testid=password-new]", "second password")
    page.click("[data-testid=password-submit]")
    page.locator("[data-testid=toast]", has_text="Password changed").wait_for()
    assert _me(page)["id"] == owner["id"]  # this browser's new session
    assert _me(other)["id"] != owner["id"]  # the phone's ended
    # Sign out: this browser only, a new guest; the new password signs in.
    page.click("[data-testid=signout]")
    page.wait_for_url(f"{server_url}/")
    page.locator("[data-testid=toast]", has_text="Signed out.").wait_for()
    assert _me(page)["id"] != owner["id"]
    open_ready(page, f"{server_url}/#me/account")
    page.fill("[data-testid=signin-username]", username)
    page.fill("[data-testid=signin-password]", "second password")
    page.click("[data-testid=signin-submit]")
    page.locator("[data-testid=profile-name]", has_text=owner["name"]).wait_for()


def test_the_qr_code_is_drawn_as_shapes_only(server_url: str, new_page: Any) -> None:
    """Should the device code's answer ever carry a script or a handler, none runs."""
    page = new_page("guest")
    open_ready(page, f"{server_url}/#me/account")
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20" onload="window.ran=1">'
        '<script>window.ran=2</script><rect width="10" height="10" onclick="window.ran=3"/>'
        '<a href="javascript:window.ran=4"><rect x="10" width="10" height="10"/></a></svg>'
    )
    page.route(
        "**/api/me/device-code",
        lambda route: route.fulfill(
            status=201,
            json={"code": "ABCDE-FGHJK", "expires_at": int(time.time() * 1000) + 300_000,
                  "qr_svg": svg},
        ),
    )  # fmt: skip
    page.click("[data-testid=device-show]")
    page.locator("[data-testid=device-qr] svg rect").first.wait_for()
    page.click("[data-testid=device-qr] svg rect >> nth=0", force=True)
    page.wait_for_timeout(200)
    assert page.evaluate("window.ran") is None
    shown = page.inner_html("[data-testid=device-qr]")
    assert "script" not in shown and "onload" not in shown and "javascript" not in shown
    assert page.get_attribute("[data-testid=device-qr] svg", "viewBox") == "0 0 20 20"


def test_a_browser_signed_out_elsewhere_becomes_a_guest_at_its_next_change(
    server_url: str, new_page: Any
) -> None:
    page = new_page("laptop", 1366, 657)
    open_ready(page, server_url)
    _claim(page, "first password")
    owner = _me(page)
    page.click("[data-testid=device-show]")
    page.locator("[data-testid=device-code-box]").wait_for()
    other = new_page("phone")
    open_ready(other, f"{server_url}/#me/account")
    other.fill("[data-testid=code-input]", page.inner_text("[data-testid=device-code]"))
    other.click("[data-testid=code-submit]")
    other.locator("[data-testid=profile-name]", has_text=owner["name"]).wait_for()
    other.goto(f"{server_url}/#me/account")
    other.locator("[data-testid=signout-all]").wait_for()
    # The laptop signs out everywhere; the phone, still showing the profile, saves a name.
    page.click("[data-testid=signout-all]")
    page.wait_for_url(f"{server_url}/")
    other.fill("[data-testid=edit-name]", "Renamed")
    other.click("[data-testid=edit-save]")
    other.locator("[data-testid=toast]", has_text="new guest profile").wait_for()
    other.wait_for_function(
        "(name) => document.getElementById('me-button').title !== name", arg=owner["name"]
    )
    assert other.locator("[data-testid=claim-form]").is_visible()
    assert _me(other)["id"] != owner["id"]


def test_a_claimed_profiles_name_is_the_seat_name_until_another_is_typed(
    server_url: str, new_page: Any
) -> None:
    """The home page's and a lobby's name field start with a claimed profile's display name
    (its player chose it); a guest's "Player 1234" is none, and a name typed wins."""
    page = new_page("claimed", 390, 844)
    open_ready(page, server_url)
    assert page.input_value("[data-testid=name-input]") == ""  # (a guest's: none)
    answer = page.evaluate(
        """async () => {
          const csrf = document.cookie.split('; ').find((c) => c.startsWith('fof_csrf=')).slice(9);
          const headers = {'Content-Type': 'application/json', 'X-CSRF-Token': csrf};
          await fetch('/api/me', {method: 'PATCH', headers, body: JSON.stringify({name: 'Ann'})});
          const claim = {username: `ann.seat${Date.now() % 1e8}`,
                         password: 'correct horse battery'};
          return (await fetch('/api/me/claim', {method: 'POST', headers,
                                                body: JSON.stringify(claim)})).status;
        }"""
    )
    assert answer == 200
    open_ready(page, server_url)
    page.wait_for_function("document.getElementById('name-input').value === 'Ann'")
    # A table made by someone else: its lobby offers the seat under her name too.
    other = new_page("host", 1366, 657)
    open_ready(other, server_url)
    made = other.evaluate(
        """async () => {
          const csrf = document.cookie.split('; ').find((c) => c.startsWith('fof_csrf=')).slice(9);
          const answer = await fetch('/api/tables', {method: 'POST', body: JSON.stringify(
            {name: 'Host', players: 4}), headers: {'Content-Type': 'application/json',
                                                     'X-CSRF-Token': csrf}});
          return (await answer.json()).code;
        }"""
    )
    page.goto(f"{server_url}/t/{made}")
    page.locator("#lobby:not([hidden])").wait_for()
    page.wait_for_function("document.getElementById('lobby-name').value === 'Ann'")
    # A name typed is the one kept from then on.
    open_ready(page, server_url)
    page.fill("[data-testid=name-input]", "Annie")
    page.locator("[data-testid=create-table]").click()
    page.locator("#lobby:not([hidden])").wait_for()
    open_ready(page, server_url)
    assert page.input_value("[data-testid=name-input]") == "Annie"
