"""Clubs in the browser (docs/clubs.md): a club made from the home page, its invite link
opened by a second person, the chat wall and a name that is markup shown as text, the
admins' tools shown to the owner only, and the club's table link seating both at one
table, at 390x844 and 1366x657 with nothing cut off and no sideways scrolling. Each page
checked is photographed into test-artifacts/clubs/."""

from __future__ import annotations

from typing import Any

import pytest

from .pages import Shots, open_ready

SHOTS = Shots("clubs")
SIZES = [(390, 844), (1366, 657)]
NAME = "<img src=x onerror=alert(1)>Thursday"


def _seat(page: Any) -> tuple[str, Any]:
    """The table this page is at, and the seat its browser keeps for it."""
    page.wait_for_url("**/t/*")
    code = page.url.split("/t/")[1].split("#")[0]
    return code, page.evaluate(f"() => JSON.parse(localStorage.getItem('414.table.{code}'))")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_club_from_home_its_invite_link_wall_and_table(
    server_url: str, new_page: Any, width: int, height: int
) -> None:
    size = f"{width}x{height}"
    ann = new_page("ann", width, height)
    open_ready(ann, server_url)
    ann.click("[data-testid=home-clubs-open]")
    ann.locator("[data-testid=clubs-none]").wait_for()
    SHOTS.whole(ann, f"clubs-empty-{size}")
    ann.fill("[data-testid=club-create-name]", NAME)
    ann.click("[data-testid=club-create-submit]")
    ann.locator("[data-testid=club-name]", has_text="Thursday").wait_for()
    # The name is text: shown as typed, no element made of it.
    assert ann.inner_text("[data-testid=club-name]") == NAME
    assert ann.locator("[data-testid=club-name] img").count() == 0
    assert ann.url.split(server_url)[1].startswith("/c/")
    club_id = ann.url.split("/c/")[1]
    invite = ann.input_value("[data-testid=club-invite]")
    assert invite.startswith(f"{server_url}/c/join#invite=")
    assert ann.locator("[data-testid=club-settings]").is_visible()
    # One member is "1 member" (the language's singular), not "1 members".
    assert ann.inner_text("[data-testid=club-role]") == "Owner · 1 member"

    bob = new_page("bob", width, height)
    open_ready(bob, invite)
    bob.locator("[data-testid=club-join-name]", has_text="Thursday").wait_for()
    assert bob.inner_text("[data-testid=club-join-name]") == f"{NAME} · 1 member"
    SHOTS.whole(bob, f"club-join-{size}")
    bob.click("[data-testid=club-join]")
    bob.locator("[data-testid=club-member]").nth(1).wait_for()
    assert bob.inner_text("[data-testid=club-role]") == "Member · 2 members"
    # A member sees no admin's tools.
    assert bob.locator("[data-testid=club-kick]").count() == 0
    assert bob.locator("[data-testid=club-invite-new]").is_hidden()
    assert bob.locator("[data-testid=club-settings]").is_hidden()
    bob.fill("[data-testid=club-chat-text]", "<b>hello</b> club")
    bob.click("[data-testid=club-chat-send]")
    bob.locator(".club-chat-text", has_text="club").wait_for()
    assert bob.locator(".club-chat-text b").count() == 0
    SHOTS.whole(bob, f"club-member-{size}")

    ann.reload()
    ann.wait_for_selector("body[data-ready=true]")
    ann.locator(".club-chat-text", has_text="<b>hello</b> club").wait_for()
    assert ann.locator("[data-testid=club-member]").count() == 2
    for action in ("promote", "kick", "ban"):
        assert ann.locator(f"[data-testid=club-{action}]").count() == 1
    assert ann.locator("[data-testid=club-board] li").count() == 2
    # New members: each rating said to be provisional; no "0 of 0 won together".
    assert ann.locator(".club-provisional").count() == 2
    assert ann.locator(".club-among").count() == 0
    SHOTS.whole(ann, f"club-owner-{size}")
    # In the longest-worded languages too, nothing is cut.
    for language, owner in (("de", "Inhaber"), ("hi", "मालिक")):
        ann.select_option("#lang-select", language)
        ann.locator("[data-testid=club-role]", has_text=owner).wait_for()
        SHOTS.whole(ann, f"club-owner-{language}-{size}")
    ann.select_option("#lang-select", "en")
    ann.click("[data-testid=club-promote]")
    ann.locator(".club-role-admin").wait_for()

    # The club's table link: Ann makes the evening's table, Bob's link seats him there.
    ann.click("[data-testid=club-table]")
    code, seat = _seat(ann)
    assert seat["seat"] == 0
    ann.locator("#screen-table:not([hidden])").wait_for()
    open_ready(bob, f"{server_url}/c/{club_id}/table")
    bob_code, bob_seat = _seat(bob)
    assert (bob_code, bob_seat["seat"]) == (code, 1)
    bob.locator("#screen-table:not([hidden])").wait_for()
    SHOTS.whole(bob, f"club-table-{size}")
    # Back on the list: one club, with its role.
    open_ready(bob, f"{server_url}/clubs")
    bob.locator("[data-testid=club-link]").wait_for()
    assert bob.inner_text("[data-testid=club-link]") == NAME
    SHOTS.whole(bob, f"clubs-list-{size}")
