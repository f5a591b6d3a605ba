"""Layout defects from the outsiders' report on the browser client (issue 27), each checked
at the sizes it was seen at: the host's lobby, lessons, the own seat box and the hand on a
large screen, the tribute row, the replay and the game bar. Every test here failed before
its fix.
"""

from __future__ import annotations

from typing import Any



def create_table(page: Any, server_url: str, options: dict[str, Any]) -> dict[str, Any]:
    """Create a table over HTTP, keep the host's token where the app keeps it."""
    page.goto(server_url)
    body: dict[str, Any] = page.evaluate(
        """async (options) => {
            const response = await fetch('/api/tables', {method: 'POST',
                headers: {'Content-Type': 'application/json'}, body: JSON.stringify(options)});
            const body = await response.json();
            localStorage.setItem(`414.table.${body.code}`,
                JSON.stringify({seat: body.seat, token: body.token}));
            return body;
        }""",
        options,
    )
    return body


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
    if (control.scrollWidth > control.clientWidth + 1) problems.push(`${control.dataset.testid} cut`);
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5
        || r.bottom > box.bottom + 0.5) {
      problems.push(`${control.dataset.testid} outside its card`);
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
