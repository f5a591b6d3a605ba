"""The turn timer as pure steps (tables/turntimer.py): a turn's deadline and its end."""

from __future__ import annotations

from fouronefour.server.tables.model import SeatState
from fouronefour.server.tables.turntimer import TIMER_SLACK_SECONDS, early, turn_deadline, turn_over

from .tablestates import NOW, a_table

PLAYER = SeatState(1, "Bob", "human", "h", connections=1)


def test_a_human_turn_has_a_deadline_that_runs_on_until_the_turn_changes() -> None:
    assert turn_deadline(None, PLAYER, False, NOW, 30.0) == NOW + 30.0  # a new turn: full
    assert turn_deadline(NOW + 5.0, PLAYER, False, NOW, 30.0) == NOW + 5.0  # the same turn
    assert turn_deadline(NOW + 5.0, None, False, NOW, 30.0) is None  # a window, or no turn
    assert turn_deadline(None, PLAYER, True, NOW, 30.0) is None  # paused
    assert turn_deadline(None, PLAYER.with_away(True), False, NOW, 30.0) is None  # the bot's
    assert turn_deadline(None, SeatState(1, "Bot 2", "bot"), False, NOW, 30.0) is None


def test_a_timer_a_little_early_counts_and_one_for_an_earlier_deadline_waits() -> None:
    assert not early(NOW, NOW) and not early(NOW + TIMER_SLACK_SECONDS / 2, NOW)
    assert early(NOW + 1.0, NOW)


def test_a_turn_that_runs_out_leaves_its_player_away() -> None:
    state = a_table(status="playing")
    step = turn_over(state, 1)
    assert step.state.seats[1].away and step.state.seats[1].bot_controlled
    assert step.events == ({"type": "seat", **step.state.seats[1].public()},)
    assert step.events[0]["away"] and not step.row and step.seats == ()
    assert not state.seats[1].away
