"""Claim windows as frozen values (tables/windows.py): answered, held, run again, reopened."""

from __future__ import annotations

from fouronefour.engine import PASS
from fouronefour.server.tables.windows import Window, window_prompts

WINDOW = Window("hook", "7", "7", 0, False, [1, 2, 3], closes_at=10.0)


def test_an_answer_makes_a_new_window_and_a_written_one_stays_kept() -> None:
    answered = WINDOW.answered(2, "77", kept=True)
    assert WINDOW.answers == {} and not WINDOW.kept
    assert answered.answers == {2: "77"} and answered.kept
    assert answered.answered(1, PASS).kept  # (kept once, kept until it closes)
    assert window_prompts(answered) == {1: ("hook", ["77", PASS]), 3: ("hook", ["77", PASS])}
    assert not answered.decided() and answered.answered(1, PASS).decided()


def test_a_held_window_waits_and_runs_again_in_full() -> None:
    held = WINDOW.held()
    assert held.closes_at is None and held.running(50.0, 3.0).closes_at == 53.0
    assert WINDOW.running(50.0, 3.0) is WINDOW  # (a running window keeps its time)
