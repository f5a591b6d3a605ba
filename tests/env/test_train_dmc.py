"""examples/train_dmc.py runs: a few seconds of training and a tiny arena (needs torch)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("torch")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_dmc.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_dmc", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["train_dmc"] = module
    spec.loader.exec_module(module)
    return module


def test_training_loop_learns_and_the_agent_plays_as_a_bot() -> None:
    train_dmc = load_example()
    agent, stats = train_dmc.train(
        seconds=3, seed=1, tables=4, batch=64, updates_per_step=1.0, show_progress=False
    )
    assert stats.rounds > 0 and stats.updates > 0
    assert all(loss == loss for loss in stats.losses)  # no NaN
    summary = train_dmc.evaluate(agent, "random", pairs=2, seed=3)
    assert summary["rounds"] == 4
    assert summary["bots"][0]["bot"] == "dmc"
