"""examples/train_dmc.py runs: a few seconds of training and a tiny arena (needs torch)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

torch = pytest.importorskip("torch")

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
    torch.set_num_threads(1)  # threads spinning on a shared 2-core machine slow it to a crawl
    agent, stats = train_dmc.train(
        seconds=60,
        seed=1,
        tables=4,
        batch=64,
        updates_per_step=1.0,
        show_progress=False,
        max_rounds=4,
    )
    assert stats.rounds >= 4 and stats.updates > 0
    assert all(loss == loss for loss in stats.losses)  # no NaN
    summary = train_dmc.evaluate(agent, "random", pairs=2, seed=3)
    assert summary["rounds"] == 4
    assert summary["bots"][0]["bot"] == "dmc"
