"""The bot levels' round robin: every pair of levels on the same paired deals, and the fixed
OpenSkill rating each level gets from it (fouronefour.bots.levels).

    python bench/levels.py [--rounds 400] [--seed 21] [--jobs 2] [--players 4]

Each pair of levels plays ``--rounds`` rounds (each deal twice, the teams swapped: paired).
Prints the table of round win rates (row against column, 95% Wilson interval) and whether
each level beats the one below it in at least 60% of its rounds; then rates the levels with
OpenSkill's Plackett-Luce model (``pip install -e '.[bench]'``): every round, in a seeded
order, is a match of two teams of two players of one level each, and a level's rating is
updated by the mean of its two seats' updates. ``--json PATH`` writes the whole result;
``--write`` writes it where the levels read their ratings (src/fouronefour/bots/levels.json).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from fouronefour.arena.games import GameRecord, run_arena
from fouronefour.arena.spec import BotSpec
from fouronefour.arena.stats import wilson
from fouronefour.bots.levels import LEVELS, MEASURED
from fouronefour.engine import Rules
from fouronefour.progress import progress_bar

#: Each level must beat the one below it in at least this share of paired rounds.
ORDER_MARGIN = 0.60


def play_round_robin(
    rounds: int, seed: int, jobs: int, players: int
) -> dict[tuple[str, str], list[GameRecord]]:
    """Every pair of levels (weaker first) on the same ``rounds // 2`` paired deals."""
    rules = Rules(players=players)
    results: dict[tuple[str, str], list[GameRecord]] = {}
    pairs = list(itertools.combinations(LEVELS, 2))
    with progress_bar(Console(stderr=True)) as progress:
        task = progress.add_task("round robin", total=len(pairs) * rounds)
        for low, high in pairs:
            progress.update(task, description=f"{low.name} v {high.name}")
            specs = (BotSpec(low.name), BotSpec(high.name))
            results[(low.name, high.name)] = run_arena(
                specs,
                rules,
                pairs=rounds // 2,
                seed=seed,
                jobs=jobs,
                on_pair=lambda n: progress.advance(task, n),
            )
    return results


def rate(results: dict[tuple[str, str], list[GameRecord]], seed: int) -> dict[str, Any]:
    """The levels' OpenSkill ratings from every round, rated in a seeded order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {level.name: model.rating(name=level.name) for level in LEVELS}
    games = [(pair, record) for pair, records in results.items() for record in records]
    random.Random(seed).shuffle(games)
    for (low, high), record in games:
        a = [model.rating(mu=ratings[low].mu, sigma=ratings[low].sigma) for _ in range(2)]
        b = [model.rating(mu=ratings[high].mu, sigma=ratings[high].sigma) for _ in range(2)]
        ranks = [0, 1] if record.winner == 0 else [1, 0]  # winner 0: the first (low) won
        new_a, new_b = model.rate([a, b], ranks=ranks)
        for name, team in ((low, new_a), (high, new_b)):
            ratings[name].mu = statistics.fmean(player.mu for player in team)
            ratings[name].sigma = statistics.fmean(player.sigma for player in team)
    return {
        name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for name, r in ratings.items()
    }


def table(results: dict[tuple[str, str], list[GameRecord]]) -> list[dict[str, Any]]:
    rows = []
    for (low, high), records in results.items():
        won = sum(1 for record in records if record.winner == 1)
        lo, hi = wilson(won, len(records))
        times = [t for record in records for t in record.times_ms[1]]
        rows.append(
            {
                "stronger": high,
                "weaker": low,
                "rounds": len(records),
                "stronger_wins": won / len(records),
                "ci95": [lo, hi],
                "stronger_ms_mean": statistics.fmean(times) if times else 0.0,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400, help="rounds per pair (even)")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--json", type=Path, default=None, help="write the result here")
    parser.add_argument(
        "--write", action="store_true", help=f"write the result to {MEASURED} (the ratings)"
    )
    args = parser.parse_args(argv)
    results = play_round_robin(args.rounds, args.seed, args.jobs, args.players)
    rows = table(results)
    print(f"\n{args.rounds} paired rounds per pair, seed {args.seed}, {args.players} players\n")
    print("| stronger | weaker | stronger wins | 95% interval | stronger's ms a decision |")
    print("|---|---|---|---|---|")
    for row in rows:
        lo, hi = row["ci95"]
        print(
            f"| {row['stronger']} | {row['weaker']} | {row['stronger_wins']:.1%} | "
            f"{lo:.1%} to {hi:.1%} | {row['stronger_ms_mean']:.2f} |"
        )
    names = [level.name for level in LEVELS]
    steps = [row for row in rows if names.index(row["stronger"]) == names.index(row["weaker"]) + 1]
    ordered = all(row["stronger_wins"] >= ORDER_MARGIN for row in steps)
    print(f"\neach level beats the one below it in at least {ORDER_MARGIN:.0%}: {ordered}")
    ratings = rate(results, args.seed)
    print("\n| level | mu | sigma | ordinal (mu - 3 sigma) |")
    print("|---|---|---|---|")
    for name, rating in ratings.items():
        print(f"| {name} | {rating['mu']:.1f} | {rating['sigma']:.2f} | {rating['ordinal']:.1f} |")
    command = (
        f"python bench/levels.py --rounds {args.rounds} --seed {args.seed} --jobs {args.jobs} "
        f"--players {args.players}"
    )
    result = {"command": command, "rows": rows, "ratings": ratings, "ordered": ordered}
    for path in [args.json] * bool(args.json) + [MEASURED] * args.write:
        path.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if ordered else 1


if __name__ == "__main__":
    sys.exit(main())
