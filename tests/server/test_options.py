"""A create request's rule options: read by the rules' own codec (Rules.from_dict, with its
messages), then held to what an online table may seat and deal."""

from __future__ import annotations

from typing import Any

import pytest

from fouronefour.engine import Rules
from fouronefour.server.errors import ErrorCode, TableError
from fouronefour.server.tables.model import ONLINE_MAX_DECKS, ONLINE_MAX_PLAYERS, TableOptions

DEFAULTS = TableOptions(Rules(players=4))


@pytest.mark.parametrize(
    ("request_options", "message"),
    [
        ({"players": 1}, "players must be 2 to 32, not 1"),
        ({"players": "4"}, "players must be an integer, not '4'"),
        ({"players": 13}, f"an online table seats 2 to {ONLINE_MAX_PLAYERS} players, not 13"),
        ({"players": 2, "decks": 9}, f"an online table deals 1 to {ONLINE_MAX_DECKS} decks, not 9"),
        ({"decks": 0}, "decks must be 1 to 16, not 0"),
        ({"hooking": "no"}, "hooking must be True or False, not 'no'"),
        ({"bomb_ladder": "tall"}, "bomb_ladder must be 'listed' or 'size', not 'tall'"),
    ],
)
def test_rule_options_are_refused_with_the_reason(
    request_options: dict[str, Any], message: str
) -> None:
    with pytest.raises(TableError) as refused:
        TableOptions.from_request(request_options, DEFAULTS)
    assert refused.value.code == ErrorCode.BAD_OPTION
    assert refused.value.message == message


def test_decks_follow_the_players_unless_given() -> None:
    assert TableOptions.from_request({"players": 6}, DEFAULTS).rules == Rules(players=6)
    assert TableOptions.from_request({"players": 6, "decks": None}, DEFAULTS).rules.decks == 3
    assert TableOptions.from_request({"players": 6, "decks": 2}, DEFAULTS).rules.decks == 2
    largest = {"players": ONLINE_MAX_PLAYERS, "decks": ONLINE_MAX_DECKS}
    assert TableOptions.from_request(largest, DEFAULTS).rules.players == ONLINE_MAX_PLAYERS


def test_stored_options_read_back() -> None:
    options = TableOptions.from_request({"players": 6, "tribute": False}, DEFAULTS)
    assert TableOptions.from_dict(options.to_dict()) == options
