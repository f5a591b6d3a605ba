"""One decision judged as the seat that made it could judge it.

1. **Worlds**: ``worlds`` positions the seat cannot tell from the real one
   (:mod:`.positions`), from a random stream seeded by the analysis seed and the
   decision's index only, so the hidden cards cannot influence them.
2. **Win chance**: the policy's own move (greedy by default) is played out in every world
   (:mod:`.rollouts`); the share of worlds the seat's team wins is ``win_chance``.
3. **Candidates**: the played move, the policy's move, and the best guesses of the search
   bot's candidate list, ``candidates`` moves in all. All are played out in the same
   worlds, so differences between them are not differences between deals (common random
   numbers). The played move is played out in every world (``played_win_chance``).
4. **Challengers**: the policy's move is compared with the played move in every world.
   The other candidates are played out in the first quarter of the worlds (the screen);
   the best of them, if it beats both there, is compared with the played move in the
   other three quarters, which did not pick it, so its lead is not inflated by the
   choice among candidates. The larger lead is the loss (``best_win_chance`` is
   ``played_win_chance`` plus the loss); the label weighs it against its standard error
   (:func:`.labels.label`).

Cost: ``worlds`` rollouts for a forced decision; for one with a choice at most
``2 * worlds + (candidates - 2) * screen + (worlds - screen)`` (``screen = worlds // 4``:
208 at the defaults), and ``worlds`` fewer when the played move is the policy's. A rollout
plays the rest of the round.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fouronefour.bots.search import candidates as search_candidates
from fouronefour.bots.search import paired_difference
from fouronefour.engine import Round

from .labels import label
from .positions import sample_positions
from .rollouts import RolloutPolicy, greedy_policy, play_out

#: Digits kept in the reported chances.
_DIGITS = 4


@dataclass(frozen=True, slots=True)
class DecisionAnalysis:
    """The analysis of one decision (:meth:`to_dict` gives the documented dict)."""

    seat: int
    move: str
    decision: str
    win_chance: float
    best_move: str
    best_win_chance: float
    played_win_chance: float
    label: str
    #: standard error of ``best_win_chance - played_win_chance`` (0 when not compared)
    loss_error: float
    #: rollouts played to judge it
    rollouts: int
    #: Team A's chance to win before the decision as the round's graph shows it (the mean
    #: of each seat's latest own estimate: :mod:`.graph`); None until the graph is made
    graph_chance: float | None = None
    #: the trick the decision was made in, before it: (seat, move) of each public move
    trick: tuple[tuple[int, str], ...] = ()
    #: at the round's first play only: every seat's own chance that its team wins, as it
    #: could judge it before the lead (None for the leader: :mod:`.opening`)
    opening: tuple[float | None, ...] | None = None

    @property
    def loss(self) -> float:
        return self.best_win_chance - self.played_win_chance

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "move": self.move,
            "decision": self.decision,
            "win_chance": round(self.win_chance, _DIGITS),
            "best_move": self.best_move,
            "best_win_chance": round(self.best_win_chance, _DIGITS),
            "played_win_chance": round(self.played_win_chance, _DIGITS),
            "label": self.label,
            "graph_chance": (
                None if self.graph_chance is None else round(self.graph_chance, _DIGITS)
            ),
            "trick": [{"seat": seat, "move": move} for seat, move in self.trick],
            "opening": (
                None
                if self.opening is None
                else [None if c is None else round(c, _DIGITS) for c in self.opening]
            ),
        }


class _Outcomes:
    """Rollout results of moves in the worlds, each played out once, on demand."""

    def __init__(
        self, worlds: Sequence[Round], team: int, policy: RolloutPolicy, seeds: Sequence[int]
    ) -> None:
        self.worlds = worlds
        self.team = team
        self.policy = policy
        self.seeds = seeds
        self.results: dict[str, dict[int, float]] = {}
        self.rollouts = 0

    def of(self, move: str, indexes: range) -> list[float]:
        known = self.results.setdefault(move, {})
        out = []
        for index in indexes:
            value = known.get(index)
            if value is None:
                # The same seed for every move in a world: paired randomness for policies
                # that use it.
                rng = random.Random(self.seeds[index])
                value = play_out(self.worlds[index].apply(move), self.team, self.policy, rng)
                known[index] = value
                self.rollouts += 1
            out.append(value)
        return out


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def candidate_moves(
    view: dict[str, Any], legal: Sequence[str], first: Sequence[str], limit: int
) -> list[str]:
    """``first`` (the played and the policy's move), then the search bot's candidates,
    then the other legal moves in the engine's order, up to ``limit`` moves."""
    chosen: list[str] = []
    for move in (*first, *search_candidates(view, legal, limit), *legal):
        if len(chosen) >= limit:
            break
        if move not in chosen:
            chosen.append(move)
    return chosen


def analyse_decision(
    r: Round,
    move: str,
    *,
    worlds: int,
    seed: str,
    policy: RolloutPolicy = greedy_policy,
    candidates: int = 4,
    sensible: Sequence[float] | None = None,
) -> DecisionAnalysis:
    """Judge ``move`` at ``r``'s pending decision from the acting seat's view only.

    ``seed`` names the decision's random stream; it must not depend on hidden cards.
    ``sensible[seat]``: the chance that each seat plays sensibly, from the public play
    (:mod:`.styles`), which shapes how the hidden cards are dealt; None deals them
    uniformly.
    """
    seat = r.to_act
    if seat is None:
        raise ValueError(f"{move!r}: the round is over")
    played = r.resolve(move)
    legal = r.legal_moves()
    view = r.view(seat)
    decision = str(view["decision"])
    rng = random.Random(seed)
    positions = sample_positions(view, worlds, rng, sensible)
    seeds = [rng.getrandbits(64) for _ in positions]
    outcomes = _Outcomes(positions, seat % 2, policy, seeds)
    everywhere = range(worlds)

    if len(legal) == 1:
        chance = _mean(outcomes.of(played, everywhere))
        return DecisionAnalysis(
            seat, played, decision, chance, played, chance, chance, "forced", 0.0, outcomes.rollouts
        )

    own = policy(positions[0], random.Random(seeds[0]))
    base = outcomes.of(own, everywhere)
    played_values = outcomes.of(played, everywhere)
    chance, played_chance = _mean(base), _mean(played_values)
    # (loss, error, move) of each challenger of the played move.
    challengers: list[tuple[float, float, str]] = []
    if own != played:
        # The policy's move was not picked by the comparison: every world can judge it.
        loss, error = paired_difference(played_values, base)
        challengers.append((loss, error, own))
    moves = candidate_moves(view, legal, (played, own), candidates)
    others = [m for m in moves if m not in (played, own)]
    if others:
        screen = range(max(1, worlds // 4))
        screened = {m: _mean(outcomes.of(m, screen)) for m in (*others, own, played)}
        pick = max(others, key=lambda m: screened[m])
        confirm = range(screen.stop, worlds) if worlds - screen.stop >= 2 else everywhere
        if screened[pick] > max(screened[own], screened[played]):
            loss, error = paired_difference(
                [played_values[i] for i in confirm], outcomes.of(pick, confirm)
            )
            challengers.append((loss, error, pick))
    loss, error, best = max(challengers, default=(0.0, 0.0, played), key=lambda c: c[0])
    if loss <= 0.0:
        return DecisionAnalysis(
            seat,
            played,
            decision,
            chance,
            played,
            played_chance,
            played_chance,
            "best",
            error,
            outcomes.rollouts,
        )
    return DecisionAnalysis(
        seat,
        played,
        decision,
        chance,
        best,
        min(1.0, played_chance + loss),
        played_chance,
        label(loss, error),
        error,
        outcomes.rollouts,
    )


__all__ = ["DecisionAnalysis", "analyse_decision", "candidate_moves"]
