"""What the browser tests do to a page besides what a person does: create a table over
HTTP as the page would, keeping the host's seat token where the app keeps it; wait for the
app to be ready; photograph a screen and check that it is whole."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

#: Where the browser tests leave their screenshots, one folder a test file.
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

#: Whatever of the shown screen spills past the window's sides or is cut inside itself (a
#: control or a name narrower than its text); and whether the page scrolls sideways. The
#: top bar's own name is shortened on purpose (the whole name is in its menu and title).
CUT = """
() => {
  const screen = document.querySelector('.screen:not([hidden])');
  const problems = [];
  if (document.scrollingElement.scrollWidth > innerWidth + 0.5) {
    problems.push(`scrolls sideways: ${document.scrollingElement.scrollWidth} > ${innerWidth}`);
  }
  const shown = (node) => node.getClientRects().length > 0
    && getComputedStyle(node).visibility !== 'hidden';
  const nodes = [...document.querySelectorAll('.topbar > *, #me-menu:not([hidden]) *'),
                 ...screen.querySelectorAll('*')].filter(shown);
  for (const node of nodes) {
    const r = node.getBoundingClientRect();
    const name = node.dataset.testid || node.id || node.className || node.tagName;
    if (r.left < -0.5 || r.right > innerWidth + 0.5) problems.push(`${name} outside the window`);
    const control = node.matches(
      'button, a.btn, select, .player-name, .profile-name, .badge, dd, dt');
    if (control && node.scrollWidth > node.clientWidth + 1 && node.clientWidth > 0) {
      problems.push(`${name} cut: ${node.clientWidth} of ${node.scrollWidth} px`);
    }
  }
  return problems;
}
"""


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


def box(page: Any, selector: str, timeout: float = 10.0) -> dict[str, float]:
    """``selector``'s box once it is drawn: ``bounding_box()`` neither waits nor retries, and
    a redraw between finding the element and measuring it (a loaded machine's lobby drawn
    again by the next update) gives None."""
    deadline = time.monotonic() + timeout
    while True:
        found = page.locator(selector).bounding_box()
        if found is not None:
            return dict(found)
        if time.monotonic() > deadline:
            raise AssertionError(f"{selector} was not drawn within {timeout} s")
        page.wait_for_timeout(50)


def open_ready(page: Any, url: str) -> None:
    """Open ``url`` and wait until the app has drawn its first screen."""
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]")


class Shots:
    """One test file's screenshots, in ``test-artifacts/<folder>``."""

    def __init__(self, folder: str) -> None:
        self.folder = ARTIFACTS / folder

    def __truediv__(self, name: str) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        return self.folder / name

    def photograph(self, page: Any, name: str, *, full_page: bool = True) -> None:
        """``name``.png: the whole page, or only what the window shows."""
        page.screenshot(path=str(self / f"{name}.png"), full_page=full_page)

    def whole(self, page: Any, name: str) -> None:
        """The screen shown is whole at this size (nothing spills or is cut), photographed
        after a moment for the last redraw."""
        page.wait_for_timeout(200)
        self.photograph(page, name)
        problems = page.evaluate(CUT)
        assert not problems, f"{name}: {problems}"
