"""``search``: determinized Monte Carlo (perfect-information Monte Carlo, PIMC).

For a decision with more than one legal move:

1. pick a few candidate moves (all of them when there are few; otherwise the greedy
   choice, the planned combinations, passing and the weakest bomb);
2. repeatedly deal a *world*: the unseen cards dealt to the other seats consistently with
   everything public (:mod:`fouronefour.bots.worlds`);
3. in each world play every candidate and then the rest of the round with the greedy
   rules for every seat (a rollout), scoring the end for the bot's team;
4. candidates clearly worse than the best are dropped as worlds come in (:func:`prune`);
5. play the candidate with the best average score if it beats the greedy choice by
   ``confidence`` standard errors, else the greedy choice (:func:`pick`). Every candidate
   is played out in the same worlds, so the comparison is paired and needs fewer worlds.

The budget is a time per decision (``budget_ms``, default 200) or a fixed number of
worlds (``worlds``; deterministic for a given ``rng``). Tribute returns are left to the
greedy rule, which has no hidden information to weigh. docs/bots.md has the details.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from typing import Any

from fouronefour.engine.cards import INDEX
from fouronefour.engine.round import Round

from . import register
from .greedy import GreedyBot, Seen, greedy_move
from .hand import PASS, decompose, is_bomb, lowest_power, view_hand, view_level
from .worlds import read_view, sample_hands, situation

#: Decisions a rollout may take before it stops (a whole round takes about 60-120).
ROLLOUT_LIMIT = 400


def rollout_move(r: Round) -> str:
    """The greedy rule for whoever acts in ``r``, read straight from the round (used inside
    rollouts only, where the sampled world's hands are the simulated players' own)."""
    legal = r.legal_moves()
    if len(legal) == 1:
        return legal[0]
    seat = r.to_act
    assert seat is not None
    decision = r.decision
    seen = Seen(
        seat=seat,
        hand=r.hand_counts(seat),
        level=INDEX[r.level],
        decision="play" if decision is None else str(decision),
        top=r.top,
        top_seat=r.top_seat,
        counts=r.card_counts(),
    )
    return greedy_move(seen, legal)


def rollout(r: Round, team: int) -> float:
    """Play ``r`` to its end with :func:`rollout_move`; the score for ``team``: a won round
    counts 1 plus a quarter per caught opponent, a lost one the opposite."""
    steps = 0
    while not r.is_over and steps < ROLLOUT_LIMIT:
        r = r.apply(rollout_move(r))
        steps += 1
    if not r.is_over:
        return 0.0
    value = 1.0 + 0.25 * len(r.caught)
    return value if r.winning_team == team else -value


def candidates(view: dict[str, Any], legal_moves: Sequence[str], limit: int) -> list[str]:
    """Moves worth searching, best guesses first; all of them when there are few."""
    greedy_choice = GreedyBot().choose(view, legal_moves, random.Random(0))
    if len(legal_moves) <= limit:
        return [greedy_choice, *(m for m in legal_moves if m != greedy_choice)]
    level = view_level(view)
    combos, _ = decompose(view_hand(view), level)
    legal = set(legal_moves)
    chosen: list[str] = [greedy_choice]

    def add(move: str | None) -> None:
        if move is not None and move in legal and move not in chosen:
            chosen.append(move)

    if view["top"] is not None:
        add(PASS)
        plain = [m for m in legal_moves if m != PASS and not is_bomb(m)]
        for move in plain:
            if move in combos:
                add(move)
                break
        for move in plain[:2]:
            add(move)
        if plain:
            add(plain[-1])
    else:
        for combo in sorted(combos, key=lambda c: (lowest_power(c, level), -len(c))):
            add(combo)
    bombs = [m for m in legal_moves if is_bomb(m)]
    if bombs:
        add(bombs[0])
    return chosen[:limit]


class SearchBot:
    """Determinized Monte Carlo over sampled worlds with rule-of-thumb rollouts."""

    name = "search"

    def __init__(
        self,
        budget_ms: float = 200.0,
        worlds: int | None = None,
        max_candidates: int = 6,
        confidence: float = 2.0,
    ) -> None:
        for key, number in (("budget_ms", budget_ms), ("confidence", confidence)):
            if isinstance(number, bool) or not isinstance(number, int | float):
                raise ValueError(f"{key} must be a number, not {number!r}")
            if not math.isfinite(number):
                raise ValueError(f"{key} must be finite, not {number!r}")
        for key, count in (("worlds", worlds), ("max_candidates", max_candidates)):
            if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
                raise ValueError(f"{key} must be a whole number, not {count!r}")
        if worlds is not None and worlds < 1:
            raise ValueError(f"worlds must be at least 1, not {worlds}")
        if budget_ms <= 0:
            raise ValueError(f"budget_ms must be positive, not {budget_ms}")
        if max_candidates < 2:
            raise ValueError(f"max_candidates must be at least 2, not {max_candidates}")
        self.budget_ms = float(budget_ms)
        self.worlds = worlds
        self.max_candidates = max_candidates
        self.confidence = float(confidence)
        self._greedy = GreedyBot()
        #: worlds dealt for the last decision (0 when no search was needed)
        self.last_worlds = 0

    def choose(self, view: dict[str, Any], legal_moves: Sequence[str], rng: random.Random) -> str:
        self.last_worlds = 0
        if len(legal_moves) == 1:
            return legal_moves[0]
        if view.get("decision") == "return":
            return self._greedy.choose(view, legal_moves, rng)
        start = time.perf_counter()
        deadline = start + self.budget_ms / 1000.0
        moves = candidates(view, legal_moves, self.max_candidates)
        knowledge = read_view(view)
        team = knowledge.seat % 2
        scores: list[list[float]] = [[] for _ in moves]
        alive = list(range(len(moves)))
        worlds = rollouts = 0
        while True:
            hands = sample_hands(knowledge, rng)
            root = situation(view, hands)
            results = []
            for index in alive:
                if self.worlds is None and rollouts:
                    now = time.perf_counter()
                    if now + (now - start) / rollouts > deadline:
                        break  # another rollout would overrun: drop this world for every move
                results.append(rollout(root.apply(moves[index]), team))
                rollouts += 1
            if len(results) < len(alive):
                break  # with no world complete, the greedy choice (moves[0]) is played
            for index, result in zip(alive, results, strict=True):
                scores[index].append(result)
            worlds += 1
            if self.worlds is not None and worlds >= self.worlds:
                break
            if worlds >= 4 and len(alive) > 2:
                alive = prune(scores, alive)
            if len(alive) == 1 or (
                worlds >= 32 and all(scores[i] == scores[alive[0]] for i in alive)
            ):
                break  # nothing left to tell apart
        self.last_worlds = worlds
        if not worlds:
            return moves[0]
        return moves[alive[pick([scores[i] for i in alive], self.confidence)]]


def paired_difference(first: Sequence[float], second: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of ``second - first`` over the worlds both were played in
    (infinite error for one world)."""
    diffs = [b - a for a, b in zip(first, second, strict=True)]
    n = len(diffs)
    mean = sum(diffs) / n
    if n < 2:
        return mean, float("inf")
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, (variance / n) ** 0.5


def prune(scores: Sequence[Sequence[float]], alive: list[int]) -> list[int]:
    """Stop playing out moves clearly (two standard errors) worse than the best so far, so
    the rest get more worlds. The first move, the greedy choice, always stays: the final
    pick compares with it."""
    means = {i: sum(scores[i]) / len(scores[i]) for i in alive}
    best = max(alive, key=lambda i: means[i])
    kept = []
    for index in alive:
        if index in (0, best):
            kept.append(index)
            continue
        mean, error = paired_difference(scores[best], scores[index])
        if mean + 2.0 * error >= 0.0:
            kept.append(index)
    return kept


def pick(scores: Sequence[Sequence[float]], confidence: float) -> int:
    """Index of the move to play: the best average, but the first move (the greedy choice)
    unless the best beats it by ``confidence`` standard errors of the paired difference,
    so that noise in a few worlds does not replace a sound rule by a lucky guess."""
    means = [sum(s) / len(s) for s in scores]
    best = max(range(len(scores)), key=lambda i: (means[i], -i))
    if best == 0:
        return 0
    mean, error = paired_difference(scores[0], scores[best])
    if error == float("inf"):
        return best if confidence <= 0 and mean > 0 else 0
    return best if mean > confidence * error else 0


register("search", SearchBot)

__all__ = [
    "SearchBot",
    "candidates",
    "paired_difference",
    "pick",
    "prune",
    "rollout",
    "rollout_move",
]
