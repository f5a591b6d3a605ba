"""The browser client against a real server: create, join by link, play, hook, tribute.

Humans are driven through the page only (clicks on cards and buttons); the assertions
read what a person sees. The first test creates the first table of a server of its own,
whose deal comes from the server's fixed seed.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .pages import create_table

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
#: Talks to the local server directly, whatever proxy the environment names.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))

ROUND_BUDGET_SECONDS = 240  # an upper bound for a loaded machine (the round takes ~30 s)
CLICK_TIMEOUT_MS = 5_000


@dataclass
class Stats:
    plays: dict[int, int] = field(default_factory=lambda: {0: 0, 1: 0})
    passes: dict[int, int] = field(default_factory=lambda: {0: 0, 1: 0})
    hooks: dict[int, int] = field(default_factory=lambda: {0: 0, 1: 0})
    returns: dict[int, int] = field(default_factory=lambda: {0: 0, 1: 0})
    results_seen: dict[int, list[str]] = field(default_factory=lambda: {0: [], 1: []})
    offers_checked: int = 0


def _visible(page: Any, testid: str) -> bool:
    return bool(page.locator(f"[data-testid={testid}]").is_visible())


def _game(page: Any, name: str) -> str:
    return str(page.locator("#game").get_attribute(f"data-{name}") or "")


def _wait_prompt_gone(page: Any, prompt: str) -> None:
    """After acting, wait until the page shows that decision answered."""
    try:
        page.wait_for_function(
            "p => document.getElementById('game').dataset.prompt !== p", arg=prompt, timeout=10_000
        )
    except Exception as error:
        toast = page.locator("[data-testid=toast]").inner_text()
        raise AssertionError(
            f"the decision at prompt {prompt} stayed open; toast: {toast!r}"
        ) from error


def _act(page: Any, seat: int, stats: Stats) -> bool:
    """Do what a person at `seat` would do now, through the page; True if it acted."""
    try:
        return _act_once(page, seat, stats)
    except PlaywrightTimeoutError:
        # A dialog (round results, a hook offer) can open between looking and clicking,
        # as it can under a person's finger: deal with it first, then decide again.
        if _visible(page, "results") or _visible(page, "offer") or _visible(page, "round-end"):
            return True
        raise


def _overlap(a: dict[str, float] | None, b: dict[str, float] | None) -> bool:
    if not a or not b:
        return False
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def _check_offer(page: Any, stats: Stats) -> None:
    """A hook offer leaves the claimed card, the window and the status line in view, and
    says whose card (hook) or who hooked with what (unhook)."""
    offer = page.locator("[data-testid=offer]").bounding_box()
    for covered in ("center", "status"):
        assert not _overlap(offer, page.locator(f"[data-testid={covered}]").bounding_box()), covered
    title = page.locator("[data-testid=offer-title]").inner_text()
    claimer = page.locator("[data-testid=top-move]").get_attribute("data-move") or ""
    if title.startswith("Unhook") or "hooked with" in title:
        assert re.search(r"\w+ hooked with (\S+ \S+)\. Unhook with your \S+\?", title), title
    else:
        assert re.fullmatch(r"Hook .+'s \S+ with your pair\?", title), title
    assert claimer, "the claimed card is on the table"
    stats.offers_checked += 1


def _act_once(page: Any, seat: int, stats: Stats) -> bool:
    if _visible(page, "round-end") and page.locator("[data-testid=ready]").is_enabled():
        # The end-of-round pause (protocol 3): read the results on the table, then Ready.
        stats.results_seen[seat].append(page.inner_text("[data-testid=round-end-results]"))
        page.click("[data-testid=ready]", timeout=CLICK_TIMEOUT_MS)
        return True
    if _visible(page, "results"):
        stats.results_seen[seat].append(page.inner_text("[data-testid=results]"))
        page.click("[data-testid=results-close]")
        return True
    ready = page.locator("[data-testid=ready]:enabled")
    if _visible(page, "round-end") and ready.count():
        # The end-of-round pause: read the results on the table, then say Ready.
        stats.results_seen[seat].append(page.inner_text("[data-testid=round-end]"))
        ready.click(timeout=CLICK_TIMEOUT_MS)
        return True
    if _visible(page, "offer"):
        _check_offer(page, stats)
        page.click("[data-testid=offer-accept]")  # take every hook and unhook offered
        stats.hooks[seat] += 1
        return True
    decision = _game(page, "decision")
    prompt = _game(page, "prompt")
    if decision not in ("play", "return") or not prompt:
        return False
    top_seat = _game(page, "top-seat")
    pass_button = page.locator("[data-testid=pass]")
    partner_on_top = top_seat not in ("", str(seat)) and int(top_seat) % 2 == seat % 2
    if decision == "play" and partner_on_top and pass_button.is_enabled():
        pass_button.click(timeout=CLICK_TIMEOUT_MS)  # let the partner's move stand
        stats.passes[seat] += 1
        _wait_prompt_gone(page, prompt)
        return True
    page.click("[data-testid=hint]", timeout=CLICK_TIMEOUT_MS)
    page.wait_for_function(
        "p => document.getElementById('game').dataset.hinted === p", arg=prompt, timeout=5_000
    )
    play_button = page.locator("[data-testid=play]")
    if play_button.is_enabled():
        move = play_button.get_attribute("data-move")
        assert move, "Play is enabled with no selection"
        play_button.click(timeout=CLICK_TIMEOUT_MS)
        if decision == "return":
            stats.returns[seat] += 1
        else:
            stats.plays[seat] += 1
    else:
        assert pass_button.is_enabled(), "neither Play nor Pass is possible on a decision"
        pass_button.click(timeout=CLICK_TIMEOUT_MS)
        stats.passes[seat] += 1
    _wait_prompt_gone(page, prompt)
    return True


def _create_table(page: Any, server_url: str, name: str) -> str:
    page.goto(server_url)
    page.fill("[data-testid=name-input]", name)
    page.fill("[data-testid=opt-players]", "4")
    page.select_option("[data-testid=opt-windows]", "fast")
    page.select_option("[data-testid=opt-bot]", "greedy")
    page.select_option("[data-testid=opt-timer]", "120")
    page.click("[data-testid=create-table]")
    page.wait_for_url(re.compile(r"/t/[A-Z0-9]+$"))
    code = page.locator("[data-testid=invite-code]").inner_text()
    assert re.fullmatch(r"[A-Z0-9]{4,12}", code), code
    return code


def test_two_friends_and_bots_play_through_hooks_and_tribute(
    seeded_server_url: str, new_page: Any
) -> None:
    server_url = seeded_server_url
    host = new_page("host", 390, 844, mobile=True)  # a phone with a touch screen
    guest = new_page("guest", 1280, 800)  # a laptop
    code = _create_table(host, server_url, "Ann")
    link = host.input_value("[data-testid=invite-link]")
    assert link == f"{server_url}/t/{code}"

    guest.goto(link)
    guest.fill("[data-testid=lobby-name]", "Bob")
    guest.click("[data-testid=take-seat-1]")
    guest.locator("[data-testid=lobby-seat-1].mine").wait_for()
    host.locator("[data-testid=lobby-seat-1]", has_text="Bob").wait_for()
    assert not _visible(guest, "start"), "only the host may start"

    host.click("[data-testid=fill-bots]")
    host.locator("[data-testid=start]:enabled").click()
    for page in (host, guest):
        page.locator("[data-testid=hand-card]").first.wait_for()
        assert page.locator("[data-testid=hand-card]").count() == 27
        assert page.locator("[data-testid=seat-2] .bot-tag").count() == 1

    for page in (host, guest):
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), (
            "the table is wider than the screen"
        )
    # Cards answer taps: one selects, a second deselects.
    first_card = host.locator("[data-testid=hand-card]").first
    first_card.tap()
    assert "selected" in (first_card.get_attribute("class") or "")
    first_card.tap()
    assert "selected" not in (first_card.get_attribute("class") or "")

    spectator = new_page("spectator", 1024, 700)
    spectator.goto(link)
    spectator.locator("[data-testid=seat-0]").wait_for()
    assert spectator.locator("[data-testid=hand-card]").count() == 0
    assert spectator.locator("[data-testid=seat-1]").inner_text().startswith("Bob")

    stats = Stats()
    pages = {0: host, 1: guest}
    deadline = time.monotonic() + ROUND_BUDGET_SECONDS
    reloaded = False
    tribute_checked = False
    while time.monotonic() < deadline:
        acted = False
        for seat, page in pages.items():
            acted = _act(page, seat, stats) or acted
        rounds_done = min(len(seen) for seen in stats.results_seen.values())
        if _game(host, "round") not in ("", "1"):
            rounds_done = max(rounds_done, 1)  # a short end-of-round pause may pass unseen
        if not reloaded and stats.plays[1] >= 2:
            # A refresh keeps the seat: the token is in localStorage, the hand comes back.
            cards = guest.locator("[data-testid=count-1]").inner_text()
            guest.reload()
            guest.locator("[data-testid=hand-card]").first.wait_for()
            assert guest.locator("[data-testid=seat-1].me").count() == 1
            assert guest.locator("[data-testid=hand-card]").count() <= int(cards)
            reloaded = True
        if rounds_done >= 1 and not tribute_checked:
            for page in (host, guest, spectator):
                page.locator("[data-testid=tribute-row]").first.wait_for()
            tribute_checked = True
        done = (
            tribute_checked
            and all(stats.plays[s] > 0 and stats.passes[s] > 0 for s in pages)
            and sum(stats.hooks.values()) > 0
            and sum(stats.returns.values()) > 0
        )
        if done:
            break
        if not acted:
            time.sleep(0.05)

    assert reloaded
    assert all(stats.plays[s] > 0 for s in pages), stats
    assert all(stats.passes[s] > 0 for s in pages), stats
    assert sum(stats.hooks.values()) > 0, f"no hook was offered to a person: {stats}"
    assert stats.offers_checked > 0
    assert tribute_checked, f"the first round did not end in time: {stats}"
    # With the session's seed a person wins round 1 and gives a card back through the UI.
    assert sum(stats.returns.values()) > 0, f"no person had a tribute card to return: {stats}"
    # The round chip brings the last results back.
    guest.click("[data-testid=last-results]")
    result_text = guest.locator("[data-testid=results]").inner_text()
    assert "wins the round" in result_text
    guest.click("[data-testid=results-close]")
    assert "Ann" in result_text and "Bob" in result_text
    assert re.search(r"wins the round", result_text)
    # Tribute is public: every page lists who paid which card to whom.
    for page in (host, guest, spectator):
        rows = page.locator("[data-testid=tribute-row]")
        assert rows.count() >= 1
        assert "→" in rows.first.inner_text()
        page.locator("[data-testid=tribute-row]", has_text="back:").first.wait_for()
    assert spectator.locator("[data-testid=hand-card]").count() == 0


def test_language_follows_the_browser_can_be_switched_and_is_remembered(
    server_url: str, new_page: Any
) -> None:
    page = new_page("language", 390, 844, locale="it-IT")
    page.goto(server_url)
    heading = page.locator("#create-form h2")
    heading.wait_for()
    page.wait_for_function("() => document.body.dataset.ready === 'true'")
    assert heading.inner_text() == "Crea un tavolo"
    assert page.get_attribute("html", "lang") == "it"

    page.select_option("[data-testid=lang-select]", "de")
    page.wait_for_function("() => document.documentElement.lang === 'de'")
    assert heading.inner_text() == "Tisch eröffnen"
    assert page.locator("[data-testid=create-table]").inner_text() == "Tisch eröffnen"

    page.reload()
    page.wait_for_function("() => document.body.dataset.ready === 'true'")
    assert heading.inner_text() == "Tisch eröffnen", "the chosen language is remembered"
    assert page.input_value("[data-testid=lang-select]") == "de"

    for lang, text in (("zh", "开一桌"), ("hi", "नई मेज़ बनाइए"), ("en", "Create a table")):
        page.select_option("[data-testid=lang-select]", lang)
        page.wait_for_function("l => document.documentElement.lang === l", arg=lang)
        assert heading.inner_text() == text


def _create_table_by_api(page: Any, server_url: str, options: dict[str, Any]) -> str:
    """Create a table with options the form does not offer (a 50 ms turn timer), keep the
    seat token where the app keeps it, and open the table's link."""
    created = create_table(page, server_url, options)
    page.goto(f"{server_url}{created['link']}")
    return str(created["code"])


def test_a_finished_match_shows_the_winner_replays_and_plays_again(
    server_url: str, new_page: Any, axe_problems: Any
) -> None:
    page = new_page("host", 1280, 800)
    page.clock.install()
    # Two seats and a turn timer of 50 ms: the host is soon away and the table's bot plays
    # for them, so a whole match runs at bot speed.
    code = _create_table_by_api(
        page,
        server_url,
        {"name": "Ann", "players": 2, "turn_seconds": 0.05, "hook_seconds": 0.05,
         "hook_mode": "fast", "bot": "greedy"},
    )  # fmt: skip
    page.click("[data-testid=fill-bots]")
    # A toast of the lobby does not stay into the game's next round (issue 13, item 7): the
    # page's clock moves a frame at a time meanwhile, so the toast cannot just time out.
    page.click("[data-testid=copy-link]")
    page.locator("[data-testid=toast]").wait_for()
    page.clock.pause_at(page.evaluate("Date.now()") + 500)
    page.locator("[data-testid=start]:enabled").click()
    deadline = time.monotonic() + 30
    round_shown = "() => (document.getElementById('game').dataset.round || '0')"
    while int(page.evaluate(round_shown)) < 2 and time.monotonic() < deadline:
        page.clock.run_for(16)  # one frame at a time: far from the toast's 3.5 s
        time.sleep(0.05)
    assert int(page.evaluate(round_shown)) >= 2
    assert page.locator("[data-testid=toast]").is_hidden(), "the lobby's toast is still shown"
    page.clock.resume()
    winner = page.locator("[data-testid=match-winner]")
    winner.wait_for(timeout=90_000)
    assert re.search(r"Team [AB] wins the match!", winner.inner_text())
    assert page.locator("[data-testid=results]").inner_text().startswith("The match is over")
    assert page.locator("[data-testid=play-again]").is_visible()

    page.click("[data-testid=open-replay]")
    step = page.locator("[data-testid=replay-step]")
    step.wait_for()
    first = step.inner_text()
    assert first.startswith("Step 1 of ")
    total = int(re.search(r"of (\d+)", first).group(1))  # type: ignore[union-attr]
    assert total > 50
    # Every hand is shown: 27 cards each at the start of round 1 with one deck.
    for seat in (0, 1):
        assert page.locator(f"[data-testid=replay-hand-{seat}] .card").count() == 27
    page.click("[data-testid=replay-forward]")
    assert step.inner_text().startswith("Step 2 of ")
    after_first_move = sum(
        page.locator(f"[data-testid=replay-hand-{seat}] .card").count() for seat in (0, 1)
    )
    assert after_first_move < 54
    assert "plays" in page.locator("[data-testid=replay-event]").inner_text()
    page.click("[data-testid=replay-back]")
    assert step.inner_text().startswith("Step 1 of ")
    assert not axe_problems(page), axe_problems(page)
    # The table view: seats around a felt, the move on top in the middle.
    assert page.locator("[data-testid=replay-table-seat-1]").is_visible()
    page.click("[data-testid=replay-forward]")
    assert page.locator("[data-testid=replay-table-top-move]").count() == 1
    # The summary: rounds, winner, both teams' levels round by round.
    summary = page.locator("[data-testid=replay-summary]").inner_text()
    assert re.search(r"Team [AB] won in \d+ rounds", summary), summary
    assert page.locator("[data-testid=level-chart] polyline").count() == 2
    # Jump to the last round, then let it play on its own at 16x.
    rounds = page.locator("[data-testid=replay-round] option").all_inner_texts()
    page.select_option("[data-testid=replay-round]", label=rounds[-1])
    assert step.inner_text().endswith(f"round {len(rounds)}")
    at = int(re.search(r"Step (\d+)", step.inner_text()).group(1))  # type: ignore[union-attr]
    page.select_option("[data-testid=replay-speed]", "16")
    page.click("[data-testid=replay-autoplay]")
    page.wait_for_function(
        "at => Number(/Step (\\d+)/.exec(document.querySelector('[data-testid=replay-step]')"
        ".textContent)[1]) > at + 2",
        arg=at,
    )
    page.click("[data-testid=replay-autoplay]")  # pause
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "replay-1280x800.png"), full_page=True)
    assert page.get_attribute("[data-testid=replay-autoplay]", "aria-pressed") == "false"
    page.locator("[data-testid=replay-slider]").fill(str(total - 1))
    assert step.inner_text().startswith(f"Step {total} of ")
    page.click("[data-testid=replay-close]")

    page.locator("#screen-table").wait_for()
    page.click("[data-testid=status-play-again]")
    # The next match starts (and, with the host away, may even be over again quickly).
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with _DIRECT.open(f"{server_url}/api/tables/{code}", timeout=5) as answer:
            if json.loads(answer.read())["match_number"] == 2:
                break
        time.sleep(0.2)
    else:
        raise AssertionError("match 2 did not start")


def test_a_lost_update_makes_the_page_reconnect_from_the_last_version_it_saw(
    server_url: str, new_page: Any
) -> None:
    page = new_page("player", 390, 844)
    sent: list[dict[str, Any]] = []
    dropped: list[dict[str, Any]] = []
    drop_next_update = {"armed": False}

    def route(socket: Any) -> None:
        server = socket.connect_to_server()

        def from_page(message: str | bytes) -> None:
            sent.append(json.loads(message))
            server.send(message)

        def from_server(message: str | bytes) -> None:
            data = json.loads(message)
            if drop_next_update["armed"] and data["type"] == "update":
                drop_next_update["armed"] = False
                dropped.append(data)  # lost on the way: the page must notice the gap
                return
            socket.send(message)

        socket.on_message(from_page)
        server.on_message(from_server)

    page.route_web_socket(re.compile(r"/ws/"), route)
    code = _create_table(page, server_url, "Ann")
    page.click("[data-testid=fill-bots]")
    page.locator("[data-testid=start]:enabled").click()
    page.locator("#game[data-prompt]:not([data-prompt=''])").wait_for()
    # The update lost must be the one of a move of ours that the bots answer (their next
    # update shows the gap); the deal may offer us a hook first: take it, then play.
    deadline = time.monotonic() + 30
    while _visible(page, "offer") or _game(page, "decision") != "play":
        assert time.monotonic() < deadline, "no move of our own to play"
        if not _act(page, 0, Stats()):
            time.sleep(0.05)

    drop_next_update["armed"] = True  # the update carrying our own move gets lost
    stats = Stats()
    assert _act(page, 0, stats)
    assert dropped, "no update was dropped"
    lost = dropped[0]["v"]
    hellos = [m for m in sent if m["type"] == "hello"]
    assert len(hellos) == 2, hellos
    assert hellos[1]["since"] == lost - 1
    assert "token" in hellos[1]

    # Once the table waits for us again, the page shows what a fresh page shows.
    page.locator("#game[data-prompt]:not([data-prompt=''])").wait_for()
    fresh = new_page("fresh", 390, 844)
    fresh.goto(f"{server_url}/t/{code}")
    fresh.locator("[data-testid=seat-0]").wait_for()
    fresh.wait_for_function("() => document.querySelectorAll('#log li').length > 0")
    for seat in range(4):
        mine = page.locator(f"[data-testid=count-{seat}]").inner_text()
        assert mine == fresh.locator(f"[data-testid=count-{seat}]").inner_text()
    assert page.locator("#log li").all_inner_texts() == fresh.locator("#log li").all_inner_texts()
