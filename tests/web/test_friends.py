"""Friends in the browser (docs/friends.md): two profiles befriend by username, see each
other online, one invites the other to her table in one click (the invite shown live on the
other's page, which joins by it), then blocks him at the table: his chat lines leave her
screen and new ones never reach it. At 390x844 and 1366x657, photographed into
test-artifacts/friends/ and checked for anything cut off."""

from __future__ import annotations

import time
from typing import Any

import pytest

from .pages import Shots, open_ready

SHOTS = Shots("friends")
SIZES = [(390, 844), (1366, 657)]

FETCH = """async ([method, path, body]) => {
  const csrf = document.cookie.split('; ').find((c) => c.startsWith('fof_csrf=')).slice(9);
  const response = await fetch(path, {method, body: body && JSON.stringify(body),
    headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf}});
  return {status: response.status, body: await response.json()};
}"""


def _call(page: Any, method: str, path: str, body: Any = None) -> dict[str, Any]:
    answer: dict[str, Any] = page.evaluate(FETCH, [method, path, body])
    return answer


def _ann_and_claimed_bob(server_url: str, ann: Any, bob: Any, username: str) -> str:
    """Ann's and Bob's pages named, Bob's profile claimed as ``username``: Bob's id."""
    for page, name in ((ann, "Ann"), (bob, "Bob")):
        open_ready(page, server_url)
        assert _call(page, "PATCH", "/api/me", {"name": name})["status"] == 200
    claimed = _call(bob, "POST", "/api/me/claim",
                    {"username": username, "password": "correct horse battery"})  # fmt: skip
    assert claimed["status"] == 200
    bob_id: str = claimed["body"]["profile"]["id"]
    return bob_id


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_befriend_invite_in_one_click_and_block_at_the_table(
    server_url: str, new_page: Any, width: int, height: int
) -> None:
    size = f"{width}x{height}"
    ann, bob = new_page("ann", width, height), new_page("bob", width, height)
    username = f"bob{width}.{int(time.time() * 1000) % 10**8}"
    bob_id = _ann_and_claimed_bob(server_url, ann, bob, username)
    open_ready(bob, server_url)  # (its socket with the claimed session)

    # Ann asks by username; Bob's page shows it live and he accepts.
    ann.fill("[data-testid=friends-username]", username.upper())
    ann.click("[data-testid=friends-add]")
    ann.locator("[data-testid=toast]", has_text="Friend request sent").wait_for()
    ann.locator("[data-testid=friend-outgoing]", has_text="Bob").wait_for()
    bob.locator("[data-testid=friend-incoming]", has_text="Ann").wait_for()
    SHOTS.whole(bob, f"request-{size}")
    bob.click("[data-testid=friend-accept]")
    bob.locator("[data-testid=friend][data-status=online]", has_text="Ann").wait_for()
    # Ann sees him online (his page is open), with its dot and its word.
    online = ann.locator("[data-testid=friend][data-status=online]", has_text="Bob")
    online.wait_for()
    assert "Online" in online.inner_text()
    assert ann.locator("[data-testid=friend-outgoing]").count() == 0
    SHOTS.whole(ann, f"friends-{size}")

    # Ann at her own table: one click invites Bob; his page shows it; he joins by it.
    made = _call(ann, "POST", "/api/tables", {"name": "Ann", "players": 4})
    assert made["status"] == 201
    code = made["body"]["code"]
    ann.evaluate(
        "([code, seat, token]) => localStorage.setItem(`414.table.${code}`,"
        " JSON.stringify({seat, token}))",
        [code, made["body"]["seat"], made["body"]["token"]],
    )
    ann.goto(f"{server_url}/t/{code}")
    invite = ann.locator("[data-testid=invite-friend]", has_text="Bob")
    invite.wait_for()
    SHOTS.whole(ann, f"table-invite-{size}")
    invite.locator("[data-testid=invite-friend-button]").click()
    ann.locator("[data-testid=toast]", has_text="Invite sent to Bob").wait_for()
    shown = bob.locator("[data-testid=friend-invite]", has_text="Ann invites you to a table")
    shown.wait_for()
    SHOTS.whole(bob, f"invited-{size}")
    shown.locator("[data-testid=friend-invite-join]").click()
    bob.wait_for_url(f"{server_url}/t/{code}")
    assert bob.locator("[data-testid=friend-invite]").count() == 0
    bob.fill("[data-testid=lobby-name]", "Bob")
    bob.click("[data-testid=take-seat-1]")
    bob.locator("[data-testid=lobby-seat-1].mine").wait_for()
    # Seated here, he is no longer offered an invite to this table, on either page.
    ann.locator("[data-testid=invite-friend]", has_text="Bob").locator(
        "[data-testid=invite-friend-button]"
    ).wait_for(state="detached")
    bob_row = ann.locator("[data-testid=invite-friend]", has_text="Bob")
    assert "At your table" in bob_row.inner_text()
    bob.locator("[data-testid=invite-friend]", has_text="Ann").wait_for()
    assert bob.locator("[data-testid=invite-friend-button]").count() == 0
    # Seen is seen: the invite is no longer kept for him.
    assert _call(bob, "GET", "/api/friends/invites")["body"]["invites"] == []
    # Cy, a stranger, sits down too: Ann's page offers to add her (a request naming the
    # table they sit at), and offers nothing of the kind for Bob, a friend already.
    cy = new_page("cy", width, height)
    open_ready(cy, server_url)
    _call(cy, "PATCH", "/api/me", {"name": "Cy"})
    cy.goto(f"{server_url}/t/{code}")
    cy.fill("[data-testid=lobby-name]", "Cy")
    cy.click("[data-testid=take-seat-2]")
    mate = ann.locator("[data-testid=table-mate]", has_text="Cy")
    mate.wait_for()
    assert ann.locator("[data-testid=table-mate]").count() == 1
    SHOTS.whole(ann, f"table-mate-{size}")
    mate.locator("[data-testid=table-mate-add]").click()
    ann.locator("[data-testid=toast]", has_text="Friend request sent").wait_for()
    ann.locator("[data-testid=table-mate]").wait_for(state="detached")
    incoming = _call(cy, "GET", "/api/friends")["body"]["incoming"]
    assert [p["name"] for p in incoming] == ["Ann"]

    # At the table, Bob's chat reaches Ann until she blocks him.
    ann.click("[data-testid=fill-bots]")
    ann.locator("[data-testid=start]:enabled").click()
    for page in (ann, bob):
        page.locator("#game:not([hidden])").wait_for()
        if page.locator("[data-testid=open-side]").is_visible():  # (a phone: a side panel)
            page.click("[data-testid=open-side]")
        page.locator("[data-testid=chat-input]").wait_for()
    bob.fill("[data-testid=chat-input]", "first line from Bob")
    bob.click("[data-testid=chat-send]")
    ann.locator("[data-testid=chat-line]", has_text="first line from Bob").wait_for()
    assert _call(ann, "POST", "/api/friends/blocks", {"id": bob_id})["status"] == 201
    ann.locator("[data-testid=chat-line]", has_text="first line from Bob").wait_for(
        state="detached"
    )
    bob.fill("[data-testid=chat-input]", "second line from Bob")
    bob.click("[data-testid=chat-send]")
    bob.locator("[data-testid=chat-line]", has_text="second line from Bob").wait_for()
    ann.wait_for_timeout(500)
    assert ann.locator("[data-testid=chat-line]", has_text="from Bob").count() == 0
    assert ann.locator("[data-testid=bubble-1]").count() == 0
    # (He is not told: his page says nothing of it, his friend list just lost her.)
    bob.goto(server_url)
    bob.wait_for_selector("body[data-ready=true]")
    bob.locator("#friends-none").wait_for()

    # Cy's profile page, from Ann's: her request waits (no Add friend), she blocks Cy there
    # (asked first), and may unblock.
    cy_id = _call(cy, "GET", "/api/me")["body"]["profile"]["id"]
    open_ready(ann, f"{server_url}/#player/{cy_id}")
    ann.locator("[data-testid=profile-name]", has_text="Cy").wait_for()
    ann.locator("[data-testid=profile-block]").wait_for()
    assert ann.locator("[data-testid=profile-add-friend]").is_hidden()
    SHOTS.whole(ann, f"profile-{size}")
    ann.once("dialog", lambda dialog: dialog.accept())
    ann.click("[data-testid=profile-block]")
    ann.locator("[data-testid=profile-unblock]").wait_for()
    blocked = _call(ann, "GET", "/api/friends")["body"]["blocked"]
    assert sorted(p["id"] for p in blocked) == sorted([bob_id, cy_id])
    ann.click("[data-testid=profile-unblock]")
    ann.locator("[data-testid=profile-block]").wait_for()


def test_an_invite_opened_from_its_notice_is_seen_on_the_table_it_names(
    server_url: str, new_page: Any
) -> None:
    """Bob opens Ann's table from the invite's notice (its link: /t/CODE, docs/push.md): the
    page shows that table, so the invite is seen, not offered again over it as "Join"."""
    ann, bob = new_page("ann", 1366, 657), new_page("bob", 390, 844, mobile=True)
    username = f"bobn.{int(time.time() * 1000) % 10**8}"
    bob_id = _ann_and_claimed_bob(server_url, ann, bob, username)
    assert _call(ann, "POST", "/api/friends/requests", {"username": username})["status"] == 201
    ann_id = _call(ann, "GET", "/api/me")["body"]["profile"]["id"]
    assert _call(bob, "POST", f"/api/friends/requests/{ann_id}/accept")["status"] == 200
    code = _call(ann, "POST", "/api/tables", {"name": "Ann", "players": 4})["body"]["code"]
    open_ready(bob, server_url)
    sent = _call(ann, "POST", "/api/friends/invites", {"id": bob_id, "table": code})
    assert sent["status"] == 201
    bob.locator("[data-testid=friend-invite]").wait_for()  # (on the home page: Join)
    bob.goto(f"{server_url}/t/{code}")
    bob.locator("#lobby:not([hidden])").wait_for()
    bob.wait_for_function(
        "async () => (await (await fetch('/api/friends/invites')).json()).invites.length === 0"
    )
    assert bob.locator("[data-testid=friend-invite]").count() == 0
    SHOTS.whole(bob, "invite-opened-from-notice-390x844")
