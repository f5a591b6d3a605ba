"""The win-chance graph of a round: one estimate per step from a spectator's point of view.

A decision's own ``win_chance`` is what its seat could judge, with its own hand known;
each seat's team looks stronger from where it sits, so a line of those estimates zigzags as
the turn passes from one team to the other. The graph shows instead, at every step, Team
A's chance as someone who sees no hand would estimate it: every hand dealt at random
consistently with what everyone saw (card counts, played cards, tribute and return cards,
how each seat plays: :mod:`.positions`), and the round played out from there by the
rollout policy. It moves when the game changes, not when the turn passes.

Only a play decision has a public position: who is to play is public then. A hook or unhook
offer is private (to everyone else the trick looks as before), and a tribute return comes
before play; such a step shows the estimate of the play decision before it (the first play
decision's, for the returns that open a round).

Every step deals its worlds from the same random stream (common random numbers), so two
neighbouring steps differ by what happened between them, not by a fresh draw of worlds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from fouronefour.engine import Decision, Round

from .positions import sample_positions
from .rollouts import RolloutPolicy, greedy_policy, play_out


def spectator_chance(
    r: Round,
    *,
    worlds: int,
    seed: str,
    policy: RolloutPolicy = greedy_policy,
    sensible: Sequence[float] | None = None,
) -> float:
    """Team A's (seat 0's team's) chance to win the round from ``r``, a play decision, as a
    spectator would estimate it: no hand known. ``seed`` names the random stream."""
    seat = r.to_act
    if seat is None or r.decision is not Decision.PLAY:
        raise ValueError("a spectator's estimate is made at a play decision")
    rng = random.Random(seed)
    positions = sample_positions(r.view(seat), worlds, rng, sensible, hand_known=False)
    seeds = [rng.getrandbits(64) for _ in positions]
    wins = sum(
        play_out(position, 0, policy, random.Random(world_seed))
        for position, world_seed in zip(positions, seeds, strict=True)
    )
    return wins / worlds


def graph_stream(seed: int | str) -> str:
    """The random stream every step of a round's graph deals its worlds from."""
    return f"fouronefour/analysis/{seed}/spectator"


def step_chance(
    r: Round,
    *,
    worlds: int,
    seed: int | str,
    policy: RolloutPolicy = greedy_policy,
    sensible: Sequence[float] | None = None,
) -> float | None:
    """The graph's own estimate at the step before ``r``'s decision: None where the
    position is not public (a hook or unhook offer, a tribute return)."""
    if r.decision is not Decision.PLAY:
        return None
    return spectator_chance(
        r, worlds=worlds, seed=graph_stream(seed), policy=policy, sensible=sensible
    )


def fill_private_steps(estimates: Sequence[float | None]) -> list[float]:
    """The graph's values: each step without an estimate of its own shows the play
    decision's before it (the first one's, before any)."""
    first = next((value for value in estimates if value is not None), 0.5)
    values: list[float] = []
    for value in estimates:
        values.append(value if value is not None else (values[-1] if values else first))
    return values


def fill_graph(decisions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A round's analysed decisions (``analyse_round``'s dicts, in order) with the graph's
    private steps filled from the whole round: what the round gives when analysed in parts,
    each part filled only from itself."""
    filled = fill_private_steps(
        [d["spectator_chance"] if d["decision"] == "play" else None for d in decisions]
    )
    return [{**d, "spectator_chance": value} for d, value in zip(decisions, filled, strict=True)]


def spectator_chances(
    rounds: Sequence[Round],
    *,
    worlds: int,
    seed: int | str,
    policy: RolloutPolicy = greedy_policy,
    styles: Sequence[Sequence[float] | None] | None = None,
) -> list[float]:
    """The graph's value at each step: ``rounds[i]`` is the round before decision ``i``,
    ``styles[i]`` each seat's chance to play sensibly then (None: dealt uniformly)."""
    return fill_private_steps(
        [
            step_chance(
                r,
                worlds=worlds,
                seed=seed,
                policy=policy,
                sensible=styles[index] if styles is not None else None,
            )
            for index, r in enumerate(rounds)
        ]
    )


__all__ = [
    "fill_graph",
    "fill_private_steps",
    "graph_stream",
    "spectator_chance",
    "spectator_chances",
    "step_chance",
]
