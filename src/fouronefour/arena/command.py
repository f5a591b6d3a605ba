"""``fouronefour arena A B``: measure two bots against each other (see :mod:`fouronefour.arena`).

Bots are named with optional parameters: ``search``, ``search:budget_ms=50``,
``search:budget_ms=50,max_candidates=4``. Prints the figures, writes them as JSON and, with
matplotlib installed, as a PNG chart. Everything the command is given is checked before
any game is played, and Ctrl-C stops the worker processes at once.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from ..cli import print_whole
from ..engine import Rules
from ..options import add_rule_arguments, positive_ms, rules_from_args, whole_number
from ..progress import progress_bar
from . import chart
from .games import run_arena
from .spec import BotSpec, bot_spec, labels
from .stats import summarize


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "bot_a", metavar="A", type=bot_spec, help="bot, e.g. greedy or search:budget_ms=50"
    )
    parser.add_argument("bot_b", metavar="B", type=bot_spec, help="the other bot")
    size = parser.add_mutually_exclusive_group()
    size.add_argument(
        "--rounds",
        type=_even_count,
        default=200,
        help="rounds to play, an even number: each deal is played twice (default %(default)s)",
    )
    size.add_argument(
        "--matches",
        type=_even_count,
        default=None,
        help="play this many whole matches instead, an even number (each match seed twice)",
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="seed of the deals (default %(default)s)"
    )
    parser.add_argument(
        "--jobs", type=whole_number(1), default=1, help="worker processes (default %(default)s)"
    )
    parser.add_argument(
        "--budget-ms",
        type=positive_ms,
        default=None,
        help="time per decision for the search bot, in ms (default: the bot's 200; "
        "a budget_ms in the bot's name wins)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("arena-results"),
        help="directory for the JSON and PNG files (default %(default)s)",
    )
    add_rule_arguments(parser)


def _even_count(text: str) -> int:
    count = whole_number(2)(text)
    if count % 2:
        raise argparse.ArgumentTypeError(
            f"must be even, not {count}: each deal is played twice, the teams swapped"
        )
    return count


def _spec_with_budget(spec: BotSpec, budget_ms: float | None) -> BotSpec:
    if budget_ms is None or spec.name != "search" or any(k == "budget_ms" for k, _ in spec.params):
        return spec
    return BotSpec(spec.name, (*spec.params, ("budget_ms", budget_ms)))


def file_stem(
    specs: tuple[BotSpec, BotSpec], rules: Rules, unit: str, count: int, seed: int
) -> str:
    """The results' file name without extension: the bots, the run and every rule option, so
    that runs under different rules never overwrite each other."""
    options = [f"{rules.players}p", f"{rules.deck_count}d"]
    if not rules.hooking:
        options.append("nohooking")
    if not rules.tribute:
        options.append("notribute")
    if rules.bomb_ladder != "listed":
        options.append(f"{rules.bomb_ladder}ladder")
    return (
        f"{_slug(specs[0].label)}_vs_{_slug(specs[1].label)}_{unit}{count}_seed{seed}_"
        + "-".join(options)
    )


def _writable_directory(path: Path) -> str | None:
    """None if ``path`` is (or can be made) a directory this process can write in, else why
    not; checked before the run, so that a long run's results are never lost to it."""
    if path.exists() and not path.is_dir():
        return "it is not a directory"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return error.strerror or str(error)
    if not os.access(path, os.W_OK | os.X_OK):
        return "not writable"
    return None


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console = Console(width=120)  # logs and pipes: room for the whole table
    rules = rules_from_args(args)
    problem = _writable_directory(args.out)
    if problem is not None:
        print_whole(console, f"fouronefour arena: cannot write results to {args.out}: {problem}")
        return 2
    specs = (
        _spec_with_budget(args.bot_a, args.budget_ms),
        _spec_with_budget(args.bot_b, args.budget_ms),
    )
    matches = args.matches is not None
    count: int = args.matches if matches else args.rounds
    pairs = count // 2
    unit = "matches" if matches else "rounds"
    names = labels(specs)
    started = time.perf_counter()
    with progress_bar(console) as progress:
        task = progress.add_task(f"{names[0]} vs {names[1]}: {unit}", total=count)
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
        command=_command_line(args, rules),
        rules=rules.to_dict(),
        seed=args.seed,
        jobs=args.jobs,
        seconds=round(elapsed, 1),
        # Decision times are wall clock: the load says how much other work shared the cores.
        load_average=[round(x, 2) for x in os.getloadavg()],
    )
    console.print(_table(summary, f"{count} {unit} ({pairs} paired), seed {args.seed}"))
    console.print(
        f"{summary['pairs_split']} of {pairs} pairs split (each bot won the deal once); "
        f"{elapsed:.0f} s"
    )
    stem = file_stem(specs, rules, unit, count, args.seed)
    json_path = args.out / f"{stem}.json"
    json_path.write_text(json.dumps(summary, indent=2) + "\n")
    if not chart.available():
        print_whole(console, f"wrote {json_path}")
        print_whole(console, f"no chart: matplotlib is not installed ({chart.INSTALL_HINT})")
        return 0
    png_path = args.out / f"{stem}.png"
    title = (
        f"{names[0]} vs {names[1]}, {count} {unit}, {rules.players} players, "
        f"{rules.deck_count} decks"
    )
    chart.write_chart(summary, png_path, title)
    print_whole(console, f"wrote {json_path}")
    print_whole(console, f"wrote {png_path}")
    return 0


def _table(summary: dict[str, Any], title: str) -> Any:
    from rich.table import Table

    matches = summary["mode"] == "matches"
    table = Table(title=title)
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
    return table


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text)


def _command_line(args: argparse.Namespace, rules: Rules) -> str:
    """The command that repeats this run (its results, not its file location)."""
    parts = ["fouronefour", "arena", args.bot_a.label, args.bot_b.label]
    if args.matches is not None:
        parts += ["--matches", str(args.matches)]
    else:
        parts += ["--rounds", str(args.rounds)]
    parts += ["--seed", str(args.seed), "--jobs", str(args.jobs)]
    if args.budget_ms is not None:
        parts += ["--budget-ms", f"{args.budget_ms:g}"]
    parts += ["--players", str(rules.players), "--decks", str(rules.deck_count)]
    if not rules.hooking:
        parts.append("--no-hooking")
    if not rules.tribute:
        parts.append("--no-tribute")
    if rules.bomb_ladder != "listed":
        parts += ["--bomb-ladder", rules.bomb_ladder]
    return " ".join(parts)


__all__ = ["add_arguments", "file_stem", "run"]
