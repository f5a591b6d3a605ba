"""Quick match and Play again in the real browser (docs/quickmatch.md): the home page's
button, the waiting screen (time waited, when bots come, cancel), a table filled by bots;
and at a match's end, the host offering a new table with rotated partners, the other
player accepting, both landing at the new table. Screens are photographed at 390x844 and
1366x657 into test-artifacts/quickmatch/."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from .conftest import SERVER_OPTIONS, serve
from .pages import Shots, create_table

SHOTS = Shots("quickmatch")
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))

#: Whatever of a shown dialog spills past the window or is cut inside itself.
CUT = """
(selector) => {
  const root = document.querySelector(selector);
  const problems = [];
  if (document.scrollingElement.scrollWidth > innerWidth + 0.5) problems.push('scrolls sideways');
  for (const node of [root, ...root.querySelectorAll('*')]) {
    if (!node.getClientRects().length) continue;
    const r = node.getBoundingClientRect();
    const name = node.dataset.testid || node.id || node.className || node.tagName;
    if (r.left < -0.5 || r.right > innerWidth + 0.5) problems.push(`${name} outside the window`);
    const cut = node.matches('button') && node.scrollWidth > node.clientWidth + 1;
    if (cut) problems.push(`${name} cut`);
  }
  return problems;
}
"""


def _get(url: str) -> Any:
    with _DIRECT.open(url, timeout=10) as answer:
        return json.loads(answer.read())


def _shot(page: Any, name: str) -> None:
    page.wait_for_timeout(150)
    SHOTS.photograph(page, name, full_page=False)


@pytest.fixture
def quick_server(tmp_path: Path) -> Iterator[str]:
    """A server whose queue fills with bots after 3 s."""
    with serve(tmp_path, (*SERVER_OPTIONS, "--quickmatch-bot-seconds", "3")) as url:
        yield url


@pytest.mark.parametrize("size", [(390, 844), (1366, 657)])
def test_quick_match_waits_then_bots_fill_the_table(
    quick_server: str, new_page: Any, size: tuple[int, int], axe_problems: Any
) -> None:
    width, height = size
    # Cancelling: the waiting screen goes, the queue no longer holds this profile.
    quitter = new_page("quitter", width, height)
    quitter.goto(quick_server)
    quitter.locator("body[data-ready=true]").wait_for()
    quitter.click("[data-testid=quickmatch-start]")
    quitter.locator("[data-testid=quickmatch-wait]").wait_for()
    quitter.click("[data-testid=quickmatch-cancel]")
    quitter.locator("[data-testid=quickmatch-wait]").wait_for(state="hidden")
    status = quitter.evaluate(
        """async () => (await fetch('/api/quickmatch', {headers: {'X-CSRF-Token':
            document.cookie.match(/fof_csrf=([^;]+)/)[1]}})).json()"""
    )
    assert status == {"state": "idle"}

    page = new_page("player", width, height)
    page.goto(quick_server)
    page.locator("body[data-ready=true]").wait_for()
    panel = page.locator("[data-testid=quickmatch-panel]")
    assert panel.is_visible() and "Quick match" in panel.inner_text()
    _shot(page, f"home-{width}x{height}")
    page.click("[data-testid=quickmatch-start]")
    waiting = page.locator("[data-testid=quickmatch-wait]")
    waiting.wait_for()
    page.wait_for_function(
        "document.querySelector('[data-testid=quickmatch-bots]').textContent.includes('Bots')"
    )
    waited = page.locator("[data-testid=quickmatch-waited]").inner_text()
    assert re.match(r"Waiting for 0:0\d", waited)
    assert page.evaluate(CUT, "#quickmatch-wait") == []
    assert not axe_problems(page), axe_problems(page)
    _shot(page, f"waiting-{width}x{height}")
    # After the wait: sent to its seat at a rated table whose other seats are bots.
    page.wait_for_url(re.compile(r"/t/[A-Z0-9]+$"), timeout=15_000)
    assert waiting.is_hidden()
    code = page.url.rsplit("/", 1)[1]
    table = _get(f"{quick_server}/api/tables/{code}")
    assert table["options"]["rated"] is True and table["status"] == "playing"
    assert [s["kind"] for s in table["seats"]].count("bot") == 3
    saved = page.evaluate(f"JSON.parse(localStorage.getItem('414.table.{code}'))")
    assert table["seats"][saved["seat"]]["kind"] == "human"
    page.locator("#game:not([hidden])").wait_for()
    _shot(page, f"seated-{width}x{height}")


def _join(page: Any, server_url: str, code: str, name: str, seat: int) -> None:
    page.goto(server_url)
    page.evaluate(
        """async ([code, name, seat]) => {
            const response = await fetch(`/api/tables/${code}/join`, {method: 'POST',
                headers: {'Content-Type': 'application/json'},
                body: JSON.stringify({name, seat})});
            const body = await response.json();
            localStorage.setItem(`414.table.${code}`,
                JSON.stringify({seat: body.seat, token: body.token}));
        }""",
        [code, name, seat],
    )


def test_play_again_with_rotated_partners_takes_both_players_to_a_new_table(
    server_url: str, new_page: Any, axe_problems: Any
) -> None:
    ann = new_page("ann", 1366, 657)
    bob = new_page("bob", 390, 844)
    # Two players whose 50 ms turn timers run out: the table's bot plays for both.
    created = create_table(
        ann,
        server_url,
        {"name": "Ann", "players": 2, "turn_seconds": 0.05, "hook_mode": "fast",
         "hook_seconds": 0.05, "bot": "greedy", "round_pause_seconds": 0},
    )  # fmt: skip
    code = created["code"]
    _join(bob, server_url, code, "Bob", 1)
    for page in (ann, bob):
        page.goto(f"{server_url}/t/{code}")
        page.locator("#lobby:not([hidden])").wait_for()
    with connect(server_url.replace("http", "ws", 1) + f"/ws/{code}") as socket:
        socket.send(json.dumps({"type": "hello", "protocol": 3, "token": created["token"]}))
        socket.send(json.dumps({"type": "start", "id": "go"}))
        while '"go"' not in str(socket.recv(timeout=10)):
            pass
    deadline = time.monotonic() + 90
    while _get(f"{server_url}/api/tables/{code}")["status"] != "finished":
        assert time.monotonic() < deadline, "the match did not end"
        time.sleep(0.2)
    # The host offers a new table, partners rotated.
    # (a page on a loaded machine may draw the match's end long after the server reached it)
    ann.locator("[data-testid=again-offer]").wait_for(timeout=120_000)
    bob.locator("[data-testid=results]").wait_for(timeout=60_000)
    assert bob.locator("[data-testid=again-offer]").is_hidden()  # (the host's only)
    bob.click("[data-testid=results-close]")  # (closed: the offer opens it again)
    bob.locator("[data-testid=results]").wait_for(state="hidden")
    ann.check("[data-testid=again-rotate]")
    ann.click("[data-testid=again-offer]")
    ann.locator("[data-testid=again-people]").get_by_text("Ann").wait_for()
    # The other player sees who offered, who answered, and answers.
    bob.locator("[data-testid=again-accept]").wait_for()
    status = bob.locator("[data-testid=again-status]").inner_text()
    assert "Ann offers a new table with rotated partners" in status
    assert "not answered yet" in bob.locator("[data-testid=again-people]").inner_text()
    assert bob.evaluate(CUT, "#results") == []
    assert not axe_problems(bob), axe_problems(bob)
    _shot(bob, "again-offer-390x844")
    _shot(ann, "again-waiting-1366x657")
    bob.click("[data-testid=again-accept]")
    for page in (ann, bob):
        page.wait_for_url(re.compile(r"/t/(?!" + code + r")[A-Z0-9]+$"), timeout=15_000)
    new_code = ann.url.rsplit("/", 1)[1]
    assert bob.url.rsplit("/", 1)[1] == new_code
    table = _get(f"{server_url}/api/tables/{new_code}")
    assert [s["name"] for s in table["seats"]] == ["Ann", "Bob"]
    assert table["options"]["turn_seconds"] == 0.05  # (the old table's options)
    for page in (ann, bob):
        page.locator("#game:not([hidden])").wait_for()


def test_a_page_closed_while_waiting_finds_its_seat_when_opened_again(
    quick_server: str, new_page: Any
) -> None:
    page = new_page("player")
    page.goto(quick_server)
    page.locator("body[data-ready=true]").wait_for()
    page.click("[data-testid=quickmatch-start]")
    page.locator("[data-testid=quickmatch-wait]").wait_for()
    page.goto("about:blank")  # (the tab closed: bots fill its table meanwhile)
    time.sleep(4.5)
    page.goto(quick_server)
    page.wait_for_url(re.compile(r"/t/[A-Z0-9]+$"), timeout=15_000)
    page.locator("#game:not([hidden])").wait_for()
    # Once taken, the home page no longer sends it there.
    page.goto(quick_server)
    page.locator("body[data-ready=true]").wait_for()
    page.wait_for_timeout(500)
    assert page.url.rstrip("/") == quick_server
