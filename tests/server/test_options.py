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
        # (A shorter match is a club event's, never a request's: registry.create's goal.)
        ({"goal": "round"}, "a table made here plays the whole match"),
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


def test_a_shorter_match_reads_back_and_a_normal_table_stores_as_before() -> None:
    """An event's table (rules goal) stores and reads its goal; a normal table's stored and
    public options have no goal key at all, as before goals existed."""
    normal = TableOptions.from_request({"players": 4}, DEFAULTS)
    assert "goal" not in normal.to_dict() and "goal" not in normal.public()
    assert TableOptions.from_dict(normal.to_dict()).rules.goal == "match"
    event = TableOptions(Rules(players=4, goal="5"))
    assert event.public()["goal"] == "5"
    assert TableOptions.from_dict(event.to_dict()) == event
