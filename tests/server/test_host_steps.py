"""The host's tools as pure steps (tables/hosttools.py): settings, pause and resume."""

from __future__ import annotations

from fouronefour.server.errors import ErrorCode
from fouronefour.server.tables.hosttools import change_settings, pause, resume
from fouronefour.server.tables.settings import TableSettings

from .tablestates import a_table, refused


def test_the_host_changes_the_settings_it_names() -> None:
    state = a_table()
    step = change_settings(state, 0, {"type": "settings", "id": "4", "spectator_chat": True})
    assert step.state.settings == TableSettings(spectator_chat=True)
    assert step.events == ({"type": "settings", "settings": step.state.settings.to_dict()},)
    assert step.row and step.extra is None and state.settings == TableSettings()
    assert refused(change_settings, state, 1, {"spectator_chat": True}) == ErrorCode.NOT_HOST
    assert refused(change_settings, state, 0, {"type": "settings"}) == ErrorCode.BAD_MESSAGE
    assert refused(change_settings, state, 0, {"colour": "red"}) == ErrorCode.BAD_OPTION
    too_long = {"round_pause_seconds": 1_000}
    assert refused(change_settings, state, 0, too_long) == ErrorCode.BAD_OPTION


def test_the_host_pauses_a_match_being_played_and_goes_on() -> None:
    playing = a_table(status="playing")
    paused = pause(playing, 0)
    assert paused.state.paused and paused.row
    assert paused.events == ({"type": "paused", "paused": True},)
    going = resume(paused.state, 0)
    assert not going.state.paused and going.events == ({"type": "paused", "paused": False},)
    assert refused(pause, paused.state, 0) == ErrorCode.WRONG_STATUS  # paused already
    assert refused(pause, a_table(), 0) == ErrorCode.WRONG_STATUS  # no match
    assert refused(pause, playing, 1) == ErrorCode.NOT_HOST
    assert refused(resume, playing, 0) == ErrorCode.WRONG_STATUS  # not paused
    assert refused(resume, paused.state, 2) == ErrorCode.NOT_HOST
