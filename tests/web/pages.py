"""What the browser tests do to a page besides what a person does: create a table over
HTTP as the page would, keeping the host's seat token where the app keeps it."""

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
