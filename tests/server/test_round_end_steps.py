"""The end-of-round pause as pure steps (tables/roundend.py): ready, its end, and how
the host's pause, a handoff and away seats bear on it."""

from __future__ import annotations

from dataclasses import replace

from fouronefour.server.errors import ErrorCode
from fouronefour.server.tables.events import round_start_event
from fouronefour.server.tables.hosttools import pause, resume
from fouronefour.server.tables.roundend import counted_ready, end, ready
from fouronefour.server.tables.seating import fill_bots, hand_over
from fouronefour.server.tables.state import TableState

from .tablestates import NOW, a_round_end, a_table, refused


def a_pause(**changes: object) -> TableState:
    """Ann and Bob with two bots, at the end of their first round."""
    match, round_end = a_round_end()
    seats = fill_bots(a_table(), 0).state.seats
    state = a_table(status="playing", match=match, round_end=round_end, seats=seats)
    return replace(state, **changes)  # type: ignore[arg-type]


def test_the_players_say_ready_and_the_last_one_starts_the_next_round() -> None:
    state = a_pause()
    assert counted_ready(state.round_end, state.seats) == [2, 3]  # the bots
    first = ready(state, 0)
    assert first.events == ({"type": "ready", "seat": 0},) and first.state.round_end is not None
    assert first.state.round_end.ready == {0} and not first.new_prompts
    again = ready(first.state, 0)
    assert again.events == () and again.state == first.state  # nothing changes
    last = ready(first.state, 1)
    assert last.state.round_end is None and last.new_prompts and last.row
    start = round_start_event(state.match)
    assert last.events == ({"type": "ready", "seat": 1}, start)


def test_ready_is_refused_without_a_pause_or_while_the_host_pauses() -> None:
    assert refused(ready, a_table(status="playing"), 0) == ErrorCode.WRONG_STATUS
    assert refused(ready, a_pause(status="finished"), 0) == ErrorCode.WRONG_STATUS
    assert refused(ready, a_pause(paused=True), 0) == ErrorCode.PAUSED


def test_a_pause_that_runs_out_starts_the_next_round() -> None:
    state = a_pause()
    step = end(state)
    assert step.state.round_end is None and step.events == (round_start_event(state.match),)
    assert step.new_prompts and step.row


def test_an_away_player_counts_as_ready_and_a_newcomer_has_not_read_the_results() -> None:
    state = a_pause()
    away = replace(state, seats=(state.seats[0], state.seats[1].with_away(True), *state.seats[2:]))
    assert counted_ready(away.round_end, away.seats) == [1, 2, 3]
    assert ready(away, 0).state.round_end is None  # the last one needed
    bob_ready = ready(state, 1).state
    handed = hand_over(bob_ready, 1, "Cy", "hash-cy")
    assert handed.state.round_end is not None and handed.state.round_end.ready == frozenset()


def test_the_hosts_pause_holds_the_round_end_and_resuming_runs_it_in_full() -> None:
    state = a_pause()
    assert state.round_end.until == NOW + 15.0
    held = pause(state, 0).state
    assert held.round_end is not None and held.round_end.until is None
    later = replace(held, now=NOW + 100.0)
    going = resume(later, 0).state
    assert going.round_end is not None and going.round_end.until == NOW + 100.0 + 15.0
    assert going.round_end.ready == state.round_end.ready
