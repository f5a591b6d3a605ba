"""A player the host removed is offered no seat and told why; a handoff from the host lets
them back (docs/protocol.md section 3, `kick`)."""

from __future__ import annotations

import json
from typing import Any

from websockets.sync.client import connect

from .pages import create_table


def _handoff_secret(server_url: str, code: str, token: str, seat: int) -> str:
    """The host's handoff of ``seat``, asked for over a connection of the host's own."""
    url = server_url.replace("http", "ws", 1) + f"/ws/{code}"
    with connect(url) as ws:
        ws.send(json.dumps({"type": "hello", "protocol": 3, "token": token}))
        ws.send(json.dumps({"type": "handoff", "id": "h", "seat": seat}))
        while True:
            message = json.loads(ws.recv(10))
            if message.get("id") == "h":
                assert message["type"] == "ack", message
                return str(message["handoff"]["secret"])


def test_a_removed_player_is_offered_no_seat_until_the_host_hands_one(
    server_url: str, new_page: Any
) -> None:
    host = new_page("host")
    created = create_table(host, server_url, {"name": "Ann", "players": 4})
    code = created["code"]
    host.goto(f"{server_url}/t/{code}")
    guest = new_page("guest")
    guest.goto(f"{server_url}/t/{code}")
    guest.fill("[data-testid=lobby-name]", "Bob")
    guest.click("[data-testid=take-seat-1]")
    guest.locator("[data-testid=lobby-seat-1].mine").wait_for(timeout=30_000)

    host.click("[data-testid=kick-1]")
    guest.locator("#lobby-note", has_text="The host removed you from this table").wait_for()
    for page_state in ("after the kick", "after a reload"):
        assert guest.locator("[data-testid^=take-seat-]").count() == 0, page_state
        assert not guest.locator("[data-testid=lobby-name]").is_visible(), page_state
        note = guest.locator("#lobby-note").inner_text()
        assert "ask the host to hand you a seat" in note, page_state
        if page_state == "after the kick":
            guest.reload()
            guest.locator("[data-testid=lobby-seat-0]").wait_for()
    # A request made around the page (its removed token sent) is refused all the same.
    refused = guest.evaluate(
        """async (code) => {
            const token = localStorage.getItem(`414.removed.${code}`);
            const response = await fetch(`/api/tables/${code}/join`, {method: 'POST',
                headers: {'Content-Type': 'application/json'},
                body: JSON.stringify({name: 'Bob', seat: 1, token})});
            return [response.status, (await response.json()).error.code];
        }""",
        code,
    )
    assert refused == [403, "kicked"]

    host.click("[data-testid=fill-bots]")
    host.locator("[data-testid=lobby-seat-3] .bot-tag").wait_for()
    secret = _handoff_secret(server_url, code, created["token"], 3)
    guest.goto(f"{server_url}/t/{code}#claim={secret}")
    guest.fill("[data-testid=claim-name]", "Bob")
    guest.click("[data-testid=claim-seat]")
    guest.locator("[data-testid=lobby-seat-3].mine").wait_for()
    assert guest.evaluate(f"localStorage.getItem('414.removed.{code}')") is None
