"""``learned``: a network trained by ``fouronefour train`` scores every legal move and the
bot plays the best one.

The network estimates, for the seat's state and one move (:mod:`fouronefour.bots.features`),
the value of the round for the seat's team if it plays that move (Deep Monte-Carlo, as
DouZero). Its first layer is split into a state part, computed once per decision, and an
action part per move (a shared trunk); the rest runs on all moves at once. Inference is
numpy only: the weights ship in the package as ``learned.npz`` (a few hundred KB) and
load on first use. The choice is a pure function of the view: ``rng`` is not used.

Weights say at which player counts they play (those they were trained at, or those the
export declared after measuring them there); at another count the bot plays the greedy
rules and says so in :attr:`LearnedBot.fallback`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from . import register
from .features import ACTION_SIZE, FEATURE_VERSION, STATE_SIZE, Features, Vector
from .greedy import GreedyBot

#: The weights that ship with the package.
WEIGHTS = Path(__file__).with_name("learned.npz")

Array = npt.NDArray[np.float32]


class WeightsError(ValueError):
    """Weights that this version of the bot cannot use."""


@dataclass(frozen=True, slots=True)
class QNetwork:
    """An MLP over (state, action) features, its first layer split in two."""

    state_weights: Array  # (STATE_SIZE, hidden)
    action_weights: Array  # (ACTION_SIZE, hidden)
    first_bias: Array
    layers: tuple[tuple[Array, Array], ...]  # the rest, (weights, bias); the last gives 1 value
    meta: dict[str, Any]

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, npt.NDArray[Any]]) -> QNetwork:
        missing = {"meta", "layer0_weight", "layer0_bias"} - set(arrays)
        if missing:
            raise WeightsError(f"these are no weights of the bot: no {sorted(missing)[0]!r}")
        try:
            meta = json.loads(str(arrays["meta"]))
        except ValueError:
            raise WeightsError("these are no weights of the bot: meta is not JSON") from None
        if not isinstance(meta, dict):
            raise WeightsError("these are no weights of the bot: meta is not a JSON object")
        if meta.get("feature_version") != FEATURE_VERSION:
            raise WeightsError(
                f"weights for feature version {meta.get('feature_version')}, "
                f"this bot computes version {FEATURE_VERSION}"
            )
        first = np.asarray(arrays["layer0_weight"], dtype=np.float32)
        if first.ndim != 2 or first.shape[0] != STATE_SIZE + ACTION_SIZE:
            raise WeightsError(
                f"weights take {first.shape[0]} inputs, the features are "
                f"{STATE_SIZE} + {ACTION_SIZE}"
            )
        layers = []
        index = 1
        while f"layer{index}_weight" in arrays:
            layers.append(
                (
                    np.asarray(arrays[f"layer{index}_weight"], dtype=np.float32),
                    np.asarray(arrays[f"layer{index}_bias"], dtype=np.float32),
                )
            )
            index += 1
        first_bias = np.asarray(arrays["layer0_bias"], dtype=np.float32)
        _check_shapes([(first, first_bias), *layers])
        return cls(
            state_weights=np.ascontiguousarray(first[:STATE_SIZE]),
            action_weights=np.ascontiguousarray(first[STATE_SIZE:]),
            first_bias=first_bias,
            layers=tuple(layers),
            meta=meta,
        )

    @classmethod
    def load(cls, path: str | Path) -> QNetwork:
        """The weights in the ``.npz`` file ``path``; :class:`WeightsError` (one line) for a
        file that cannot be read or holds no weights of this bot."""
        try:
            loaded = np.load(path, allow_pickle=False)
            if not isinstance(loaded, np.lib.npyio.NpzFile):  # (one .npy array)
                raise ValueError
            with loaded:
                arrays = dict(loaded)
        except OSError as error:
            raise WeightsError(f"cannot read weights {path}: {error.strerror or error}") from None
        except (ValueError, EOFError):  # (not an .npz: np.load takes it for a pickle)
            raise WeightsError(f"{path} is no .npz file of weights") from None
        try:
            return cls.from_arrays(arrays)
        except WeightsError as error:
            raise WeightsError(f"{path}: {error}") from None
        except (KeyError, ValueError, TypeError, IndexError):
            raise WeightsError(f"{path}: these are no weights of the bot") from None

    @property
    def players(self) -> tuple[int, ...]:
        """The player counts the weights play at (``meta["players"]``)."""
        return tuple(int(p) for p in self.meta.get("players", (4,)))

    def scores(self, state: Vector, actions: Vector) -> Array:
        """The estimated value of each row of ``actions`` in ``state``."""
        hidden = np.maximum(
            actions @ self.action_weights + (state @ self.state_weights + self.first_bias), 0.0
        )
        last = len(self.layers) - 1
        for index, (weights, bias) in enumerate(self.layers):
            hidden = hidden @ weights + bias
            if index < last:
                np.maximum(hidden, 0.0, out=hidden)
        result: Array = hidden[:, 0]
        return result


def _check_shapes(layers: Sequence[tuple[npt.NDArray[Any], npt.NDArray[Any]]]) -> None:
    """Each layer's (inputs, outputs) weights and (outputs,) bias, each layer's outputs the
    next one's inputs, one value at the end: otherwise a decision would fail mid-game."""
    inputs = layers[0][0].shape[0]
    for index, (weights, bias) in enumerate(layers):
        if weights.ndim != 2 or weights.shape[0] != inputs or bias.shape != weights.shape[1:]:
            raise WeightsError(f"these are no weights of the bot: layer {index} is misshapen")
        inputs = weights.shape[1]
    if inputs != 1:
        raise WeightsError("these are no weights of the bot: the last layer gives no one value")


def save_weights(
    path: str | Path, arrays: Mapping[str, npt.NDArray[Any]], meta: dict[str, Any]
) -> None:
    """Write weights in the bot's format: ``layer{i}_weight`` (inputs x outputs) and
    ``layer{i}_bias`` as float32, and ``meta`` as JSON (``feature_version``, ``players``)."""
    meta = {"feature_version": FEATURE_VERSION, **meta}
    data = {name: np.asarray(value, dtype=np.float32) for name, value in arrays.items()}
    np.savez_compressed(Path(path), meta=np.array(json.dumps(meta)), **data)  # type: ignore[arg-type]


@cache
def shipped_network() -> QNetwork:
    """The network in the package, loaded once."""
    return QNetwork.load(WEIGHTS)


#: Who may choose a tribute return.
RETURNS = ("greedy", "network")


class LearnedBot:
    """Plays the legal move the network values most. ``weights``: a ``.npz`` written by
    ``fouronefour train`` instead of the shipped one; ``network``: one already loaded;
    ``returns``: who picks a tribute's return card, ``"greedy"`` (the rule) or
    ``"network"`` (measured no better, docs/bots.md)."""

    name = "learned"

    def __init__(
        self,
        weights: str | None = None,
        network: QNetwork | None = None,
        margin: float | None = None,
        returns: str = "greedy",
    ) -> None:
        if returns not in RETURNS:
            raise ValueError(f"returns must be one of {', '.join(RETURNS)}, not {returns!r}")
        self.returns = returns
        self._weights = weights
        # Given weights are read at once, so that a bad file is refused when the bot is
        # named, before any game (docs/bots.md).
        if network is None and weights is not None:
            network = QNetwork.load(weights)
        self._network = network
        self._margin = margin
        self._greedy = GreedyBot()
        #: whether the last decision was left to the greedy rules (an unsupported count)
        self.fallback = False

    @property
    def network(self) -> QNetwork:
        if self._network is None:
            self._network = QNetwork.load(self._weights) if self._weights else shipped_network()
        return self._network

    @property
    def margin(self) -> float:
        """How much more than the greedy choice another move must be worth to be played
        (the weights' own setting unless given): an estimate's error should not replace a
        sound rule, as the search bot's ``confidence``."""
        if self._margin is None:
            return float(self.network.meta.get("margin", 0.0))
        return self._margin

    def scores(self, view: dict[str, Any], legal_moves: Sequence[str]) -> Array:
        """The network's value of each legal move (for hints and analysis)."""
        features = Features(view, legal_moves)
        return self.network.scores(features.state, features.actions(legal_moves))

    def choose(self, view: dict[str, Any], legal_moves: Sequence[str], rng: random.Random) -> str:
        network = self.network
        self.fallback = int(view["players"]) not in network.players
        if self.fallback or (view.get("decision") == "return" and self.returns == "greedy"):
            # A tribute return has no hidden information to weigh and training (round 1
            # of a match) never meets one: the greedy rule, as the search bot does.
            return self._greedy.choose(view, legal_moves, rng)
        if len(legal_moves) == 1:
            return legal_moves[0]
        features = Features(view, legal_moves)
        scores = network.scores(features.state, features.actions(legal_moves))
        best = int(np.argmax(scores))
        greedy = legal_moves.index(features.greedy)
        return legal_moves[best if scores[best] > scores[greedy] + self.margin else greedy]


register("learned", LearnedBot)

__all__ = ["WEIGHTS", "LearnedBot", "QNetwork", "WeightsError", "save_weights", "shipped_network"]
