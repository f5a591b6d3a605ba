"""Ratings: OpenSkill's Plackett-Luce model over teams of any size (docs/players.md,
"Ratings").

A match is one ranking of its teams (the winners first; teams that tie share a rank). Every
human with a profile is updated once, by :meth:`PlayerStore.record_match`, in the transaction
that records the match. Bots play at their level's fixed rating (bots/levels.json, measured by
bench/levels.py) and are never updated, so they anchor the scale; a bot that is no level, and
a player without a profile, count as a newcomer (mu 25, sigma 25/3) and are not updated
either.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from openskill.models import PlackettLuce

from ...bots.levels import measured_ratings
from .values import MatchRecord, Rating

#: A new player's rating: OpenSkill's defaults.
NEW_MU = 25.0
NEW_SIGMA = 25.0 / 3.0
NEWCOMER = Rating(NEW_MU, NEW_SIGMA, 0)


@functools.cache
def _model() -> PlackettLuce:
    return PlackettLuce(mu=NEW_MU, sigma=NEW_SIGMA)


def bot_rating(level: str | None) -> Rating:
    """A bot's fixed rating: its level's, or a newcomer's for a bot that is no level."""
    fixed = measured_ratings().get(level or "")
    return NEWCOMER if fixed is None else Rating(fixed.mu, fixed.sigma)


def rate(record: MatchRecord, current: Mapping[str, Rating]) -> dict[str, Rating]:
    """Each profile's rating after ``record`` (from ``current``, a newcomer's if absent);
    empty for a casual match, or one with fewer than two teams. A profile that holds two
    seats (it should not) is rated from its first."""
    if not record.rated:
        return {}
    model = _model()
    teams: dict[int, list[tuple[str | None, Any]]] = {}
    ranks: dict[int, int] = {}
    seen: set[str] = set()
    for seat in sorted(record.seats, key=lambda s: s.seat):
        if seat.profile_id is not None and seat.profile_id not in seen:
            seen.add(seat.profile_id)
            rating = current.get(seat.profile_id, NEWCOMER)
            who: str | None = seat.profile_id
        else:
            rating = bot_rating(seat.bot_level) if seat.bot_level else NEWCOMER
            who = None
        teams.setdefault(seat.team, []).append(
            (who, model.rating(mu=rating.mu, sigma=rating.sigma))
        )
        ranks[seat.team] = seat.rank
    if len(teams) < 2:
        return {}
    order = sorted(teams)
    rated = model.rate([[r for _, r in teams[t]] for t in order], ranks=[ranks[t] for t in order])
    after: dict[str, Rating] = {}
    for team, new in zip(order, rated, strict=True):
        for (who, _), updated in zip(teams[team], new, strict=True):
            if who is not None:
                before = current.get(who, NEWCOMER)
                after[who] = Rating(float(updated.mu), float(updated.sigma), before.matches + 1)
    return after
