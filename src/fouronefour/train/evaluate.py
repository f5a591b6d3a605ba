"""The learning curve's points: the network being trained, as the ``learned`` bot, against
another bot on paired deals (each deal played twice with the teams swapped, as
``fouronefour arena`` does), with a 95% Wilson interval.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from fouronefour import bots
from fouronefour.arena.stats import wilson
from fouronefour.bots.learned import LearnedBot, QNetwork
from fouronefour.engine import Round, Rules, deal


@dataclass(frozen=True, slots=True)
class Score:
    """Rounds won by the learned bot out of ``rounds``."""

    opponent: str
    wins: int
    rounds: int
    cpu_seconds: float

    @property
    def rate(self) -> float:
        return self.wins / self.rounds if self.rounds else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.rounds)


def evaluate(
    arrays: dict[str, Any], opponent: str, deals: int, seed: int, players: int = 4
) -> Score:
    """``deals`` deals, each played twice: the network's bot at the even seats, then odd."""
    start = time.process_time()
    rules = Rules(players=players)
    mine = LearnedBot(network=QNetwork.from_arrays(arrays))
    theirs = bots.get(opponent)
    wins = 0
    for index in range(deals):
        hands, leader = deal(rules, f"train-eval/{seed}", index + 1)
        for swapped in (0, 1):
            r = Round.from_hands(hands, leader=leader, level="2", rules=rules)
            rng = random.Random(f"train-eval/{seed}/{index}/{swapped}")
            while not r.is_over:
                seat = r.to_act
                assert seat is not None
                legal = r.legal_moves()
                bot = mine if seat % 2 == swapped else theirs
                r = r.apply(legal[0] if len(legal) == 1 else bot.choose(r.view(seat), legal, rng))
            wins += r.winning_team == swapped
    return Score(opponent, wins, 2 * deals, time.process_time() - start)


__all__ = ["Score", "evaluate"]
