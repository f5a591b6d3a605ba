"""Tables as their pure steps see them (tables/state.py), for the steps' own tests."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fouronefour.engine import Rules
from fouronefour.server.errors import ErrorCode, TableError
from fouronefour.server.tables.model import SeatState, TableOptions
from fouronefour.server.tables.settings import TableSettings
from fouronefour.server.tables.state import TableState

NOW = 1_000.0


def a_table(**changes: object) -> TableState:
    """A lobby of four: Ann hosts at seat 0, Bob at seat 1 (signed in), seats 2 and 3
    empty; each player connected once."""
    seats = (
        SeatState(0, "Ann", "human", "hash-ann", connections=1),
        SeatState(1, "Bob", "human", "hash-bob", connections=1, profile="p-bob"),
        SeatState(2),
        SeatState(3),
    )
    state = TableState(
        code="STEP01",
        options=TableOptions(Rules()),
        match_number=0,
        move_count=0,
        status="lobby",
        paused=False,
        settings=TableSettings(),
        trick_start=0,
        bots_only=False,
        analysing=False,
        seats=seats,
        now=NOW,
        host_seat=0,
        version=3,
    )
    return replace(state, **changes)  # type: ignore[arg-type]


def refused(step: object, *args: object) -> ErrorCode:
    """The code a step refuses ``args`` with (the state it was given is frozen: a refusal
    changes nothing by construction)."""
    with pytest.raises(TableError) as caught:
        step(*args)  # type: ignore[operator]
    return caught.value.code
