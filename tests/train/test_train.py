"""The trainer: a few seconds of Deep Monte-Carlo on a local Ray with a tiny network, then
the same run resumed; the exported weights play as the learned bot. Plus the parts that
need no Ray: samples, rollout labels, the export of the torch model to the numpy bot."""

from __future__ import annotations

import csv
import json
import os
import random
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ray = pytest.importorskip("ray")

import fouronefour as ff  # noqa: E402
from fouronefour.bots.features import ACTION_SIZE, STATE_SIZE, Features  # noqa: E402
from fouronefour.bots.learned import LearnedBot, QNetwork  # noqa: E402
from fouronefour.train.model import QModel  # noqa: E402
from fouronefour.train.selfplay import EpisodeConfig, play_rounds, rollout_values  # noqa: E402
from fouronefour.train.trainer import TrainConfig, train  # noqa: E402


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One Ray session for the module: starting Ray takes seconds."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _arrays(model: QModel) -> dict[str, object]:
    arrays: dict[str, object] = dict(model.to_arrays())
    arrays["meta"] = np.array(json.dumps({"feature_version": 1, "players": [4]}))
    return arrays


def test_the_exported_network_scores_as_the_torch_one() -> None:
    torch.manual_seed(0)
    model = QModel((24, 12))
    network = QNetwork.from_arrays(_arrays(model))
    r = ff.Round.from_hands(["33456", "789TJ", "3QKA", "3BR"], leader=0, level="2")
    features = Features(r.view(0), r.legal_moves())
    actions = features.actions(r.legal_moves())
    with torch.no_grad():
        expected = model(
            torch.from_numpy(np.repeat(features.state[None], len(actions), 0)),
            torch.from_numpy(actions),
        ).numpy()
    assert np.allclose(network.scores(features.state, actions), expected, atol=1e-5)


def test_rounds_give_samples_with_their_team_values() -> None:
    samples = play_rounds(None, EpisodeConfig(greedy_share=0.0), rounds=2, seed=1)
    assert samples.states.shape == (len(samples), STATE_SIZE)
    assert samples.actions.shape == (len(samples), ACTION_SIZE)
    assert samples.rounds == 2 and samples.decisions > len(samples) / 2
    # Every value is a win or a loss worth 1 plus a quarter per caught opponent.
    assert set(np.abs(samples.returns).tolist()) <= {1.0, 1.25, 1.5}


def test_rollout_labels_play_every_move_in_one_world() -> None:
    r = ff.Round.from_hands(["3456", "789TJ", "33QA", "3BR"], leader=0, level="2")
    legal = r.legal_moves()
    values = rollout_values(r.view(0), legal, limit=20, rng=random.Random(2))
    assert [i for i, _ in values] == list(range(len(legal)))
    # Seat 0 can go out with its straight: in every world that wins for its team, and no
    # move does better; the values are centred on their mean.
    by_move = dict(values)
    assert by_move[legal.index("3456")] == max(by_move.values()) > 0
    assert abs(sum(by_move.values())) < 1e-9
    few = rollout_values(r.view(0), legal, limit=3, rng=random.Random(2))
    assert len(few) == 3


def test_train_resume_and_play(tmp_path: Path, local_ray: None) -> None:
    config = TrainConfig(
        out=tmp_path,
        minutes=3.0,  # a cap: the run stops at its samples
        samples=100,
        actors=1,
        hidden=(16,),
        batch=32,
        reuse=1.0,
        rounds_per_task=1,
        rollout_share=0.5,
        eval_every=3.0,
        eval_deals=1,
        checkpoint_every=1000.0,
    )
    first = train(config)
    assert first.counters.samples > 0 and first.counters.updates > 0
    assert first.updates_per_second > 0 and first.counters.cpu_hours > 0
    for name in ("checkpoint.pt", "learned.npz", "curve.csv", "curve.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    rows = list(csv.DictReader((tmp_path / "curve.csv").open()))
    # A point at the start and one at the end, at least.
    assert len(rows) >= 2 and float(rows[0]["samples"]) == 0
    assert float(rows[-1]["samples"]) == first.counters.samples

    config.resume = True
    config.samples = first.counters.samples + 100
    second = train(config)
    assert second.counters.samples > first.counters.samples
    assert second.counters.updates > first.counters.updates
    assert second.counters.seconds > first.counters.seconds
    more = list(csv.DictReader((tmp_path / "curve.csv").open()))
    assert len(more) > len(rows) and more[: len(rows)] == rows

    bot = LearnedBot(weights=str(tmp_path / "learned.npz"))
    assert bot.network.meta["samples"] == second.counters.samples
    assert bot.margin == config.margin
    r = ff.Round.from_hands(["33456", "789TJ", "3QKA", "3BR"], leader=0, level="2")
    assert bot.choose(r.view(0), r.legal_moves(), random.Random(0)) in r.legal_moves()


def test_without_the_train_extra_the_command_says_how_to_install_it() -> None:
    script = (
        "import sys; sys.modules['torch'] = None; sys.modules['ray'] = None; "
        "from fouronefour.cli import main; sys.exit(main(['train', '--minutes', '1']))"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 2
    assert "pip install 'fouronefour[train]'" in result.stderr


def test_export_sets_the_margin_the_bot_plays_with(tmp_path: Path) -> None:
    from fouronefour.bots.learned import save_weights
    from fouronefour.train.export import export

    save_weights(tmp_path / "run.npz", QModel((8,)).to_arrays(), {"players": [4], "samples": 7})
    export(tmp_path / "run.npz", 0.25, tmp_path / "shipped.npz")
    bot = LearnedBot(weights=str(tmp_path / "shipped.npz"))
    assert bot.margin == 0.25 and bot.network.meta["samples"] == 7


def test_export_declares_the_player_counts_the_bot_plays(tmp_path: Path) -> None:
    """Weights trained at 4 players play wherever export's --players says (they measured
    better than greedy there) and leave the other counts to the greedy rules."""
    from fouronefour.bots.learned import save_weights
    from fouronefour.train.export import export

    save_weights(tmp_path / "run.npz", QModel((8,)).to_arrays(), {"players": [4]})
    export(tmp_path / "run.npz", 0.0, tmp_path / "shipped.npz", players=(6, 2, 4, 3))
    bot = LearnedBot(weights=str(tmp_path / "shipped.npz"))
    assert bot.network.players == (2, 3, 4, 6)
    for players, fallback in ((6, False), (5, True)):
        rules = ff.Rules(players=players)
        hands, leader = ff.deal(rules, 1, 1)
        r = ff.Round.from_hands(hands, leader=leader, rules=rules)
        assert r.to_act is not None
        bot.choose(r.view(r.to_act), r.legal_moves(), random.Random(0))
        assert bot.fallback is fallback
    export(tmp_path / "run.npz", 0.0, tmp_path / "as-trained.npz")
    assert LearnedBot(weights=str(tmp_path / "as-trained.npz")).network.players == (4,)
    with pytest.raises(ValueError, match="from 2 to 8"):
        export(tmp_path / "run.npz", 0.0, tmp_path / "bad.npz", players=(1, 4))
    assert not (tmp_path / "bad.npz").exists()


def test_a_run_stopped_by_sigterm_keeps_its_checkpoint(tmp_path: Path, local_ray: None) -> None:
    """A plain kill stops training as Ctrl-C does: the run returns with a checkpoint."""
    config = TrainConfig(
        out=tmp_path, minutes=3.0, actors=1, hidden=(8,), batch=16, rounds_per_task=1
    )
    before = signal.getsignal(signal.SIGTERM)
    result = train(config, report=lambda elapsed, text: os.kill(os.getpid(), signal.SIGTERM))
    assert result.counters.seconds < 60
    assert QNetwork.load(tmp_path / "learned.npz").meta["samples"] == result.counters.samples
    assert signal.getsignal(signal.SIGTERM) is before
