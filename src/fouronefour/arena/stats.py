"""The figures of a run: win rates with their Wilson intervals, levels, decision times."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .games import GameRecord
from .spec import BotSpec, labels


def wilson(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion (95% by default)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarize(
    specs: tuple[BotSpec, BotSpec], records: Sequence[GameRecord], matches: bool
) -> dict[str, Any]:
    """Per-bot figures and the paired breakdown of a run."""
    games = len(records)
    pairs: dict[int, list[GameRecord]] = {}
    for record in records:
        pairs.setdefault(record.index, []).append(record)
    rounds_played = sum(sum(r.rounds_won) for r in records)
    bots = []
    names = labels(specs)
    for which in range(2):
        wins = sum(1 for r in records if r.winner == which)
        rounds_won = sum(r.rounds_won[which] for r in records)
        levels = sum(r.levels_gained[which] for r in records)
        times = [t for r in records for t in r.times_ms[which]]
        low, high = wilson(rounds_won, rounds_played)
        entry: dict[str, Any] = {
            "bot": names[which],
            "rounds_won": rounds_won,
            "round_win_rate": rounds_won / rounds_played if rounds_played else 0.0,
            "round_win_ci95": [low, high],
            "levels_per_round": levels / rounds_played if rounds_played else 0.0,
            "decisions_timed": len(times),
            "decision_ms_mean": sum(times) / len(times) if times else 0.0,
            "decision_ms_p95": percentile(times, 0.95),
            "pairs_won_both": sum(
                1 for p in pairs.values() if len(p) == 2 and all(r.winner == which for r in p)
            ),
        }
        if matches:
            m_low, m_high = wilson(wins, games)
            entry.update(
                matches_won=wins,
                match_win_rate=wins / games if games else 0.0,
                match_win_ci95=[m_low, m_high],
            )
        bots.append(entry)
    return {
        "mode": "matches" if matches else "rounds",
        "games": games,
        "pairs": len(pairs),
        "rounds": rounds_played,
        "pairs_split": sum(1 for p in pairs.values() if len({r.winner for r in p}) == 2),
        "bots": bots,
    }
