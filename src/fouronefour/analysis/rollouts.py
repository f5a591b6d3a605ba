"""Rollouts: a position played to the end of its round by a policy for every seat.

A policy is any callable ``policy(round, rng) -> move`` for the round's seat to act. The
default is the greedy bot's rules read straight from the round (the search bot's rollouts:
no views built, the choices cached), about 1 ms for half a round of 4 players. Any bot
can be used through :func:`bot_policy` (it then gets the acting seat's view of the
sampled position, whose log is empty: a position is rebuilt from the public state of the
trick, not from the history).
"""

from __future__ import annotations

import random
from typing import Protocol

from fouronefour.bots import Bot
from fouronefour.bots.search import rollout_move
from fouronefour.engine import Round

#: A rollout stops after this many decisions per card in play (no sane policy gets near:
#: a 4-player round takes 80-150 decisions over 108 cards); it then counts as a draw.
STEPS_PER_CARD = 8


class RolloutPolicy(Protocol):
    def __call__(self, r: Round, rng: random.Random, /) -> str:
        """The move for ``r.to_act``, read from that seat's hand and public facts only."""
        ...


def greedy_policy(r: Round, rng: random.Random, /) -> str:
    """The greedy bot's choice (deterministic: ``rng`` is not used)."""
    return rollout_move(r)


def bot_policy(bot: Bot) -> RolloutPolicy:
    """A policy that asks ``bot`` with the acting seat's view (slower than the default)."""

    def policy(r: Round, rng: random.Random, /) -> str:
        legal = r.legal_moves()
        if len(legal) == 1:
            return legal[0]
        seat = r.to_act
        assert seat is not None
        return bot.choose(r.view(seat), legal, rng)

    return policy


def play_out(r: Round, team: int, policy: RolloutPolicy, rng: random.Random) -> float:
    """1.0 if ``team`` wins the round when every seat plays ``policy`` from ``r``, else
    0.0 (0.5 if the step limit is reached)."""
    limit = STEPS_PER_CARD * sum(r.card_counts())
    steps = 0
    while not r.is_over:
        if steps >= limit:
            return 0.5
        r = r.apply(policy(r, rng))
        steps += 1
    return 1.0 if r.winning_team == team else 0.0


__all__ = ["STEPS_PER_CARD", "RolloutPolicy", "bot_policy", "greedy_policy", "play_out"]
