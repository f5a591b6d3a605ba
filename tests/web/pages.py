"""What the browser tests do to a page besides what a person does: create a table over
HTTP as the page would, keeping the host's seat token where the app keeps it."""

from __future__ import annotations

import time
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
