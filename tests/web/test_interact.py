"""Interaction defects of the browser client (issue 27) and choosing cards on a phone.

Each test failed before its fix. Offers and hands the deal would give only by chance are
put into the running page through its own reducer (``dispatch`` of session.js, the path
every server message takes), with the page's requests recorded instead of sent: what is
checked is what the page does with them.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from websockets.sync.client import connect

from fouronefour import lessons

from .conftest import serve
from .pages import create_table

#: What "Your decisions" says while the round is being analysed (en.json analysis_pending).
PENDING = json.loads(
    (Path(__file__).resolve().parents[2] / "src/fouronefour/web/static/i18n/en.json").read_text()
)["analysis_pending"]
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _get(url: str) -> Any:
    with _DIRECT.open(url, timeout=10) as answer:
        return json.loads(answer.read())


def _start_with_bots(page: Any, server_url: str, table: dict[str, Any]) -> None:
    page.goto(f"{server_url}{table['link']}")
    page.click("[data-testid=fill-bots]")
    page.locator("[data-testid=start]:enabled").click()


#: Puts a state into the page as the server would (an update through the app's reducer) and
#: records the requests the page sends from then on instead of sending them.
INJECT = """async ({pub, you}) => {
    const { dispatch, session } = await import('/static/session.js');
    window.__sent = window.__sent || [];
    session.conn.request = async (message) => { window.__sent.push(message); return {}; };
    const state = {...session.state.state, ...pub};
    const mine = you === null ? undefined : {...session.state.you, ...you};
    dispatch({type: 'update', v: 0, events: [], state, you: mine});
}"""


def _inject(page: Any, pub: dict[str, Any], you: dict[str, Any] | None) -> None:
    page.evaluate(INJECT, {"pub": pub, "you": you})
    if you and "hand" in you:  # drawn: as many cards as the injected hand (not the dealt one)
        page.wait_for_function(
            f"document.querySelectorAll('[data-testid=hand-card]').length === {len(you['hand'])}"
        )


def _sent(page: Any) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = page.evaluate("window.__sent")
    return sent


def test_a_hook_offer_is_answered_from_the_keyboard_and_the_unhook_window_names_the_pair(
    server_url: str, new_page: Any, axe_problems: Any
) -> None:
    page = new_page("keys", 1366, 657)
    table = create_table(page, server_url, {"name": "Ann", "players": 2, "turn_seconds": 300})
    _start_with_bots(page, server_url, table)
    page.locator("#game[data-decision=play]").wait_for(timeout=20_000)
    hand = page.evaluate("(async () => (await import('/static/session.js')).session.state.you)()")
    pair = next(r for r in hand["hand"] if hand["hand"].count(r) >= 2 and r not in "BR")
    key = "0" if pair == "T" else pair.lower()
    closes = int(time.time() * 1000) + 60_000
    window = {"kind": "hook", "rank": pair, "claimed": pair, "claimed_seat": 1, "closes_at": closes}
    prompt = hand["prompt_v"] + 100
    offer = {"decision": "hook", "legal_moves": [pair * 2, "pass"], "prompt_v": prompt}
    _inject(page, {"window": window, "top": None}, offer)
    page.locator("[data-testid=offer]").wait_for()
    # The offer has the focus at once (a screen reader reads the dialog) and says its keys.
    assert page.evaluate("document.activeElement.dataset.testid") == "offer-accept"
    assert page.locator("[data-testid=offer]").get_attribute("aria-describedby") == "offer-keys"
    assert page.locator("[data-testid=offer-keys]").inner_text() == "Enter: hook · P: decline"
    assert not axe_problems(page), axe_problems(page)
    # Typing the pair selects it (the focus is in the hand now); Enter sends the hook.
    page.locator(f"[data-testid=hand-card][data-rank='{pair}']").first.focus()
    page.keyboard.press(key)
    page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.__sent.length === 1")
    assert _sent(page)[0]["type"] == "move" and _sent(page)[0]["move"] == pair * 2
    assert page.locator("[data-testid=offer]").is_hidden()
    # The next offer: P declines it.
    _inject(page, {"window": window}, {**offer, "prompt_v": prompt + 1})
    page.locator("[data-testid=offer]").wait_for()
    page.keyboard.press("p")
    page.wait_for_function("() => window.__sent.length === 2")
    assert _sent(page)[1]["move"] == "pass"
    # The unhook window after a hook says which pair hooked what, and whose it was.
    unhook = {**window, "kind": "unhook", "claimed": pair * 2, "claimed_seat": 1}
    _inject(page, {"window": unhook}, {"decision": None, "legal_moves": [], "prompt_v": prompt + 2})
    label = page.locator("[data-testid=center] [data-testid=window]")
    shown = pair if pair != "T" else "10"
    # (drawn on the page's next frame: waited for)
    expect(label).to_have_text(f"Bot 2 hooked the {shown} with {shown} {shown} · unhook window")


#: A hand led at level 2 (lowest first in the round's order) and its legal moves: every
#: single, pair, straight and bomb it holds (the client takes them as the server sends them).
HAND = "3456789999AA2BR"
LEGAL = [
    *sorted(set(HAND)), "99", "AA", "999", "9999", "BR",
    "34567", "45678", "56789", "345678", "456789", "3456789",
]  # fmt: skip


def _taps(page: Any, *selectors: str) -> None:
    for selector in selectors:
        page.locator(selector).first.tap()


def test_a_straight_and_a_bomb_are_chosen_in_two_taps_on_a_phone(
    server_url: str, new_page: Any, axe_problems: Any
) -> None:
    page = new_page("phone", 390, 844, mobile=True)
    table = create_table(page, server_url, {"name": "Ann", "players": 2, "turn_seconds": 300})
    _start_with_bots(page, server_url, table)
    page.locator("#game[data-decision=play]").wait_for(timeout=20_000)
    _inject(page, {"top": None, "top_seat": None}, {"hand": HAND, "legal_moves": LEGAL})
    page.locator("[data-testid=hand-card]").nth(len(HAND) - 1).wait_for()
    play = page.locator("[data-testid=play]")
    # Tap 1: a card; the strip offers the moves that hold it. Tap 2: the straight.
    _taps(page, "[data-testid=hand-card][data-rank='5']")
    strip = page.locator("[data-testid=hand-moves]")
    assert strip.is_visible()
    offered = [
        c.get_attribute("data-move") for c in strip.locator("[data-testid=move-choice]").all()
    ]
    assert set(offered) == {m for m in LEGAL if "5" in m and m != "5"}, offered
    assert not axe_problems(page), axe_problems(page)
    _taps(page, "[data-testid=move-choice][data-move='34567']")
    assert play.get_attribute("data-move") == "34567" and play.is_enabled()
    play.tap()
    page.wait_for_function("() => window.__sent.length === 1")
    assert _sent(page)[0]["move"] == "34567"
    # A bomb (the selection went with the move played): a 9, then the four 9s.
    _taps(
        page,
        "[data-testid=hand-card][data-rank='9']",
        "[data-testid=move-choice][data-move='9999']",
    )
    assert play.get_attribute("data-move") == "9999" and play.is_enabled()
    # Choosing by hand still works: each tap toggles a card, and the strip narrows.
    page.locator("[data-testid=clear]").tap()
    _taps(page, "[data-testid=hand-card][data-rank='3']", "[data-testid=hand-card][data-rank='4']")
    assert play.get_attribute("data-move") == "34"
    offered = [
        c.get_attribute("data-move") for c in strip.locator("[data-testid=move-choice]").all()
    ]
    assert set(offered) == {"34567", "345678", "3456789"}, offered
    for rank in "567":
        _taps(page, f"[data-testid=hand-card][data-rank='{rank}']")
    assert play.get_attribute("data-move") == "34567" and play.is_enabled()
    # Sorted by combination: singles, pairs, then the bombs together; remembered.
    page.locator("[data-testid=clear]").tap()
    assert strip.is_hidden()
    page.locator("[data-testid=sort]").tap()
    ranks = "".join(
        c.get_attribute("data-rank") for c in page.locator("[data-testid=hand-card]").all()
    )
    assert ranks == "345678" + "2" + "AA" + "9999" + "BR", ranks
    assert page.locator("[data-testid=sort]").get_attribute("aria-pressed") == "true"
    assert page.evaluate("localStorage.getItem('414.sort')") == "combo"
    # No keyboard on a phone: its keys are not shown.
    assert page.locator("[data-testid=hand-keys]").is_hidden()
    badge = "getComputedStyle(document.getElementById('btn-play'), '::after').content"
    assert page.evaluate(badge) in ("none", "normal")


def test_the_keys_are_shown_on_the_buttons_and_beside_the_table_with_a_keyboard(
    server_url: str, new_page: Any
) -> None:
    page = new_page("laptop", 1366, 657)
    table = create_table(page, server_url, {"name": "Ann", "players": 2, "turn_seconds": 300})
    _start_with_bots(page, server_url, table)
    page.locator("#game[data-decision=play]").wait_for(timeout=20_000)
    keys = page.locator("[data-testid=hand-keys]")
    assert keys.is_visible()
    assert "Enter play" in keys.inner_text() and "P pass" in keys.inner_text()
    page.select_option("[data-testid=lang-select]", "zh")
    page.wait_for_function("() => document.documentElement.lang === 'zh'")
    assert "按键" in keys.inner_text()
    # Each button shows its key.
    badge = "getComputedStyle(document.getElementById('btn-play'), '::after').content"
    assert page.evaluate(badge) == '"Enter"'


def test_a_new_device_mid_match_is_told_it_watches_and_how_to_get_the_seat_back(
    server_url: str, new_page: Any
) -> None:
    host = new_page("host", 1366, 657, locale="it-IT")
    table = create_table(host, server_url, {"name": "Ann", "players": 2, "turn_seconds": 300})
    _start_with_bots(host, server_url, table)
    host.locator("#game[data-decision=play]").wait_for(timeout=20_000)
    phone = new_page("phone", 390, 844, mobile=True)
    phone.goto(f"{server_url}{table['link']}")
    note = phone.locator("[data-testid=watching-note]")
    note.wait_for()
    assert "spectator's view" in note.inner_text()
    help_text = phone.locator("[data-testid=spectator-help]").inner_text()
    assert "Move my seat to another device" in help_text and "seat link" in help_text
    # The host sees one spectator, in the singular (Italian).
    chip = host.locator("[data-testid=presence]")
    chip.wait_for()
    assert chip.inner_text() == "1 spettatore"


def _finished_match(page: Any, server_url: str) -> str:
    """A 2-player match of the table's bots, its host (this page's browser keeps the seat's
    token) played for by a 50 ms turn timer, to its end."""
    created = create_table(
        page,
        server_url,
        {"name": "Ann", "players": 2, "turn_seconds": 0.05, "hook_mode": "fast",
         "hook_seconds": 0.05, "bot": "greedy", "round_pause_seconds": 0},
    )  # fmt: skip
    code = str(created["code"])
    with connect(server_url.replace("http", "ws", 1) + f"/ws/{code}") as ws:
        ws.send(json.dumps({"type": "hello", "protocol": 3, "token": created["token"]}))
        ws.send(json.dumps({"type": "fill_bots", "id": "bots"}))
        ws.send(json.dumps({"type": "start", "id": "go"}))
        while '"go"' not in str(ws.recv(timeout=10)):
            pass
    deadline = time.monotonic() + 90
    while True:
        info = _get(f"{server_url}/api/tables/{code}")
        if info["status"] == "finished":
            return code
        assert time.monotonic() < deadline, "the match did not end"
        time.sleep(0.2)


def test_the_replay_says_tribute_only_where_it_was_paid_and_its_verdict_has_no_prohibited_label(
    server_url: str, new_page: Any, axe_problems: Any
) -> None:
    page = new_page("replay", 1366, 657)
    code = _finished_match(page, server_url)
    replay = _get(f"{server_url}/api/tables/{code}/replays/1")
    assert len(replay["rounds"]) >= 2, "the match had one round"
    # This server analyses nothing: each round's analysis is made up here, every decision
    # a blunder (so the verdict shows a label and the better move).
    steps: dict[int, int] = {}
    for step in replay["steps"]:
        steps[step["round_number"]] = steps.get(step["round_number"], 0) + 1

    def analysis(route: Any) -> None:
        number = int(re.search(r"round=(\d+)", route.request.url).group(1))  # type: ignore[union-attr]
        decision = {"seat": 0, "move": "3", "decision": "play", "win_chance": 0.5,
                    "best_move": "4", "best_win_chance": 0.6, "played_win_chance": 0.2,
                    "label": "blunder"}  # fmt: skip
        body = {"code": code, "match": 1, "round_number": number, "worlds": 2, "seat": None,
                "decisions": [decision] * steps[number]}  # fmt: skip
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route(re.compile(r"/analysis\?"), analysis)
    page.goto(f"{server_url}/t/{code}")
    page.click("[data-testid=open-replay]")
    event = page.locator("[data-testid=replay-event]")
    event.wait_for()
    page.select_option("[data-testid=replay-round]", "1")
    assert event.inner_text() == "Round 1 starts at level 2"  # no tribute in round 1
    page.select_option("[data-testid=replay-round]", "2")
    assert "(after the tribute is paid)" in event.inner_text()
    page.click("[data-testid=replay-forward]")
    verdict = page.locator("[data-testid=replay-verdict]")
    verdict.locator(".analysis-label").wait_for()
    assert "Better: 4" in verdict.inner_text()
    assert verdict.get_attribute("aria-label") is None
    assert not axe_problems(page), axe_problems(page)


@pytest.fixture
def slow_analysis_server(tmp_path: Path) -> Iterator[str]:
    """A server whose analysis of a round takes long (many worlds): it stays pending."""
    with serve(
        tmp_path, ("--bot-delay", "0", "--analysis-processes", "1", "--analysis-worlds", "5000")
    ) as url:
        yield url


def test_a_pending_analysis_is_asked_again_without_errors_in_the_console(
    slow_analysis_server: str, new_page: Any
) -> None:
    page = new_page("pending", 1366, 657)
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    code = _finished_match(page, slow_analysis_server)
    asked: list[int] = []
    page.on("response", lambda r: asked.append(r.status) if "/analysis?" in r.url else None)
    page.goto(f"{slow_analysis_server}/t/{code}")
    status = page.locator("[data-testid=my-analysis] .analysis-status")
    status.wait_for()
    # (The page asks again as the server says: after a second or more.)
    deadline = time.monotonic() + 20
    while len(asked) < 2:
        assert time.monotonic() < deadline, f"the page did not ask again: {asked}"
        page.wait_for_timeout(200)
    assert set(asked) == {202}, asked
    assert status.inner_text() == PENDING
    assert not errors, errors


def _texts(data: Any) -> Iterator[str]:
    """Every text of a lesson file, in every language."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("en", "de", "it", "hi", "zh") and isinstance(value, str):
                yield value
            else:
                yield from _texts(value)
    elif isinstance(data, list):
        for value in data:
            yield from _texts(value)


def test_no_lesson_writes_a_joker_as_a_letter() -> None:
    # The cards show JOKER (black or red): the lessons' words name them as the cards do,
    # never "B B < B R" or an order ending "5 B R".
    letters = re.compile(r"(?<!\w)[BR] [BR](?!\w)")
    files = sorted((Path(lessons.__file__).parent / "data").glob("*.json"))
    assert files
    for path in files:
        for text in _texts(json.loads(path.read_text(encoding="utf-8"))):
            assert not letters.search(text), (path.name, text)


def test_the_last_lesson_ends_with_practise_now_which_starts_practice(
    server_url: str, new_page: Any
) -> None:
    page = new_page("learner", 1366, 657)
    last = list(lessons.lessons().values())[-1]
    page.goto(f"{server_url}/learn/{last.id}")
    screen = "#screen-lesson"
    page.wait_for_selector(f"{screen}[data-moves='0']:not([data-busy=true])")
    while page.get_attribute(screen, "data-done") != "true":
        made = int(page.get_attribute(screen, "data-moves") or 0)
        page.click("[data-testid=lesson-hint-btn]")
        play = page.locator("[data-testid=lesson-play]")
        (play if play.is_enabled() else page.locator("[data-testid=lesson-pass]")).click()
        page.wait_for_selector(f"{screen}:not([data-moves='{made}']):not([data-busy=true])")
    practise = page.locator("[data-testid=lesson-practice]")
    assert practise.inner_text() == "Practise now"
    practise.click()
    page.wait_for_url(re.compile(r"/t/[A-Z0-9]+$"))
    page.wait_for_selector("#game:not([hidden]) [data-testid=hand] .card")
    for seat in (1, 2, 3):
        assert page.locator(f"[data-testid=seat-{seat}] .bot-tag").count() == 1
