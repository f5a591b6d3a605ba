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

From the round's first play on, every seat is heard: at the lead, each other seat's own
estimate of the position is judged too (:mod:`.opening`), so the first trick is not the
leader's view alone. Before it (tribute returns) the graph shows 50%.

Limits: a seat's part is as old as its last play decision. A hook or unhook offer is private and a
tribute return comes before play: they change nothing, so the graph does not tell who was
offered what.

The graph is served with the analysis once the round is over, when the hands it was
judged from are no longer hidden: the end-of-round pause shows every hand the round ended
with, and everything played before was public. (A private offer changes nothing in it.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: The graph's value before any seat has judged a play decision.
EVEN = 0.5


def team_a_chance(seat: int, win_chance: float) -> float:
    """Team A's (seat 0's team's) chance, from a seat's estimate of its own team's."""
    return win_chance if seat % 2 == 0 else 1.0 - win_chance


def seats_mean(
    steps: Sequence[tuple[int, str, float]],
    openings: Mapping[int, Sequence[float | None]] | None = None,
) -> list[float]:
    """The graph's value before each step of a round, from its steps in order, each
    (seat, decision kind, the seat's own win chance): the mean of every seat's latest own
    estimate at a play decision, this step's included when it is a play decision.
    ``openings[i]``: every other seat's own estimate at step ``i``, the round's first play
    (:mod:`.opening`; None for the leader), counted from that step on."""
    latest: dict[int, float] = {}
    values = []
    for index, (seat, kind, win_chance) in enumerate(steps):
        for other, chance in enumerate((openings or {}).get(index, ())):
            if chance is not None:
                latest[other] = team_a_chance(other, chance)
        if kind == "play":
            latest[seat] = team_a_chance(seat, win_chance)
        values.append(sum(latest.values()) / len(latest) if latest else EVEN)
    return values


def fill_graph(decisions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A round's analysed decisions (``analyse_round``'s dicts, in order, from the round's
    first) with ``graph_chance`` made from the whole round: what the round gives when
    analysed in parts, each part's graph made only from itself."""
    values = seats_mean(
        [(d["seat"], d["decision"], d["win_chance"]) for d in decisions], openings(decisions)
    )
    return [
        {**d, "graph_chance": round(value, 4)} for d, value in zip(decisions, values, strict=True)
    ]


def openings(decisions: Sequence[dict[str, Any]]) -> dict[int, Sequence[float | None]]:
    """The ``opening`` estimates of analysed decisions (their dicts), by step."""
    return {i: d["opening"] for i, d in enumerate(decisions) if d.get("opening") is not None}


__all__ = ["EVEN", "fill_graph", "openings", "seats_mean", "team_a_chance"]
