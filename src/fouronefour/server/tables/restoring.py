"""A table read back after a restart, as pure steps: its state from what was written
(:func:`restored_state`), then, once its timers may run, what was pending offered again
(:func:`resumed_state`)."""

from __future__ import annotations

from dataclasses import replace

from ..storage import StoredClaim, StoredTable
from .handoff import pending
from .model import SeatState, Status
from .roundend import replay, restored
from .state import TableState, with_seats
from .windows import reopened
from .written import REMOVED_KEY


def restored_state(fresh: TableState, stored: StoredTable) -> TableState:
    """``fresh`` (a new table's state with the stored options) as ``stored`` says it was:
    its seats, status, pause, removed players, handoffs, and the match replayed from its
    seed and moves, its end-of-round pause held again."""
    status: Status = stored.status  # type: ignore[assignment]  # written by the table
    seats = (SeatState.restored(record) for record in stored.seats)
    state = replace(
        with_seats(fresh, *seats),
        status=status,
        match_number=stored.match_number,
        paused=stored.paused and status == "playing",
        removed=frozenset(stored.settings.get(REMOVED_KEY, ())),
        handoffs=pending(stored.handoffs),
    )
    if stored.match is None:
        return state
    replayed = replay(fresh.options.rules, stored.match.seed, stored.match.moves)
    return replace(
        state,
        match=replayed.match,
        move_count=len(stored.match.moves),
        trick_start=replayed.trick_start,
        round_end=restored(replayed, stored.round_end) if status == "playing" else None,
    )


def resumed_state(state: TableState, claims: list[StoredClaim]) -> TableState:
    """``state`` (restored, its time now) with its pending decisions offered again from
    full-length timers: the end-of-round pause running, or the claim window open again
    with the answers it had (acknowledged and written, so they still count)."""
    match = state.match
    if state.status != "playing" or match is None:
        return state
    pause = state.round_end
    if pause is not None:
        if state.paused:
            return state
        running = pause.running(state.now, state.settings.round_pause_seconds)
        return replace(state, round_end=running)
    closes_at = None if state.paused else state.now + state.options.hook_seconds
    window = reopened(match.round, closes_at)
    if window is not None:
        for claim in claims:
            if (claim.match_number, claim.idx) == (state.match_number, state.move_count):
                window = window.answered(claim.seat, claim.answer, kept=True)
    return replace(state, window=window)
