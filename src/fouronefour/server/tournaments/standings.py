"""An event's standings from its results so far (docs/tournaments.md, "Standings"): worked
out again from the results each time they are read, so a table that ends shows at once.

The order, each tie-break used only when everything before it is equal:

1. **points**: 1 for a won table, 1 for a bye, 0 for a lost one;
2. **Buchholz**: the sum of the points of every opponent met (each opponent at each table:
   an individual has two a table), so a point taken from strong opponents weighs more;
3. **level difference**: over the tables played, the levels the entrant's side ended on
   minus the other side's (a close loss ranks above a rout);
4. **head-to-head**: tables won against the entrants still tied with it;
5. **seed**: the event's draw (pairing.seeded_order), so no two entrants ever share a place.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Side = Literal["north", "east"]


@dataclass(frozen=True)
class Result:
    """One table's result: who sat on each side, who won, and the level difference
    (north's level index minus east's when the table was decided)."""

    north: tuple[str, ...]
    east: tuple[str, ...]
    winner: Side
    level_difference: int


@dataclass(frozen=True)
class Standing:
    entrant: str
    place: int
    points: int
    buchholz: int
    level_difference: int
    head_to_head: int
    played: int
    won: int
    byes: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "entrant": self.entrant,
            "place": self.place,
            "points": self.points,
            "buchholz": self.buchholz,
            "level_difference": self.level_difference,
            "head_to_head": self.head_to_head,
            "played": self.played,
            "won": self.won,
            "byes": self.byes,
        }


def standings(
    seeds: Sequence[str], results: Sequence[Result], byes: Sequence[str]
) -> list[Standing]:
    """Every entrant of ``seeds`` (the event's draw order) in standing order."""
    points: Counter[str] = Counter(byes)
    won: Counter[str] = Counter()
    played: Counter[str] = Counter()
    levels: Counter[str] = Counter()
    opponents: dict[str, list[str]] = {e: [] for e in seeds}
    beaten: dict[str, list[str]] = {e: [] for e in seeds}
    for result in results:
        winners, losers = (
            (result.north, result.east) if result.winner == "north" else (result.east, result.north)
        )
        for side, other, sign in ((result.north, result.east, 1), (result.east, result.north, -1)):
            for entrant in side:
                played[entrant] += 1
                levels[entrant] += sign * result.level_difference
                opponents[entrant].extend(other)
        for entrant in winners:
            points[entrant] += 1
            won[entrant] += 1
            beaten[entrant].extend(losers)
    buchholz = {e: sum(points[o] for o in opponents[e]) for e in seeds}
    bye_count = Counter(byes)

    def first_keys(e: str) -> tuple[int, int, int]:
        return (points[e], buchholz[e], levels[e])

    head: dict[str, int] = {}
    for entrant in seeds:
        tied = {o for o in seeds if first_keys(o) == first_keys(entrant)}
        head[entrant] = sum(1 for o in beaten[entrant] if o in tied)
    seed_of = {e: i for i, e in enumerate(seeds)}
    order = sorted(seeds, key=lambda e: (*(-k for k in first_keys(e)), -head[e], seed_of[e]))
    return [
        Standing(
            e, place, points[e], buchholz[e], levels[e], head[e], played[e], won[e], bye_count[e]
        )
        for place, e in enumerate(order, start=1)
    ]
