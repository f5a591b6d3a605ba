"""``fouronefour arena A B``: measure two bots against each other.

Team 0 holds the even seats, team 1 the odd ones. Every deal is played twice with the
teams swapped (a paired comparison: each bot holds each set of hands once), so the luck
of the deal cancels out. Rounds mode plays single rounds from fresh deals (round 1 of a
match: level 2, no tribute); ``--matches`` plays whole matches, each match seed twice.

Bots are named with optional parameters: ``search``, ``search:budget_ms=50``,
``search:budget_ms=50,max_candidates=4``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fouronefour.engine import Match, Round, Rules, deal

from ..options import add_rule_arguments, rules_from_args
from . import Bot, get, names


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot's name and the parameters it is built with."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def parse(cls, text: str) -> BotSpec:
        """``name`` or ``name:key=value,key=value`` (values read as int, float or text)."""
        name, _, rest = text.partition(":")
        params: list[tuple[str, Any]] = []
        for item in filter(None, rest.split(",")):
            key, sep, raw = item.partition("=")
            if not sep or not key:
                raise ValueError(f"bot parameter {item!r} in {text!r} is not key=value")
            params.append((key.strip(), _number(raw.strip())))
        spec = cls(name.strip(), tuple(params))
        spec.build()  # unknown names and bad parameters fail here, before any work
        return spec

    def build(self) -> Bot:
        return get(self.name, **dict(self.params))

    @property
    def label(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.params)


def _number(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


@dataclass(slots=True)
class GameRecord:
    """One round (rounds mode) or one match (matches mode) between the two bots."""

    index: int
    swapped: bool  # False: bot A holds team 0 (even seats)
    winner: int  # 0: bot A's team won, 1: bot B's
    rounds_won: tuple[int, int] = (0, 0)
    levels_gained: tuple[int, int] = (0, 0)
    decisions: int = 0
    times_ms: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))


def _bot_of_seat(seat: int, swapped: bool) -> int:
    """Which bot (0: A, 1: B) plays ``seat``."""
    return (seat % 2) ^ int(swapped)


def _decide(
    bots: Sequence[Bot],
    rngs: Sequence[random.Random],
    view: dict[str, Any],
    legal: list[str],
    seat: int,
    swapped: bool,
    record: GameRecord,
) -> str:
    which = _bot_of_seat(seat, swapped)
    start = time.perf_counter()
    move = bots[which].choose(view, legal, rngs[seat])
    if len(legal) > 1:  # a forced move costs no thought; it would flatter the mean
        record.times_ms[which].append((time.perf_counter() - start) * 1000.0)
    if move not in legal:
        raise RuntimeError(f"bot {bots[which].name} chose {move!r}, not one of {legal}")
    record.decisions += 1
    return move


def play_round_game(
    specs: tuple[BotSpec, BotSpec], rules: Rules, seed: int, index: int, swapped: bool
) -> GameRecord:
    """Deal ``index`` of ``seed`` played once, bot A at the even seats unless ``swapped``."""
    hands, leader = deal(rules, f"arena/{seed}", index + 1)
    r = Round.from_hands(hands, leader=leader, level="2", rules=rules)
    bots = [specs[0].build(), specs[1].build()]
    rngs = [random.Random(f"arena/{seed}/{index}/{int(swapped)}/{s}") for s in range(rules.players)]
    record = GameRecord(index=index, swapped=swapped, winner=-1)
    while not r.is_over:
        seat = r.to_act
        assert seat is not None
        legal = r.legal_moves()
        r = r.apply(_decide(bots, rngs, r.view(seat), legal, seat, swapped, record))
    team = r.winning_team
    assert team is not None
    winner = _bot_of_seat(team, swapped)
    gained = [0, 0]
    gained[winner] = len(r.caught)
    won = [0, 0]
    won[winner] = 1
    record.winner = winner
    record.rounds_won = (won[0], won[1])
    record.levels_gained = (gained[0], gained[1])
    return record


def play_match_game(
    specs: tuple[BotSpec, BotSpec], rules: Rules, seed: int, index: int, swapped: bool
) -> GameRecord:
    """Match ``index`` of ``seed`` played to its end."""
    match = Match(rules, seed=f"arena/{seed}/{index}")
    bots = [specs[0].build(), specs[1].build()]
    rngs = [random.Random(f"arena/{seed}/{index}/{int(swapped)}/{s}") for s in range(rules.players)]
    record = GameRecord(index=index, swapped=swapped, winner=-1)
    while not match.is_over:
        r = match.round
        seat = r.to_act
        assert seat is not None
        legal = r.legal_moves()
        match = match.apply(_decide(bots, rngs, match.view(seat), legal, seat, swapped, record))
    won = [0, 0]
    gained = [0, 0]
    for result in match.results:
        which = _bot_of_seat(result.winning_team, swapped)
        won[which] += 1
        gained[which] += len(result.caught)
    team = match.winning_team
    assert team is not None
    record.winner = _bot_of_seat(team, swapped)
    record.rounds_won = (won[0], won[1])
    record.levels_gained = (gained[0], gained[1])
    return record


def play_pair(
    specs: tuple[BotSpec, BotSpec], rules: Rules, seed: int, index: int, matches: bool
) -> list[GameRecord]:
    """Deal (or match seed) ``index`` played twice, the teams swapped the second time."""
    game = play_match_game if matches else play_round_game
    return [game(specs, rules, seed, index, swapped) for swapped in (False, True)]


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
    for which, spec in enumerate(specs):
        wins = sum(1 for r in records if r.winner == which)
        rounds_won = sum(r.rounds_won[which] for r in records)
        levels = sum(r.levels_gained[which] for r in records)
        times = [t for r in records for t in r.times_ms[which]]
        low, high = wilson(rounds_won, rounds_played)
        entry: dict[str, Any] = {
            "bot": spec.label,
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


def run_arena(
    specs: tuple[BotSpec, BotSpec],
    rules: Rules,
    *,
    pairs: int,
    seed: int,
    jobs: int = 1,
    matches: bool = False,
    on_pair: Callable[[int], None] | None = None,
) -> list[GameRecord]:
    """Play ``pairs`` paired deals (or matches); ``on_pair`` is told after each pair."""
    records: list[GameRecord] = []
    if jobs <= 1:
        for index in range(pairs):
            records.extend(play_pair(specs, rules, seed, index, matches))
            if on_pair:
                on_pair(2)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [
                pool.submit(play_pair, specs, rules, seed, index, matches) for index in range(pairs)
            ]
            for future in as_completed(futures):
                records.extend(future.result())
                if on_pair:
                    on_pair(2)
    records.sort(key=lambda r: (r.index, r.swapped))
    return records


def write_chart(summary: dict[str, Any], path: Path, title: str) -> None:
    """A PNG: round win rate with its 95% interval, and levels gained per round."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bots = summary["bots"]
    labels = [b["bot"] for b in bots]
    rates = [b["round_win_rate"] for b in bots]
    errors = [
        [b["round_win_rate"] - b["round_win_ci95"][0] for b in bots],
        [b["round_win_ci95"][1] - b["round_win_rate"] for b in bots],
    ]
    figure, (left, middle, right) = plt.subplots(1, 3, figsize=(11, 3.6))
    left.bar(labels, rates, yerr=errors, capsize=6, color=["#3b7dd8", "#d8703b"])
    left.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    left.set_ylim(0, 1)
    left.set_title("round win rate (95% CI)")
    middle.bar(labels, [b["levels_per_round"] for b in bots], color=["#3b7dd8", "#d8703b"])
    middle.set_title("levels gained per round")
    x = range(len(bots))
    right.bar([i - 0.2 for i in x], [b["decision_ms_mean"] for b in bots], 0.4, label="mean")
    right.bar([i + 0.2 for i in x], [b["decision_ms_p95"] for b in bots], 0.4, label="p95")
    right.set_xticks(list(x), labels)
    right.set_title("decision time (ms)")
    right.legend()
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


# ----------------------------------------------------------------- command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bot_a", metavar="A", help="bot, e.g. greedy or search:budget_ms=50")
    parser.add_argument("bot_b", metavar="B", help="the other bot")
    size = parser.add_mutually_exclusive_group()
    size.add_argument(
        "--rounds", type=int, default=200, help="rounds to play, half as many deals (default 200)"
    )
    size.add_argument("--matches", type=int, default=None, help="play N whole matches instead")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals (default 1)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument(
        "--budget-ms",
        type=float,
        default=None,
        help="time budget per decision for the search bot (a bot spec's budget_ms wins)",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("arena-results"), help="where JSON and PNG go"
    )
    add_rule_arguments(parser)


def _spec_with_budget(spec: BotSpec, budget_ms: float | None) -> BotSpec:
    if budget_ms is None or spec.name != "search" or any(k == "budget_ms" for k, _ in spec.params):
        return spec
    return BotSpec(spec.name, (*spec.params, ("budget_ms", budget_ms)))


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    from rich.table import Table

    console = Console()
    if not console.is_terminal:
        console = Console(width=120)  # logs and pipes: room for the whole table
    rules = rules_from_args(args)
    try:
        specs = (BotSpec.parse(args.bot_a), BotSpec.parse(args.bot_b))
    except (ValueError, TypeError) as error:
        console.print(f"[red]{error}[/red] (bots: {', '.join(names())})")
        return 2
    specs = (
        _spec_with_budget(specs[0], args.budget_ms),
        _spec_with_budget(specs[1], args.budget_ms),
    )
    matches = args.matches is not None
    count = args.matches if matches else args.rounds
    if count is None or count < 2 or args.jobs < 1:
        console.print("[red]play at least 2 rounds or matches, with 1 job or more[/red]")
        return 2
    pairs = count // 2
    unit = "matches" if matches else "rounds"
    started = time.perf_counter()
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
    ) as progress:
        task = progress.add_task(f"{specs[0].label} vs {specs[1].label}: {unit}", total=pairs * 2)
        records = run_arena(
            specs,
            rules,
            pairs=pairs,
            seed=args.seed,
            jobs=args.jobs,
            matches=matches,
            on_pair=lambda n: progress.advance(task, n),
        )
    elapsed = time.perf_counter() - started
    summary = summarize(specs, records, matches)
    summary.update(
        command=_command_line(args),
        rules=rules.to_dict(),
        seed=args.seed,
        jobs=args.jobs,
        seconds=round(elapsed, 1),
        # Decision times are wall clock: the load says how much other work shared the cores.
        load_average=[round(x, 2) for x in os.getloadavg()],
    )
    table = Table(title=f"{pairs * 2} {unit} ({pairs} paired), seed {args.seed}")
    table.add_column("bot")
    if matches:
        table.add_column("match wins [95% CI]", justify="right")
    table.add_column("round wins [95% CI]", justify="right")
    table.add_column("levels/rd", justify="right")
    table.add_column("ms mean", justify="right")
    table.add_column("ms p95", justify="right")
    for bot in summary["bots"]:
        low, high = bot["round_win_ci95"]
        row = [bot["bot"]]
        if matches:
            m_low, m_high = bot["match_win_ci95"]
            row.append(f"{bot['match_win_rate']:.1%} [{m_low:.1%}, {m_high:.1%}]")
        row += [
            f"{bot['round_win_rate']:.1%} [{low:.1%}, {high:.1%}]",
            f"{bot['levels_per_round']:.2f}",
            f"{bot['decision_ms_mean']:.2f}",
            f"{bot['decision_ms_p95']:.2f}",
        ]
        table.add_row(*row)
    console.print(table)
    console.print(
        f"{summary['pairs_split']} of {pairs} pairs split (each bot won the deal once); "
        f"{elapsed:.0f} s"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    stem = f"{_slug(specs[0].label)}_vs_{_slug(specs[1].label)}_{unit}{pairs * 2}_seed{args.seed}"
    json_path = args.out / f"{stem}.json"
    json_path.write_text(json.dumps(summary, indent=2) + "\n")
    png_path = args.out / f"{stem}.png"
    write_chart(summary, png_path, f"{specs[0].label} vs {specs[1].label}, {pairs * 2} {unit}")
    console.print(f"wrote {json_path} and {png_path}")
    return 0


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text)


def _command_line(args: argparse.Namespace) -> str:
    parts = ["fouronefour", "arena", args.bot_a, args.bot_b]
    if args.matches is not None:
        parts += ["--matches", str(args.matches)]
    else:
        parts += ["--rounds", str(args.rounds)]
    parts += ["--seed", str(args.seed), "--jobs", str(args.jobs)]
    if args.budget_ms is not None:
        parts += ["--budget-ms", f"{args.budget_ms:g}"]
    return " ".join(parts)


__all__ = [
    "BotSpec",
    "GameRecord",
    "add_arguments",
    "play_pair",
    "run",
    "run_arena",
    "summarize",
    "wilson",
]
