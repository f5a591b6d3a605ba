"""The ``fouronefour simulate`` command."""

from __future__ import annotations

import subprocess
import sys

import pytest

import fouronefour as ff
from fouronefour.cli import main
from fouronefour.simulate import simulate


def test_simulate_plays_whole_rounds_through_matches() -> None:
    result = simulate(ff.Rules(players=4), rounds=30, seed=1)
    assert result.rounds == 30
    assert result.decisions > 30 * 50  # a 27-card round takes many decisions
    assert result.decisions_per_second > 0


def test_simulate_is_deterministic() -> None:
    a = simulate(ff.Rules(players=3), rounds=5, seed=9)
    b = simulate(ff.Rules(players=3), rounds=5, seed=9)
    assert (a.decisions, a.matches_finished) == (b.decisions, b.matches_finished)


def test_console_script_prints_speed() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "fouronefour",
            "simulate",
            "--players",
            "4",
            "--rounds",
            "20",
            "--seed",
            "1",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    assert "rounds/s" in out and "decisions/s" in out and "20 rounds" in out


def test_invalid_rules_exit_with_a_reason(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", "--players", "1"])
    assert exit_info.value.code == 2
    assert "argument --players: must be 2 to 32, not 1" in capsys.readouterr().err


def test_every_deck_count_the_rules_accept_is_simulated(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["simulate", "--players", "2", "--decks", "16", "--rounds", "2"]) == 0
    assert "2 rounds" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", "--decks", "25"])
    assert exit_info.value.code == 2
    assert "argument --decks: must be 1 to 16, not 25" in capsys.readouterr().err
