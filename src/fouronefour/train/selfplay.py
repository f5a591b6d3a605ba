"""Episodes for Deep Monte-Carlo: rounds played through the engine by the current network,
each decision kept with the value the deciding seat's team got at the end of the round.

Numpy only (the network runs as the shipped bot runs it), so a rollout actor needs no
torch. Every seat decides from its own view, as a bot at the table does.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from fouronefour.bots.features import ACTION_SIZE, STATE_SIZE, Features
from fouronefour.bots.learned import QNetwork
from fouronefour.bots.search import candidates, rollout, rollout_move
from fouronefour.bots.worlds import read_view, sample_hands, situation
from fouronefour.engine import Round, Rules, deal

#: Decisions a round may take before it is abandoned (a round takes about 60-120).
ROUND_LIMIT = 1000


def round_value(r: Round, team: int) -> float:
    """A finished round's value for ``team``: a win is worth 1 and a quarter per caught
    opponent (the levels it gains), a loss the opposite; the search bot scores the same."""
    value = 1.0 + 0.25 * len(r.caught)
    return value if r.winning_team == team else -value


@dataclass
class Samples:
    """(state, action, return) triples; float16 to halve what travels and is kept."""

    states: npt.NDArray[np.float16]
    actions: npt.NDArray[np.float16]
    returns: npt.NDArray[np.float32]
    rounds: int = 0
    decisions: int = 0
    cpu_seconds: float = 0.0

    def __len__(self) -> int:
        return len(self.returns)


@dataclass
class EpisodeConfig:
    """How actors play: the table, exploration and the opponents' mix."""

    players: tuple[int, ...] = (4,)
    epsilon: float = 0.05  # chance of a uniformly random legal move (exploration)
    greedy_share: float = 0.5  # share of rounds in which one team is the greedy bot
    hooking: bool = True
    #: share of rounds whose decisions are labelled by rollouts instead of their return
    rollout_share: float = 0.0
    #: moves labelled per decision in such rounds (all of them if there are no more)
    rollout_moves: int = 8


@dataclass
class _Seat:
    states: list[npt.NDArray[np.float32]] = field(default_factory=list)
    actions: list[npt.NDArray[np.float32]] = field(default_factory=list)


def play_round(
    network: QNetwork | None, config: EpisodeConfig, rng: random.Random
) -> tuple[list[npt.NDArray[np.float32]], list[npt.NDArray[np.float32]], list[float], int]:
    """One round from a random deal. The learned seats are all seats (self-play) or one
    team against the greedy rules. Returns samples (state features, action features,
    value) and the number of decisions taken: in a round labelled by rollouts, some moves
    of every decision with more than one legal move, each with its rollout value; else
    the learned seats' chosen moves, each with the final value for the seat's team.
    ``network=None`` plays uniformly at random (a start)."""
    players = config.players[rng.randrange(len(config.players))]
    rules = Rules(players=players, hooking=config.hooking)
    hands, leader = deal(rules, rng.randrange(1 << 62), 1)
    r = Round.from_hands(hands, leader=leader, level="2", rules=rules)
    greedy_team = rng.randrange(2) if rng.random() < config.greedy_share else -1
    labelled = rng.random() < config.rollout_share
    labels: tuple[list[npt.NDArray[np.float32]], list[npt.NDArray[np.float32]], list[float]] = (
        [],
        [],
        [],
    )
    seats = [_Seat() for _ in range(players)]
    decisions = 0
    while not r.is_over and decisions < ROUND_LIMIT:
        seat = r.to_act
        assert seat is not None
        legal = r.legal_moves()
        decisions += 1
        if len(legal) == 1:
            r = r.apply(legal[0])
            continue
        greedy_seat = seat % 2 == greedy_team
        if greedy_seat and not labelled:
            r = r.apply(rollout_move(r))
            continue
        view = r.view(seat)
        features = Features(view, legal)
        actions = features.actions(legal)
        if greedy_seat:
            index = legal.index(features.greedy)
        elif network is None or rng.random() < config.epsilon:
            index = rng.randrange(len(legal))
        else:
            index = int(np.argmax(network.scores(features.state, actions)))
        if labelled and view["decision"] != "return":
            for move_index, value in rollout_values(view, legal, config.rollout_moves, rng):
                labels[0].append(features.state)
                labels[1].append(actions[move_index])
                labels[2].append(value)
        else:
            seats[seat].states.append(features.state)
            seats[seat].actions.append(actions[index])
        r = r.apply(legal[index])
    states, actions_taken, returns = labels
    if not r.is_over:
        return states, actions_taken, returns, decisions
    for seat, taken in enumerate(seats):
        value = round_value(r, seat % 2)
        states.extend(taken.states)
        actions_taken.extend(taken.actions)
        returns.extend([value] * len(taken.states))
    return states, actions_taken, returns, decisions


def rollout_values(
    view: dict[str, Any], legal: list[str], limit: int, rng: random.Random
) -> list[tuple[int, float]]:
    """Values of some legal moves in one world consistent with ``view``, less their mean:
    each move played, then the rest of the round by the greedy rules at every seat, as the
    search bot's rollouts (all moves when there are at most ``limit``, else the search's
    candidates and two more at random). All are played in the same world, so their
    differences are far less noisy than their values."""
    if len(legal) <= limit:
        chosen = list(range(len(legal)))
    else:
        index = {move: i for i, move in enumerate(legal)}
        chosen = [index[m] for m in candidates(view, legal, limit - 2)]
        others = [i for i in range(len(legal)) if i not in chosen]
        chosen.extend(rng.sample(others, min(2, len(others))))
    root = situation(view, sample_hands(read_view(view), rng))
    team = int(view["seat"]) % 2
    values = [rollout(root.apply(legal[i]), team) for i in chosen]
    # Centred on the decision's mean: how lucky the world is does not depend on the move,
    # and only the differences between moves decide which one is played.
    mean = sum(values) / len(values)
    return [(i, value - mean) for i, value in zip(chosen, values, strict=True)]


def play_rounds(
    arrays: dict[str, Any] | None, config: EpisodeConfig, rounds: int, seed: int
) -> Samples:
    """``rounds`` rounds with the network given as arrays (None: random play)."""
    start = time.process_time()
    network = None if arrays is None else QNetwork.from_arrays(arrays)
    rng = random.Random(seed)
    states: list[npt.NDArray[np.float32]] = []
    actions: list[npt.NDArray[np.float32]] = []
    returns: list[float] = []
    decisions = 0
    for _ in range(rounds):
        s, a, g, n = play_round(network, config, rng)
        states.extend(s)
        actions.extend(a)
        returns.extend(g)
        decisions += n
    return Samples(
        states=np.array(states, dtype=np.float16).reshape(-1, STATE_SIZE),
        actions=np.array(actions, dtype=np.float16).reshape(-1, ACTION_SIZE),
        returns=np.array(returns, dtype=np.float32),
        rounds=rounds,
        decisions=decisions,
        cpu_seconds=time.process_time() - start,
    )


__all__ = ["EpisodeConfig", "Samples", "play_round", "play_rounds", "round_value"]
