"""``fouronefour analyse REPLAY.json``: where a finished match was won and lost.

Reads a match as the replay viewer downloads it (docs/protocol.md, section 2, "replays"),
analyses its rounds (:func:`fouronefour.analysis.analyse_round`) with a progress bar,
prints the marked moves (inaccuracies, mistakes and blunders, each with the better move)
and writes the win-chance graph per team as a PNG. docs/analysis.md has the method.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..progress import progress_bar
from .labels import MARKED


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Where a finished match was won and lost: every decision judged from the cards its "
        "player could see, the inaccuracies, mistakes and blunders printed with the better "
        "move, and each team's chance to win drawn as a PNG (docs/analysis.md)."
    )
    parser.add_argument(
        "replay",
        type=Path,
        metavar="REPLAY.json",
        help="a finished match as the replay viewer downloads it",
    )
    parser.add_argument(
        "--worlds",
        type=int,
        default=64,
        metavar="N",
        help="worlds sampled per decision: more is steadier and slower (default %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="seed of the analysis (default %(default)s)",
    )
    parser.add_argument(
        "--round", type=int, default=None, metavar="K", help="analyse round K only (from 1)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="PNG",
        help="the graph's PNG (default: the replay's name with -analysis.png)",
    )
    parser.add_argument(
        "--json",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write the analysis as JSON to this file",
    )


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from . import chart
    from .replays import read_replay
    from .rounds import analyse_round

    console = Console()
    if args.worlds < 2:
        return _fail("--worlds must be at least 2")
    try:
        text = args.replay.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not a text file"
        return _fail(f"cannot read {args.replay}: {reason or error}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return _fail(
            f"{args.replay} is not JSON ({error.msg} at line {error.lineno}, "
            f"column {error.colno}): download the replay from the replay viewer"
        )
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        # The server's answer to a replay it refused, saved instead of a replay.
        return _fail(
            f"{args.replay} is the server's refusal, not a replay: "
            f"{data['error'].get('message') or data['error'].get('code')}"
        )
    try:
        replay = read_replay(data)
    except ValueError as error:
        return _fail(f"{args.replay} is not a replay this version can read: {error}")
    if replay.winning_team is None:
        last = replay.rounds[-1].number if replay.rounds else 1
        return _fail(
            f"the match in {args.replay} is not finished (its moves stop in round {last}): "
            "analyse a finished match"
        )
    rounds = replay.rounds
    if args.round is not None:
        rounds = [r for r in rounds if r.number == args.round]
        if not rounds:
            return _fail(f"the match has no round {args.round} (rounds 1-{len(replay.rounds)})")
    out = args.out or args.replay.with_name(f"{args.replay.stem}-analysis.png")
    if not chart.available():
        console.print(f"no graph: it needs matplotlib ({chart.INSTALL_HINT})", markup=False)

    results: list[tuple[int, list[dict[str, Any]]]] = []
    total = sum(len(r.moves) for r in rounds)
    with progress_bar(console, transient=True) as progress:
        task = progress.add_task("decisions analysed", total=total)
        for r in rounds:
            progress.update(task, description=f"round {r.number}")
            done = progress.tasks[0].completed

            def advance(finished: int, _: int, base: float = done) -> None:
                progress.update(task, completed=base + finished)

            decisions = analyse_round(
                r.start, r.moves, worlds=args.worlds, seed=args.seed, progress=advance
            )
            results.append((r.number, decisions))

    for r, (_, decisions) in zip(rounds, results, strict=True):
        _print_round(console, replay, r, decisions)
    if len(results) > 1:
        _print_totals(console, replay.names, results)
    if args.json is not None:
        payload: dict[str, Any] = {
            "worlds": args.worlds,
            "seed": args.seed,
            "rounds": [
                {"round_number": n, "first_step": r.first_step, "decisions": d}
                for r, (n, d) in zip(rounds, results, strict=True)
            ],
        }
        try:
            args.json.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
        except OSError as error:
            return _fail(f"cannot write {args.json}: {error.strerror or error}")
        console.print(f"wrote {args.json}", markup=False)
    if chart.available():
        title = (
            f"Round {rounds[0].number}"
            if len(rounds) == 1
            else f"Rounds {rounds[0].number}-{rounds[-1].number}"
        )
        try:
            chart.write_win_chart(
                results,
                out,
                f"{title}: Team A's chance to win the round (seats 1, 3, …)",
            )
        except OSError as error:
            return _fail(f"cannot write {out}: {error.strerror or error}")
        console.print(f"wrote {out}", markup=False)
    return 0


def _fail(message: str) -> int:
    """One line on standard error; the exit status of a refused command."""
    print(f"fouronefour analyse: {message}", file=sys.stderr)
    return 2


def _print_round(console: Any, replay: Any, r: Any, decisions: list[dict[str, Any]]) -> None:
    from rich.markup import escape
    from rich.table import Table

    end = r.start
    for move in r.moves:
        end = end.apply(move)
    if end.is_over:
        team = end.winning_team
        winners = " & ".join(replay.names[s] for s in range(team, replay.rules.players, 2))
        caught = ", ".join(replay.names[s] for s in end.caught) or "nobody"
        outcome = f"team {team} ({winners}) won, caught {caught}"
    else:
        outcome = "not finished"
    console.print(f"\n[bold]Round {r.number}[/bold] at level {r.start.level}: {escape(outcome)}")
    marked = [(i, d) for i, d in enumerate(decisions) if d["label"] in MARKED]
    if not marked:
        console.print("no marked moves")
        return
    table = Table(show_edge=False)
    for column in ("step", "player", "decision", "played", "label", "chance", "better", "chance"):
        table.add_column(column, justify="right" if column in ("step", "chance") else "left")
    colours = {"inaccuracy": "yellow", "mistake": "dark_orange", "blunder": "red"}
    for i, d in marked:
        table.add_row(
            str(r.first_step + i),
            escape(f"{replay.names[d['seat']]} (seat {d['seat']})"),
            d["decision"],
            d["move"],
            f"[{colours[d['label']]}]{d['label']}[/]",
            f"{d['played_win_chance']:.0%}",
            d["best_move"],
            f"{d['best_win_chance']:.0%}",
        )
    console.print(table)


def _print_totals(
    console: Any, names: list[str], results: list[tuple[int, list[dict[str, Any]]]]
) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="Marked moves per player", show_edge=False)
    table.add_column("player")
    for label in MARKED:
        table.add_column(label, justify="right")
    for seat, name in enumerate(names):
        mine = [d for _, ds in results for d in ds if d["seat"] == seat]
        table.add_row(
            escape(name), *(str(sum(d["label"] == label for d in mine)) for label in MARKED)
        )
    console.print(table)


__all__ = ["add_arguments", "run"]
