"""A table read back after a restart, as pure steps (tables/restoring.py): no scheduler,
socket or database."""

from __future__ import annotations

import random
from dataclasses import replace

from fouronefour.engine import Match, Rules
from fouronefour.server.storage import StoredMatch, StoredSeat, StoredTable
from fouronefour.server.tables.restoring import restored_state, resumed_state
from fouronefour.server.tables.written import REMOVED_KEY, stored_row

from .tablestates import NOW, a_table

SEED = 5


def _first_round_played() -> list[str]:
    """The moves of a first round played at random to its end."""
    rng = random.Random(SEED)
    match = Match(Rules(), SEED)
    moves: list[str] = []
    while match.round_number == 1:
        move = rng.choice(match.round.legal_moves())
        moves.append(move)
        match = match.apply(move)
    return moves


def _stored(moves: list[str], **changes: object) -> StoredTable:
    seats = [StoredSeat(s, f"P{s}", "human", f"hash-{s}", None) for s in range(4)]
    stored = StoredTable(
        code="STEP01",
        options={"rules": Rules().to_dict()},
        host_seat=0,
        status="playing",
        version=40,
        match_number=1,
        seats=seats,
        match=StoredMatch(1, SEED, Rules().to_dict(), moves, False),
        settings={REMOVED_KEY: ["hash-gone"]},
        round_end=1,
    )
    return replace(stored, **changes)  # type: ignore[arg-type]


def test_a_table_comes_back_as_written_its_match_replayed_and_its_pause_held() -> None:
    moves = _first_round_played()
    state = restored_state(a_table(), _stored(moves))
    assert state.status == "playing" and state.match_number == 1
    assert state.move_count == len(moves)
    assert state.match is not None
    assert state.match.moves == Match.replay(Rules(), SEED, moves).moves
    assert [seat.name for seat in state.seats] == ["P0", "P1", "P2", "P3"]
    assert state.removed == frozenset({"hash-gone"})
    assert state.round_end is not None and state.round_end.until is None  # held
    # what it writes as its row is what it was read from
    assert stored_row(state).settings[REMOVED_KEY] == ["hash-gone"]


def test_once_resumed_the_pause_runs_again_in_full_unless_the_host_paused() -> None:
    held = restored_state(a_table(), _stored(_first_round_played()))
    running = resumed_state(held, [])
    assert running.round_end is not None
    assert running.round_end.until == NOW + held.settings.round_pause_seconds
    paused = restored_state(a_table(), _stored(_first_round_played(), paused=True))
    assert resumed_state(paused, []) == paused


def test_a_lobby_or_a_finished_table_resumes_unchanged() -> None:
    lobby = a_table()
    assert resumed_state(lobby, []) is lobby
    finished = restored_state(a_table(), _stored([], status="finished", round_end=0))
    assert resumed_state(finished, []) is finished
