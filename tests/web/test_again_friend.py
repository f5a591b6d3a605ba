"""Play again's waiting friend in the real browser (docs/quickmatch.md, issue 25): Ann's
friend Dee waits in quick match; Ann and Bob's match ends, Ann offers a new table, Bob
declines; Dee's page, still on its waiting screen, lands in Bob's seat at the new table by
itself, and Ann's beside her. At 390x844 and 1366x657, photographed into
test-artifacts/quickmatch/."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from .conftest import SERVER_OPTIONS, serve
from .pages import open_ready
from .test_friends import _call
from .test_quickmatch import CUT, _get, _join, _shot


@pytest.fixture
def patient_server(tmp_path: Path) -> Iterator[str]:
    """A server whose quick-match queue waits long before bots: Dee keeps waiting."""
    with serve(tmp_path, (*SERVER_OPTIONS, "--quickmatch-bot-seconds", "600")) as url:
        yield url


def _named(page: Any, url: str, name: str) -> str:
    """The page's profile (a guest's, made at its first visit), named ``name``: its id."""
    open_ready(page, url)
    assert _call(page, "PATCH", "/api/me", {"name": name})["status"] == 200
    return str(_call(page, "GET", "/api/me")["body"]["profile"]["id"])


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1366, 657)])
def test_a_friend_waiting_in_quick_match_lands_in_the_declined_seat(
    patient_server: str, new_page: Any, width: int, height: int
) -> None:
    url, size = patient_server, f"{width}x{height}"
    ann, bob, dee = (new_page(n, width, height) for n in ("ann", "bob", "dee"))
    ann_id, dee_id = _named(ann, url, "Ann"), _named(dee, url, "Dee")
    _named(bob, url, "Bob")
    # Ann and Dee became friends at a table they sat at together.
    met = _call(ann, "POST", "/api/tables", {"name": "Ann", "players": 2})["body"]["code"]
    joined = _call(dee, "POST", f"/api/tables/{met}/join", {"name": "Dee", "seat": 1})
    assert joined["status"] == 200
    asked = _call(ann, "POST", "/api/friends/requests", {"id": dee_id, "table": met})
    assert asked["status"] == 201
    assert _call(dee, "POST", f"/api/friends/requests/{ann_id}/accept")["status"] == 200

    # Ann (signed in: her page's session) and Bob play a match their 50 ms turn timers hand
    # to the table's bot.
    created = _call(
        ann,
        "POST",
        "/api/tables",
        {"name": "Ann", "players": 2, "turn_seconds": 0.05, "hook_mode": "fast",
         "hook_seconds": 0.05, "bot": "greedy", "round_pause_seconds": 0},
    )["body"]  # fmt: skip
    ann.evaluate(  # (the host's seat, kept where the app keeps it)
        "([code, seat, token]) => localStorage.setItem(`414.table.${code}`,"
        " JSON.stringify({seat, token}))",
        [created["code"], created["seat"], created["token"]],
    )
    code = created["code"]
    _join(bob, url, code, "Bob", 1)
    with connect(url.replace("http", "ws", 1) + f"/ws/{code}") as socket:
        socket.send(json.dumps({"type": "hello", "protocol": 3, "token": created["token"]}))
        socket.send(json.dumps({"type": "start", "id": "go"}))
        while '"go"' not in str(socket.recv(timeout=10)):
            pass

    # Meanwhile Dee waits in quick match.
    open_ready(dee, url)
    dee.click("[data-testid=quickmatch-start]")
    dee.locator("[data-testid=quickmatch-wait]").wait_for()
    deadline = time.monotonic() + 180
    while _get(f"{url}/api/tables/{code}")["status"] != "finished":
        assert time.monotonic() < deadline, "the match did not end"
        time.sleep(0.2)
    assert dee.evaluate(CUT, "#quickmatch-wait") == []
    _shot(dee, f"friend-waiting-{size}")

    # Ann and Bob come back to their table, over (a page that watched the whole match at 50 ms
    # turns would draw its hundreds of updates for 20 s after its end, more on a loaded
    # machine: tests/web/test_quickmatch.py watches one live); the results are shown.
    for page in (ann, bob):
        page.goto(f"{url}/t/{code}")
        page.locator("[data-testid=results]").wait_for()

    # Ann offers the same partners; Bob declines.
    ann.locator("[data-testid=again-offer]").wait_for()
    ann.click("[data-testid=again-offer]")
    bob.locator("[data-testid=again-decline]").wait_for(timeout=60_000)
    bob.click("[data-testid=again-decline]")

    # Dee's page goes to the new table by itself, in Bob's seat; Ann's to hers.
    fresh = re.compile(r"/t/(?!" + code + r")[A-Z0-9]+$")
    dee.wait_for_url(fresh, timeout=60_000)
    ann.wait_for_url(fresh, timeout=60_000)
    new_code = dee.url.rsplit("/", 1)[1]
    assert ann.url.rsplit("/", 1)[1] == new_code
    table = _get(f"{url}/api/tables/{new_code}")
    assert [(s["kind"], s["name"]) for s in table["seats"]] == [("human", "Ann"), ("human", "Dee")]
    saved = dee.evaluate(f"JSON.parse(localStorage.getItem('414.table.{new_code}'))")
    assert saved["seat"] == 1
    dee.locator("#game:not([hidden])").wait_for()
    _shot(dee, f"friend-seated-{size}")
    assert dee.locator("[data-testid=quickmatch-wait]").is_hidden()
    assert dee.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    # The queue no longer holds her; her seat was hers alone (Bob's page stays behind, and
    # learns a friend of a player took his seat).
    status = _call(dee, "GET", "/api/quickmatch")["body"]
    assert status["state"] == "seated" and status["code"] == new_code
    assert fresh.search(bob.url) is None
    replaced = "declined (a friend of a player plays)"
    bob.locator("[data-testid=again-people]", has_text=replaced).wait_for()
    _shot(bob, f"friend-replaced-{size}")
    # Ann's invite (told live) leads to the seat her page holds already: seen, not shown.
    dee.locator("[data-testid=friend-invite]").wait_for(state="hidden")
    deadline = time.monotonic() + 10
    while _call(dee, "GET", "/api/friends/invites")["body"]["invites"]:
        assert time.monotonic() < deadline, "the invite was not seen"
        time.sleep(0.2)
    # Had her page been closed, the notice's link opens the table without its seat: the
    # page takes back the one her profile holds there (as a signed-in player's new device).
    dee.evaluate(f"localStorage.removeItem('414.table.{new_code}')")
    dee.goto(f"{url}/t/{new_code}")
    dee.wait_for_function(f"localStorage.getItem('414.table.{new_code}') !== null")
    back = dee.evaluate(f"JSON.parse(localStorage.getItem('414.table.{new_code}'))")
    assert back["seat"] == 1 and dee.url == f"{url}/t/{new_code}"
