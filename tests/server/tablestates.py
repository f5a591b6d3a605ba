"""Tables as their pure steps see them (tables/state.py), for the steps' own tests."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from fouronefour.engine import Match, Rules
from fouronefour.server.errors import ErrorCode, TableError
from fouronefour.server.tables.model import RoundEnd, SeatState, TableOptions
from fouronefour.server.tables.play import play
from fouronefour.server.tables.roundend import pause_after
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


def a_round_end(seed: int = 5) -> tuple[Match, RoundEnd]:
    """A match whose first round was played at random to its end, and the pause after it
    (of 15 s from :data:`NOW`)."""
    rng = random.Random(seed)
    match = Match(Rules(), seed)
    while True:
        r = match.round
        assert r.to_act is not None and r.decision is not None
        prompt = (str(r.decision), r.legal_moves())
        played = play(match, r.to_act, prompt, rng.choice(prompt[1]), 1)
        if played.ended:
            pause = pause_after(match, [played.chosen], played.after, 15.0, False, 0, NOW)
            assert pause is not None
            return played.after, pause
        match = played.after


def refused(step: object, *args: object, **keywords: object) -> ErrorCode:
    """The code a step refuses ``args`` with (the state it was given is frozen: a refusal
    changes nothing by construction)."""
    with pytest.raises(TableError) as caught:
        step(*args, **keywords)  # type: ignore[operator]
    return caught.value.code
