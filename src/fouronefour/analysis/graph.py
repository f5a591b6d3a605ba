"""The win-chance graph of a round: one value per step, the table's mean of what each seat
last judged.

A decision's own ``win_chance`` is what its seat could judge, with its own hand known. Each
seat's team looks stronger from where it sits, so a line through the deciders' estimates
zigzags as the turn passes from one team to the other. The graph shows instead, before
every step, the mean over the seats of Team A's chance as each seat last estimated it at a
play decision of its own. Each seat's part is always that same seat's point of view, so
the value does not change with who decides: it moves when a seat, seeing what happened
since its last turn, judges again. It needs no rollouts of its own.

Measured against the spectator's estimate that it replaced (every hand dealt at random from
what everyone saw: ``bench/analysis.py``, docs/analysis.md "The graph"), on the same 32
rounds it moved 0.022 a decision inside a trick against 0.054, and its Brier score in the
second halves of rounds was 0.177 against 0.220.

Limits: a seat not yet heard from in the round is left out of the mean (the first trick
speaks for fewer than four seats; before any play decision the graph shows 50%), and a
seat's part is as old as its last play decision. A hook or unhook offer is private and a
tribute return comes before play: they change nothing, so the graph does not tell who was
offered what.

The graph is served with the analysis once the round is over, when the hands it was
judged from are no longer hidden: the end-of-round pause shows every hand the round ended
with, and everything played before was public. (A private offer changes nothing in it.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: The graph's value before any seat has judged a play decision.
EVEN = 0.5


def team_a_chance(seat: int, win_chance: float) -> float:
    """Team A's (seat 0's team's) chance, from a seat's estimate of its own team's."""
    return win_chance if seat % 2 == 0 else 1.0 - win_chance


def seats_mean(steps: Sequence[tuple[int, str, float]]) -> list[float]:
    """The graph's value before each step of a round, from its steps in order, each
    (seat, decision kind, the seat's own win chance): the mean of every seat's latest own
    estimate at a play decision, this step's included when it is a play decision."""
    latest: dict[int, float] = {}
    values = []
    for seat, kind, win_chance in steps:
        if kind == "play":
            latest[seat] = team_a_chance(seat, win_chance)
        values.append(sum(latest.values()) / len(latest) if latest else EVEN)
    return values


def fill_graph(decisions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A round's analysed decisions (``analyse_round``'s dicts, in order, from the round's
    first) with ``graph_chance`` made from the whole round: what the round gives when
    analysed in parts, each part's graph made only from itself."""
    values = seats_mean([(d["seat"], d["decision"], d["win_chance"]) for d in decisions])
    return [
        {**d, "graph_chance": round(value, 4)} for d, value in zip(decisions, values, strict=True)
    ]


__all__ = ["EVEN", "fill_graph", "seats_mean", "team_a_chance"]
