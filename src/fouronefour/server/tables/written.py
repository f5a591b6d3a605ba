"""What a table writes: a step's outcome as storage's :class:`~..storage.Change`, and the
table's seldom-changing row, both worked out from the state alone."""

from __future__ import annotations

from dataclasses import replace

from ..storage import Change, ChangeExtra, TableRow
from .state import Step, TableState

#: The key of the removed players' token hashes in the stored row's settings (never sent).
REMOVED_KEY = "removed"


def stored_row(state: TableState) -> TableRow:
    """The seldom-changing columns of the table's stored row, as ``state`` has them."""
    settings = state.settings.to_dict()
    if state.removed:  # (in the settings' JSON: a few hashes, no column of their own)
        settings[REMOVED_KEY] = sorted(state.removed)
    pause = state.round_end
    return TableRow(
        state.host_seat,
        settings,
        state.paused,
        0 if pause is None else pause.round_number,
    )


def step_change(step: Step, version: int) -> Change:
    """What ``step`` writes as the table's ``version``: its seats, match, moves and extras,
    and the row when the step changed it."""
    state = step.state
    extra = step.extra
    if step.row:
        extra = replace(extra or ChangeExtra(), row=stored_row(state))
    return Change(
        code=state.code,
        version=version,
        status=state.status,
        match_number=state.match_number,
        seats=step.seats,
        new_match=step.new_match,
        moves=step.moves,
        first_move_index=step.first_move_index,
        match_over=step.match_over,
        table_row=step.table_row,
        extra=extra,
    )


def unversioned_change(state: TableState, version: int, extra: ChangeExtra) -> Change:
    """Something nobody is shown (a handoff's secret hash), written at the table's
    current ``version``."""
    return Change(
        code=state.code,
        version=version,
        status=state.status,
        match_number=state.match_number,
        extra=extra,
    )
