"""When a table of an event is decided (docs/tournaments.md, "Match length"): after one
round of 414, when a side first reaches a level, or at the match's end (docs/rules.md,
section 7). Seats 0 and 2 are the north side (team 0), 1 and 3 the east (team 1)."""

from __future__ import annotations

from ...engine import Match
from ...engine.cards import level_index
from .values import Side


def decided(length: str, match: Match) -> tuple[Side, int] | None:
    """The winning side and the level difference (north's level minus east's) once
    ``match`` decides a table of ``length`` ("round", a level "3" to "A", "match"); None
    while it does not yet."""
    results = match.results
    if length == "round":
        if not results:
            return None
        team, levels = results[0].winning_team, results[0].levels_after
    elif length == "match":
        if match.winning_team is None:
            return None
        team, levels = match.winning_team, match.levels
    else:
        target = level_index(length)
        reached = next(
            (r for r in results if max(level_index(level) for level in r.levels_after) >= target),
            None,
        )
        if reached is not None:
            team, levels = reached.winning_team, reached.levels_after
        elif match.winning_team is not None:  # (cannot happen before A: kept for safety)
            team, levels = match.winning_team, match.levels
        else:
            return None
    side: Side = "north" if team == 0 else "east"
    return side, level_index(levels[0]) - level_index(levels[1])
