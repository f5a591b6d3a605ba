"""The bot levels in the browser: Practice and table creation offer every level by its name
in every language, weakest first, as the server's config lists them (bots.levels)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fouronefour.bots.levels import level_names

I18N = Path(__file__).resolve().parents[2] / "src" / "fouronefour" / "web" / "static" / "i18n"


@pytest.mark.parametrize("locale", ["en-GB", "de-DE", "it-IT", "hi-IN", "zh-CN"])
def test_every_bot_level_is_offered_by_name_in_every_language(
    server_url: str, new_page: Any, locale: str
) -> None:
    page = new_page(f"levels-{locale}", locale=locale)
    page.goto(server_url)
    page.wait_for_selector("body[data-ready=true]")
    config = page.evaluate("fetch('/api/config').then((r) => r.json())")
    levels = [level["name"] for level in config["levels"]]
    assert levels == level_names()
    strings = json.loads((I18N / f"{locale[:2]}.json").read_text(encoding="utf-8"))
    for picker in ("[data-testid=practice-bot]", "[data-testid=opt-bot]"):
        page.wait_for_function(
            f"document.querySelectorAll('{picker} > option').length === {len(levels)}"
        )
        offered = page.eval_on_selector_all(
            f"{picker} > option", "(options) => options.map((o) => [o.value, o.textContent])"
        )
        assert offered == [[name, strings[f"bot_{name}"]] for name in levels]
        others = page.eval_on_selector_all(f"{picker} optgroup option", "(o) => o.length")
        assert others == len(config["bots"]) - len(levels)  # every other bot, by name
    # a new table's bots, and Practice's, play the Strong level unless the person picks
    assert page.input_value("[data-testid=opt-bot]") == config["default_bot"] == "strong"
    assert page.input_value("[data-testid=practice-bot]") == "strong"
