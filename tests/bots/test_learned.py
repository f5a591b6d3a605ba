"""The learned bot: its features read the seat's view only, its network scores every legal
move as a plain MLP would, and the shipped weights load without torch or ray and play
legal moves at every table size."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import fouronefour as ff
from fouronefour import bots
from fouronefour.bots.features import (
    ACTION_SIZE,
    KINDS,
    STATE_SIZE,
    Features,
    beaters,
    move_shape,
)
from fouronefour.bots.greedy import GreedyBot
from fouronefour.bots.learned import WEIGHTS, LearnedBot, QNetwork, WeightsError, save_weights
from fouronefour.engine import deal
from fouronefour.engine.cards import parse_ranks

from .helpers import random_decisions

#: Action feature columns after the move's shape (see Features.action).
GREEDY_COLUMN = len(move_shape("pass", 0))
GOES_OUT_COLUMN = GREEDY_COLUMN + 3


def _network(rng: np.random.Generator, hidden: tuple[int, ...] = (16, 8)) -> dict[str, object]:
    sizes = [STATE_SIZE + ACTION_SIZE, *hidden, 1]
    arrays: dict[str, object] = {}
    for index, (a, b) in enumerate(itertools.pairwise(sizes)):
        arrays[f"layer{index}_weight"] = rng.normal(size=(a, b)).astype(np.float32)
        arrays[f"layer{index}_bias"] = rng.normal(size=b).astype(np.float32)
    arrays["meta"] = np.array(json.dumps({"feature_version": 1, "players": [4]}))
    return arrays


def _one_feature_network(column: int) -> QNetwork:
    """A network whose value is the action feature ``column`` (through one ReLU unit)."""
    first = np.zeros((STATE_SIZE + ACTION_SIZE, 1), dtype=np.float32)
    first[STATE_SIZE + column, 0] = 1.0
    return QNetwork.from_arrays(
        {
            "layer0_weight": first,
            "layer0_bias": np.zeros(1, dtype=np.float32),
            "layer1_weight": np.ones((1, 1), dtype=np.float32),
            "layer1_bias": np.zeros(1, dtype=np.float32),
            "meta": np.array(json.dumps({"feature_version": 1, "players": [2, 3, 4, 5, 6]})),
        }
    )


def test_the_state_shows_the_hand_the_unseen_cards_and_the_table() -> None:
    r = ff.Round.from_hands(["33456", "789TJ", "3QKA", "3BR"], leader=0, level="2")
    r = r.apply("456")  # seat 1 to follow a straight
    view = r.view(1)
    features = Features(view, r.legal_moves())
    state = features.state
    assert state.shape == (STATE_SIZE,)
    # Hand, ranks in power order at level 2 (3 is power 0, 7 power 4): 5 values a rank.
    hand = state[: 15 * 5].reshape(15, 5)
    assert hand[4].tolist()[:4] == [1, 0, 0, 0]  # one 7
    assert hand[0].tolist()[:4] == [0, 0, 0, 0]  # no 3
    # Unseen: 8 threes in two decks, less the three 3s of seats 0, 2 and 3 that seat 1
    # cannot see... it sees none of them, and the 456 played is gone from the 4s.
    unseen = state[15 * 5 : 30 * 5].reshape(15, 5)
    assert unseen[0, 4] == pytest.approx(8 / 8)
    assert unseen[1, 4] == pytest.approx(7 / 8)
    assert features.unseen[ff.engine.cards.INDEX["4"]] == 7
    assert features.greedy == GreedyBot().choose(view, r.legal_moves(), random.Random(0))


def test_features_depend_on_the_view_only() -> None:
    """Two rounds that differ only in the cards the seat cannot see give the same
    features, decision after decision."""
    rules = ff.Rules(players=4)
    hands, leader = deal(rules, 5, 1)
    swapped = [hands[0], hands[3], hands[2], hands[1]]  # seat 0 sees neither 1 nor 3
    a = ff.Round.from_hands(hands, leader=0, rules=rules)
    b = ff.Round.from_hands(swapped, leader=0, rules=rules)
    fa = Features(a.view(0), a.legal_moves())
    fb = Features(b.view(0), b.legal_moves())
    assert np.array_equal(fa.state, fb.state)
    assert np.array_equal(fa.actions(a.legal_moves()), fb.actions(b.legal_moves()))
    del leader


@pytest.mark.parametrize("players", range(2, 9))
def test_features_have_one_size_at_every_table_size(players: int) -> None:
    rules = ff.Rules(players=players)
    rng = random.Random(players)
    for r in random_decisions(rules, players, rng, limit=200):
        seat = r.to_act
        assert seat is not None
        legal = r.legal_moves()
        features = Features(r.view(seat), legal)
        actions = features.actions(legal)
        assert features.state.shape == (STATE_SIZE,)
        assert actions.shape == (len(legal), ACTION_SIZE)
        assert np.isfinite(features.state).all() and np.isfinite(actions).all()
        assert features.state.min() >= 0.0 and features.state.max() <= 2.0


def test_move_shape_and_beaters() -> None:
    straight = move_shape("345", 0)
    assert straight[KINDS.index("straight")] == 1.0
    assert move_shape("pass", 0)[KINDS.index("pass")] == 1.0
    assert move_shape("44A", 0)[KINDS.index("414")] == 1.0
    assert move_shape("BR", 0)[KINDS.index("double_joker")] == 1.0
    assert move_shape("7777", 0)[KINDS.index("bomb")] == 1.0
    unseen = parse_ranks("2AAKB")
    # At level 2: a K single is beaten by A, 2 and B (three ranks); a K pair by A only.
    assert beaters("K", unseen, 0) == 3
    assert beaters("KK", unseen, 0) == 1
    assert beaters("R", unseen, 0) == 0
    # A straight to 7 is beaten by windows ending at 8 or later that the unseen cards fill.
    assert beaters("567", parse_ranks("6789T"), 0) == 3
    assert beaters("3333", parse_ranks("44445"), 0) == 1


def test_scores_are_the_mlp_of_state_and_move() -> None:
    rng = np.random.default_rng(3)
    arrays = _network(rng)
    network = QNetwork.from_arrays(arrays)
    r = ff.Round.from_hands(["33456", "789TJ", "3QKA", "3BR"], leader=0, level="2")
    features = Features(r.view(0), r.legal_moves())
    actions = features.actions(r.legal_moves())
    scores = network.scores(features.state, actions)
    inputs = np.concatenate([np.repeat(features.state[None], len(actions), 0), actions], 1)
    hidden = np.maximum(inputs @ arrays["layer0_weight"] + arrays["layer0_bias"], 0)
    hidden = np.maximum(hidden @ arrays["layer1_weight"] + arrays["layer1_bias"], 0)
    expected = (hidden @ arrays["layer2_weight"] + arrays["layer2_bias"])[:, 0]
    assert np.allclose(scores, expected, rtol=1e-4, atol=1e-4)
    bot = LearnedBot(network=network)
    move = bot.choose(r.view(0), r.legal_moves(), random.Random(0))
    assert move == r.legal_moves()[int(np.argmax(expected))]


def test_the_bot_plays_the_move_its_network_values_most() -> None:
    """A network that values the greedy choice plays as greedy; one that values going
    out goes out."""
    rules = ff.Rules(players=4)
    copycat = LearnedBot(network=_one_feature_network(GREEDY_COLUMN))
    greedy = GreedyBot()
    for r in random_decisions(rules, 11, random.Random(2), limit=150):
        seat = r.to_act
        assert seat is not None
        view, legal = r.view(seat), r.legal_moves()
        assert copycat.choose(view, legal, random.Random(0)) == greedy.choose(
            view, legal, random.Random(0)
        )
    finisher = LearnedBot(network=_one_feature_network(GOES_OUT_COLUMN))
    r = ff.Round.from_hands(["345", "789TJ", "3QKA", "3BR"], leader=0, level="2")
    assert finisher.choose(r.view(0), r.legal_moves(), random.Random(0)) == "345"


def test_unsupported_player_counts_fall_back_to_greedy() -> None:
    bot = LearnedBot(network=_one_feature_network(GOES_OUT_COLUMN))  # trained for 2-6
    rules = ff.Rules(players=7)
    hands, leader = deal(rules, 1, 1)
    r = ff.Round.from_hands(hands, leader=leader, rules=rules)
    seat = r.to_act
    assert seat is not None
    move = bot.choose(r.view(seat), r.legal_moves(), random.Random(0))
    assert bot.fallback
    assert move == GreedyBot().choose(r.view(seat), r.legal_moves(), random.Random(0))


def test_weights_of_another_feature_version_are_refused(tmp_path: Path) -> None:
    arrays = _network(np.random.default_rng(1))
    weights = {k: v for k, v in arrays.items() if k != "meta"}
    save_weights(tmp_path / "w.npz", weights, {"players": [4]})  # type: ignore[arg-type]
    assert QNetwork.load(tmp_path / "w.npz").players == (4,)
    arrays["meta"] = np.array(json.dumps({"feature_version": 0, "players": [4]}))
    with pytest.raises(WeightsError, match="feature version"):
        QNetwork.from_arrays(arrays)  # type: ignore[arg-type]


def test_bad_weights_are_refused_when_the_bot_is_named(tmp_path: Path) -> None:
    """docs/bots.md: everything is checked before a game is played. A missing file used to
    fail only once a game asked for a move, a text file with numpy's "pickled data", weights
    of the wrong shapes in the middle of a decision."""
    from fouronefour.arena.spec import BotSpec

    arrays = _network(np.random.default_rng(1))
    arrays["layer1_weight"] = np.zeros((3, 8), dtype=np.float32)  # takes 3, gets 16
    weights = {k: v for k, v in arrays.items() if k != "meta"}
    save_weights(tmp_path / "misshapen.npz", weights, {"players": [4]})  # type: ignore[arg-type]
    (tmp_path / "text.npz").write_text("root:x:0:0:root:/root:/bin/bash\n")
    for path, said in (
        (tmp_path / "none.npz", "cannot read weights .*: No such file"),
        (tmp_path / "text.npz", "is no .npz file of weights"),
        (tmp_path / "misshapen.npz", "layer 1 is misshapen"),
    ):
        with pytest.raises(ValueError, match=f"^bot 'learned': .*{said}"):
            BotSpec.parse(f"learned:weights={path}")


def test_the_shipped_weights_are_small_and_registered() -> None:
    assert "learned" in bots.names()
    assert WEIGHTS.stat().st_size < 5_000_000
    network = bots.get("learned").network  # type: ignore[attr-defined]
    assert 4 in network.players
    # docs/bots.md: measured against greedy at each of these counts, greedy at the others
    assert network.players == (2, 3, 4, 6)


def test_the_shipped_bot_plays_without_torch_or_ray() -> None:
    """In a fresh interpreter where importing torch or ray fails, the installed package's
    learned bot plays whole random rounds at 2 to 8 players: legal moves, the same move for
    the same view whatever the rng, greedy's at counts its weights were not trained for."""
    script = textwrap.dedent(
        """
        import random, sys
        sys.modules["torch"] = None  # any import of torch or ray now raises ImportError
        sys.modules["ray"] = None
        import fouronefour as ff
        from fouronefour import bots
        from fouronefour.bots.greedy import GreedyBot
        from fouronefour.engine import deal

        bot = bots.get("learned")
        supported = set(bot.network.players)
        for players in range(2, 9):
            rules = ff.Rules(players=players)
            hands, leader = deal(rules, players, 1)
            r = ff.Round.from_hands(hands, leader=leader, rules=rules)
            rng = random.Random(players)
            while not r.is_over:
                seat = r.to_act
                view, legal = r.view(seat), r.legal_moves()
                move = bot.choose(view, legal, rng)
                assert move in legal, (players, move, legal)
                assert bot.choose(view, legal, random.Random(99)) == move
                assert bot.fallback == (players not in supported)
                if bot.fallback:
                    assert move == GreedyBot().choose(view, legal, rng)
                r = r.apply(move)
        assert "torch" not in sys.modules or sys.modules["torch"] is None
        print("ok", sorted(supported))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok")


def test_a_margin_keeps_the_greedy_choice_unless_another_move_is_worth_more() -> None:
    hoarder = _one_feature_network(GREEDY_COLUMN + 4)  # values the cards a move leaves
    r = ff.Round.from_hands(["33456", "789TJ", "3QKA", "3BR"], leader=0, level="2")
    view, legal = r.view(0), r.legal_moves()
    greedy = GreedyBot().choose(view, legal, random.Random(0))
    assert greedy != "3"
    assert LearnedBot(network=hoarder, margin=0.0).choose(view, legal, random.Random(0)) == "3"
    strict = LearnedBot(network=hoarder, margin=1.0)  # a single leaves at most 4/27 more
    assert strict.choose(view, legal, random.Random(0)) == greedy


def test_tribute_returns_are_the_greedy_rule() -> None:
    strongest = len(KINDS) + 2  # the move's strongest card: it would give back its best
    bot = LearnedBot(network=_one_feature_network(strongest))
    r = ff.Round.from_hands(
        ["345", "AKQ2", "678", "9TJB"], level="4", previous_finished=[0, 2], previous_caught=[1, 3]
    )
    seat = r.to_act
    assert seat is not None and r.view(seat)["decision"] == "return"
    view, legal = r.view(seat), r.legal_moves()
    greedy = GreedyBot().choose(view, legal, random.Random(0))
    best = legal[int(np.argmax(bot.scores(view, legal)))]
    assert best != greedy
    assert bot.choose(view, legal, random.Random(0)) == greedy
    # returns=network (measured no better, docs/bots.md) lets the network choose.
    chooser = LearnedBot(network=_one_feature_network(strongest), returns="network")
    assert chooser.choose(view, legal, random.Random(0)) == best


@pytest.mark.parametrize("returns", ["", "rule", 1])
def test_an_unknown_returns_choice_is_refused(returns: object) -> None:
    with pytest.raises(ValueError, match="returns must be one of greedy, network"):
        LearnedBot(returns=returns)  # type: ignore[arg-type]
