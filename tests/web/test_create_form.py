"""The create form offers what the server accepts: its rule options come from
GET /api/config (limits, choices, defaults), not from a second list in the page."""

from __future__ import annotations

from typing import Any


def test_the_create_form_is_built_from_the_servers_config(server_url: str, new_page: Any) -> None:
    page = new_page("create-form", width=1366, height=657)
    page.goto(server_url)
    page.wait_for_selector("body[data-ready=true]")
    config = page.evaluate("fetch('/api/config').then((r) => r.json())")
    limits, choices, defaults = config["limits"], config["choices"], config["defaults"]
    decks = [str(n) for n in range(1, limits["max_decks"] + 1)]
    page.wait_for_function(
        f"document.querySelectorAll('[data-testid=opt-decks] option').length === {len(decks) + 1}"
    )
    values = "(options) => options.map((o) => o.value)"
    assert page.eval_on_selector_all("[data-testid=opt-decks] option", values) == ["", *decks]
    assert page.get_attribute("[data-testid=opt-players]", "max") == str(limits["max_players"])
    assert page.get_attribute("[data-testid=opt-players]", "min") == str(limits["min_players"])
    assert (
        page.eval_on_selector_all("[data-testid=opt-ladder] option", values)
        == choices["bomb_ladder"]
    )
    assert (
        page.eval_on_selector_all("[data-testid=opt-windows] option", values)
        == choices["hook_mode"]
    )
    assert page.input_value("[data-testid=opt-ladder]") == defaults["bomb_ladder"]
    assert page.input_value("[data-testid=opt-windows]") == defaults["hook_mode"]
    assert float(page.input_value("[data-testid=opt-timer]")) == defaults["turn_seconds"]
    assert page.is_checked("[data-testid=opt-hooking]") is defaults["hooking"]
    assert page.is_checked("[data-testid=opt-tribute]") is defaults["tribute"]
    # every option a person can pick is one the server takes: the largest table is created
    page.fill("[data-testid=name-input]", "Host")
    page.fill("[data-testid=opt-players]", str(limits["max_players"]))
    page.select_option("[data-testid=opt-decks]", decks[-1])
    page.click("[data-testid=create-table]")
    page.wait_for_url("**/t/*")
