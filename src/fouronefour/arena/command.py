"""``fouronefour arena A B``: measure two bots against each other (see :mod:`fouronefour.arena`).

Bots are named with optional parameters: ``search``, ``search:budget_ms=50``,
``search:budget_ms=50,max_candidates=4``. Prints the figures, writes them as JSON and, with
matplotlib installed, as a PNG chart.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from ..bots import names
from ..options import add_rule_arguments, rules_from_args
from . import chart
from .games import run_arena
from .spec import BotSpec
from .stats import summarize


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
    if not chart.available():
        console.print(f"wrote {json_path}", markup=False)
        console.print(f"no chart: matplotlib is not installed ({chart.INSTALL_HINT})", markup=False)
        return 0
    png_path = args.out / f"{stem}.png"
    chart.write_chart(
        summary, png_path, f"{specs[0].label} vs {specs[1].label}, {pairs * 2} {unit}"
    )
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


__all__ = ["add_arguments", "run"]
