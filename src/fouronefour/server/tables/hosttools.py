"""What only the host does to a running table: change its settings, pause and resume it
(docs/protocol.md sections 3 and 5). Seats the host changes are :mod:`.seating`'s.

Each is a pure step over a :class:`~.state.TableState` (tests/server/test_host_steps.py):
a pause holds the open claim window and end-of-round pause, resuming runs them again in
full; the table's timers follow (``Table.take``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import ErrorCode, TableError
from .model import Ack
from .settings import SETTING_KEYS
from .state import Step, TableState, check_host

if TYPE_CHECKING:
    from .core import TableCore as Table


def change_settings(state: TableState, actor: int | None, data: dict[str, Any]) -> Step:
    """Change the settings ``data`` names (the message's other fields are its own)."""
    check_host(state, actor)
    given = {key: value for key, value in data.items() if key in SETTING_KEYS}
    unknown = set(data) - SETTING_KEYS - {"type", "id"}
    if unknown:
        raise TableError(ErrorCode.BAD_OPTION, f"no setting {sorted(unknown)[0]!r}")
    if not given:
        raise TableError(ErrorCode.BAD_MESSAGE, f"name a setting: {', '.join(SETTING_KEYS)}")
    settings = state.settings.changed(given)
    event = {"type": "settings", "settings": settings.to_dict()}
    return Step(replace(state, settings=settings), (event,), row=True)


def pause(state: TableState, actor: int | None) -> Step:
    """Stop the table: timers, windows, the end-of-round pause and bots wait."""
    check_host(state, actor)
    if state.status != "playing":
        raise TableError(ErrorCode.WRONG_STATUS, "only a match being played can be paused")
    if state.paused:
        raise TableError(ErrorCode.WRONG_STATUS, "the table is paused already")
    pause_end = None if state.round_end is None else state.round_end.held()
    window = None if state.window is None else state.window.held()
    after = replace(state, paused=True, round_end=pause_end, window=window)
    return Step(after, ({"type": "paused", "paused": True},), row=True)


def resume(state: TableState, actor: int | None) -> Step:
    """Go on where the table stopped, every timer from its full length."""
    check_host(state, actor)
    if not state.paused:
        raise TableError(ErrorCode.WRONG_STATUS, "the table is not paused")
    pause_end, window = state.round_end, state.window  # (each runs again in full)
    if pause_end is not None:
        pause_end = pause_end.running(state.now, state.settings.round_pause_seconds)
    if window is not None:
        window = window.running(state.now, state.options.hook_seconds)
    after = replace(state, paused=False, round_end=pause_end, window=window)
    return Step(after, ({"type": "paused", "paused": False},), row=True)


class HostTools:
    """The host's tools as the table exposes them: each request a step it takes."""

    __slots__ = ("_table",)

    def __init__(self, table: Table) -> None:
        self._table = table

    def settings(self, actor: int | None, data: dict[str, Any]) -> Ack:
        return self._table.carry_out(lambda state: change_settings(state, actor, data))

    def pause(self, actor: int | None) -> Ack:
        return self._table.carry_out(lambda state: pause(state, actor))

    def resume(self, actor: int | None) -> Ack:
        return self._table.carry_out(lambda state: resume(state, actor))
