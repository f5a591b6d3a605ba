"""Layout defects from the outsiders' report on the browser client (issue 27), each checked
at the sizes it was seen at: the host's lobby, lessons, the seat boxes and the hand on a
large screen, the replay, the game bar and toasts (the tribute strip and the centre with
12 seats are in test_layout.py). Every test here failed before its fix. Each size checked
is photographed into test-artifacts/layout-outsiders/.
"""

from __future__ import annotations

from typing import Any

from .pages import Shots, create_table

#: Screenshots of the sizes checked (looked at when a layout changes; never committed).
SHOTS = Shots("layout-outsiders")


#: A seat card's name, buttons and selects: is the name cut (an ellipsis, or no width at
#: all), is a control cut inside itself or does it spill out of its card.
LOBBY_CARDS = """
() => [...document.querySelectorAll('.lobby-seat')].map((card) => {
  const box = card.getBoundingClientRect();
  const name = card.querySelector('.seat-name');
  const problems = [];
  if (name.clientWidth === 0 || name.scrollWidth > name.clientWidth + 1
      || name.scrollHeight > name.clientHeight + 1) {
    problems.push(`name "${name.textContent}" cut (${name.clientWidth} px wide)`);
  }
  for (const control of card.querySelectorAll('button, select')) {
    const r = control.getBoundingClientRect();
    const id = control.dataset.testid;
    if (control.scrollWidth > control.clientWidth + 1) problems.push(`${id} cut`);
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5
        || r.bottom > box.bottom + 0.5) {
      problems.push(`${id} outside its card`);
    }
  }
  return problems.join(', ');
}).filter(Boolean)
"""


def test_the_hosts_lobby_shows_every_seats_name_and_whole_controls(
    server_url: str, new_page: Any
) -> None:
    page = new_page("host", 1280, 800)
    table = create_table(page, server_url, {"name": "Annapurna Lakshmi", "players": 4})
    page.evaluate(
        """async (code) => (await fetch(`/api/tables/${code}/join`, {method: 'POST',
            headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({name: 'Bartholomew', seat: 1})})).json()""",
        table["code"],
    )
    page.goto(f"{server_url}{table['link']}")
    page.click("[data-testid=fill-bots]")
    page.locator("[data-testid=start]:enabled").wait_for()
    problems = []
    for width, height in [(1280, 800), (1366, 657), (1920, 1080), (360, 640), (390, 844)]:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(100)
        cut = page.evaluate(LOBBY_CARDS)
        if cut:
            problems.append(f"{width}x{height}: {cut}")
    assert not problems, "\n".join(problems)


#: The seat boxes against the felt's inner edge (the felt draws a 5 px dark rim inside its
#: box) with the 3 px ring of whose turn it is; the hand's rows and span.
SEATS_AND_HAND = """
() => {
  const felt = document.getElementById('felt').getBoundingClientRect();
  const rim = 5;
  const ring = 3;
  const cut = [...document.querySelectorAll('#ring .seat')].filter((seat) => {
    const r = seat.getBoundingClientRect();
    return r.left - ring < felt.left + rim - 0.5 || r.top - ring < felt.top + rim - 0.5
      || r.right + ring > felt.right - rim + 0.5 || r.bottom + ring > felt.bottom - rim + 0.5;
  }).map((seat) => seat.dataset.seat + (seat.classList.contains('me') ? ' (own)' : ''));
  const cards = [...document.querySelectorAll('[data-testid=hand-card]')]
    .map((card) => card.getBoundingClientRect());
  const tops = [...new Set(cards.map((r) => Math.round(r.top)))].sort((a, b) => a - b);
  const rowShown = tops.length > 1 ? (tops[1] - tops[0]) / cards[0].height : 1;
  return {
    cut, cards: cards.length, rows: tops.length, rowShown,
    span: (Math.max(...cards.map((r) => r.right)) - Math.min(...cards.map((r) => r.left)))
      / innerWidth,
  };
}
"""


def _my_turn_in_round_one(page: Any, server_url: str, players: int) -> None:
    table = create_table(
        page,
        server_url,
        {"name": "Annapurna Lakshmi", "players": players, "turn_seconds": 600,
         "hook_seconds": 0.05, "hook_mode": "fast"},
    )  # fmt: skip
    page.goto(f"{server_url}{table['link']}")
    page.click("[data-testid=fill-bots]")
    page.locator("[data-testid=start]:enabled").click()
    page.locator("#game[data-decision=play]").wait_for(timeout=60_000)


def test_seat_boxes_stay_inside_the_felt_and_a_large_screen_gives_the_hand_its_width(
    server_url: str, new_page: Any
) -> None:
    problems = []
    for players, sizes in [
        (4, [(360, 640), (390, 844), (844, 390), (1366, 657), (1920, 1080)]),
        (12, [(1366, 657), (1920, 1080), (360, 640), (844, 390)]),
    ]:
        page = new_page(f"round1-{players}", 1280, 800)
        _my_turn_in_round_one(page, server_url, players)
        for width, height in sizes:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(150)
            SHOTS.photograph(page, f"round1-{players}-{width}x{height}", full_page=False)
            out = page.evaluate(SEATS_AND_HAND)
            if out["cut"]:
                problems.append(f"{players} seats at {width}x{height}: boxes {out['cut']} cut")
            if (players, width) == (4, 1920):
                # One row, or rows that each show most of their cards, across most of the width.
                if out["cards"] != 27 or (out["rows"] > 1 and out["rowShown"] < 0.6):
                    problems.append(f"1920x1080: the hand's rows hide their cards {out}")
                if out["span"] < 0.7:
                    problems.append(f"1920x1080: the hand spans {out['span']:.0%} of the width")
    assert not problems, "\n".join(problems)


#: What a learner needs on one screen: the task, the centre (the move to beat), the hand
#: and Play; and the page itself does not scroll.
LESSON_SCREEN = """
() => {
  const inside = (selector) => {
    const r = document.querySelector(selector).getBoundingClientRect();
    return r.height > 0 && r.top >= -0.5 && r.left >= -0.5 && r.bottom <= innerHeight + 0.5
      && r.right <= innerWidth + 0.5;
  };
  const out = ['#lesson-task', '#lesson-center', '#lesson-hand .card',
    '#lesson-hand .card:last-child', '[data-testid=lesson-play]', '[data-testid=lesson-pass]']
    .filter((selector) => !inside(selector));
  if (document.scrollingElement.scrollHeight > innerHeight + 1) out.push('the page scrolls');
  return out;
}
"""


def test_a_lessons_task_table_hand_and_play_fit_one_screen(server_url: str, new_page: Any) -> None:
    page = new_page("lesson", 360, 640)
    problems = []
    for width, height in [(360, 640), (390, 844), (844, 390), (1366, 657)]:
        page.set_viewport_size({"width": width, "height": height})
        # A fresh start (the rule is open on the first step), then a wrong try (its feedback).
        page.goto(f"{server_url}/learn/order")
        page.evaluate("localStorage.removeItem('414.lesson.order')")
        page.reload()
        page.locator("#lesson-hand .card").first.wait_for()
        page.wait_for_timeout(100)
        SHOTS.photograph(page, f"lesson-{width}x{height}", full_page=False)
        out = page.evaluate(LESSON_SCREEN)
        if out:
            problems.append(f"{width}x{height}, first step: {out}")
        page.click("[data-testid=lesson-pass]")
        page.locator("[data-testid=lesson-feedback]:visible").wait_for()
        page.wait_for_timeout(100)
        SHOTS.photograph(page, f"lesson-{width}x{height}-feedback", full_page=False)
        out = page.evaluate(LESSON_SCREEN)
        if out:
            problems.append(f"{width}x{height}, after a wrong try: {out}")
    assert not problems, "\n".join(problems)


def test_the_replays_step_controls_and_table_share_one_screen(
    server_url: str, new_page: Any
) -> None:
    page = new_page("replay", 390, 844)
    # Two seats and a 50 ms turn timer: the bots play the whole match for the away host.
    table = create_table(
        page,
        server_url,
        {"name": "Ann", "players": 2, "turn_seconds": 0.05, "hook_seconds": 0.05,
         "hook_mode": "fast", "bot": "greedy"},
    )  # fmt: skip
    page.goto(f"{server_url}{table['link']}")
    page.click("[data-testid=fill-bots]")
    page.locator("[data-testid=start]:enabled").click()
    page.locator("[data-testid=match-winner]").wait_for(timeout=120_000)
    page.click("[data-testid=open-replay]")
    page.locator("[data-testid=replay-step]").wait_for()
    page.click("[data-testid=replay-forward]")
    problems = []
    for width, height in [(390, 844), (844, 390), (360, 640), (1280, 800), (1366, 657)]:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(120)
        SHOTS.photograph(page, f"replay-{width}x{height}", full_page=False)
        out = page.evaluate(
            """() => ['replay-back', 'replay-forward', 'replay-step', 'replay-table-top-move']
                .map((id) => document.querySelector(`[data-testid=${id}]`))
                .concat([document.getElementById('replay-felt')])
                .filter((node) => {
                    const r = node.getBoundingClientRect();
                    return r.top < 0 || r.bottom > innerHeight + 0.5 || r.height === 0;
                }).map((node) => node.dataset.testid || node.id)"""
        )
        if out:
            problems.append(f"{width}x{height}: off screen {out}")
    assert not problems, "\n".join(problems)


BAR = """
() => {
  const rect = (node) => node.getBoundingClientRect();
  const order = document.querySelector('[data-testid=order]');
  const shown = getComputedStyle(order).display !== 'none';
  const problems = [];
  const cut = order.scrollWidth > order.clientWidth + 1 || rect(order).right > innerWidth + 0.5;
  if (shown && cut) {
    const widths = `${order.clientWidth} of ${order.scrollWidth} px`;
    problems.push(`order line cut: ${order.textContent} (${widths})`);
  }
  const toast = document.querySelector('[data-testid=toast]');
  if (toast && !toast.hidden) {
    const t = rect(toast);
    const chips = [...document.querySelectorAll('#scoreboard .score-chip, [data-testid=presence]')]
      .filter((chip) => !chip.hidden);
    for (const chip of chips) {
      const c = rect(chip);
      if (t.left < c.right && c.left < t.right && t.top < c.bottom && c.top < t.bottom) {
        problems.push(`the toast covers ${chip.textContent}`);
      }
    }
  }
  return problems;
}
"""


def test_the_card_order_stays_whole_beside_the_watchers_and_toasts_leave_the_chips(
    server_url: str, new_page: Any
) -> None:
    page = new_page("host", 1280, 800, locale="it-IT")
    table = create_table(
        page, server_url, {"name": "Annapurna Lakshmi", "players": 4, "turn_seconds": 600}
    )
    page.goto(f"{server_url}{table['link']}")
    page.click("[data-testid=fill-bots]")
    page.locator("[data-testid=start]:enabled").click()
    page.locator("#game[data-decision=play]").wait_for(timeout=60_000)
    watcher = new_page("watcher", 390, 844)
    watcher.goto(f"{server_url}{table['link']}")
    watcher.locator("[data-testid=team-0]").wait_for()
    page.locator("[data-testid=presence]:visible").wait_for()
    problems = []
    for width, height in [(360, 640), (390, 844), (844, 390), (1280, 800), (1366, 657)]:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("import('/static/toast.js').then((toast) => toast.toast('link_copied'))")
        page.locator("[data-testid=toast]:visible").wait_for()
        page.wait_for_timeout(100)
        SHOTS.photograph(page, f"bar-{width}x{height}", full_page=False)
        out = page.evaluate(BAR)
        if out:
            problems.append(f"{width}x{height}: {out}")
    assert not problems, "\n".join(problems)


#: An away seat's small box: its count and status tag, each whole or not; and whether the
#: status line runs under the sort switch that sits over its right end.
AWAY_BOX = """
() => {
  const tag = document.querySelector('.ring .away-tag');
  const count = tag.closest('.seat').querySelector('.seat-count');
  const status = document.querySelector('#game .status-line');
  const sort = document.querySelector('[data-testid=sort]').getBoundingClientRect();
  const under = [...status.querySelectorAll('.status-text, .btn')]
    .filter((node) => node.offsetWidth > 0)
    .some((node) => {
      const r = node.getBoundingClientRect();
      return r.right > sort.left && r.left < sort.right && r.bottom > sort.top
        && r.top < sort.bottom;
    });
  return {tag: [tag.textContent, tag.scrollWidth <= tag.clientWidth + 1, tag.title],
          count: count.scrollWidth <= count.clientWidth + 1
            && count.getBoundingClientRect().left
               >= tag.closest('.seat').getBoundingClientRect().left,
          under};
}
"""


def test_an_away_seat_shows_its_status_and_count_in_a_phone_held_sideways(
    server_url: str, new_page: Any
) -> None:
    page = new_page("away", 844, 390)
    # A 1 s turn timer: the host misses their first turn and is away; the bots play on.
    table = create_table(
        page, server_url, {"name": "Annabelle", "players": 4, "turn_seconds": 1, "hooking": False}
    )
    page.goto(f"{server_url}{table['link']}")
    page.click("[data-testid=fill-bots]")
    page.locator("[data-testid=start]:enabled").click()
    page.locator(".ring .away-tag").wait_for(timeout=30_000)
    problems = []
    for lang in ("en", "de"):
        page.select_option("[data-testid=lang-select]", lang)
        page.wait_for_function(f"() => document.documentElement.lang === '{lang}'")
        for width, height in [(844, 390), (667, 375)]:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(150)
            SHOTS.photograph(page, f"away-{lang}-{width}x{height}", full_page=False)
            out = page.evaluate(AWAY_BOX)
            word, whole, title = out["tag"]
            if lang == "en" and not whole:
                problems.append(f"{width}x{height} {lang}: '{word}' cut")
            if title != word:
                problems.append(f"{width}x{height} {lang}: no title '{word}'")
            if not out["count"]:
                problems.append(f"{width}x{height} {lang}: the count cut")
            if out["under"]:
                problems.append(f"{width}x{height} {lang}: the status line under the switch")
    assert not problems, "\n".join(problems)
