"""The browser client against a real server: create, join by link, play, hook, tribute.

Humans are driven through the page only (clicks on cards and buttons); the assertions
read what a person sees. The first test creates the session's first table, whose deal
comes from the server's fixed seed.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any


ROUND_BUDGET_SECONDS = 110


@dataclass
class Stats:
    plays: dict[int, int] = field(default_factory=lambda: {0: 0, 1: 0})
    passes: dict[int, int] = field(default_factory=lambda: {0: 0, 1: 0})
    hooks: dict[int, int] = field(default_factory=lambda: {0: 0, 1: 0})
    returns: dict[int, int] = field(default_factory=lambda: {0: 0, 1: 0})
    results_seen: dict[int, list[str]] = field(default_factory=lambda: {0: [], 1: []})


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
        raise AssertionError(f"the decision at prompt {prompt} stayed open; toast: {toast!r}") from error


def _act(page: Any, seat: int, stats: Stats) -> bool:
    """Do what a person at `seat` would do now, through the page; True if it acted."""
    if _visible(page, "results"):
        stats.results_seen[seat].append(page.inner_text("[data-testid=results]"))
        page.click("[data-testid=results-close]")
        return True
    if _visible(page, "offer"):
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
        pass_button.click()  # let the partner's move stand
        stats.passes[seat] += 1
        _wait_prompt_gone(page, prompt)
        return True
    page.click("[data-testid=hint]")
    page.wait_for_function(
        "p => document.getElementById('game').dataset.hinted === p", arg=prompt, timeout=5_000
    )
    play_button = page.locator("[data-testid=play]")
    if play_button.is_enabled():
        move = play_button.get_attribute("data-move")
        assert move, "Play is enabled with no selection"
        play_button.click()
        if decision == "return":
            stats.returns[seat] += 1
        else:
            stats.plays[seat] += 1
    else:
        assert pass_button.is_enabled(), "neither Play nor Pass is possible on a decision"
        pass_button.click()
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
    server_url: str, new_page: Any
) -> None:
    host = new_page("host", 390, 844)  # a phone
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
        )
        if done:
            break
        if not acted:
            time.sleep(0.05)

    assert reloaded
    assert all(stats.plays[s] > 0 for s in pages), stats
    assert all(stats.passes[s] > 0 for s in pages), stats
    assert sum(stats.hooks.values()) > 0, f"no hook was offered to a person: {stats}"
    assert tribute_checked, f"the first round did not end in time: {stats}"
    result_text = stats.results_seen[0][0]
    assert "Ann" in result_text and "Bob" in result_text
    assert re.search(r"wins the round", result_text)
    # Tribute is public: every page lists who paid which card to whom.
    for page in (host, guest, spectator):
        rows = page.locator("[data-testid=tribute-row]")
        assert rows.count() >= 1
        assert "→" in rows.first.inner_text()
    assert spectator.locator("[data-testid=hand-card]").count() == 0
