"""``fouronefour simulate``: random legal play through whole matches, to measure speed."""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass

from rich.console import Console
from rich.progress import Progress

from .engine import Match, Rules
from .options import add_rule_arguments, rules_from_args, whole_number
from .progress import progress_bar


@dataclass(frozen=True)
class SimulationResult:
    rounds: int
    matches_finished: int
    decisions: int
    seconds: float

    @property
    def rounds_per_second(self) -> float:
        return self.rounds / self.seconds if self.seconds else 0.0

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0


def simulate(
    rules: Rules, rounds: int, seed: int, progress: Progress | None = None
) -> SimulationResult:
    """Play ``rounds`` rounds of random legal moves, match after match (tribute included)."""
    rng = random.Random(seed)
    task = progress.add_task("rounds", total=rounds) if progress is not None else None
    matches_finished = 0
    match = Match(rules, seed=f"{seed}/{matches_finished}")
    played = 0
    decisions = 0
    start = time.perf_counter()
    while played < rounds:
        moves = match.round.legal_moves()
        results_before = len(match.results)
        match = match.apply(moves[rng.randrange(len(moves))])
        decisions += 1
        if len(match.results) == results_before:
            continue
        played += 1
        if progress is not None and task is not None:
            progress.advance(task)
        if match.is_over:
            matches_finished += 1
            match = Match(rules, seed=f"{seed}/{matches_finished}")
    return SimulationResult(played, matches_finished, decisions, time.perf_counter() - start)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rounds", type=whole_number(1), default=1000, help="rounds to play (default %(default)s)"
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="seed of deals and moves (default %(default)s)"
    )
    add_rule_arguments(parser)


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    console = Console()
    with progress_bar(console, transient=True, disable=not console.is_terminal) as progress:
        result = simulate(rules, args.rounds, args.seed, progress)
    console.print(
        f"{result.rounds} rounds ({result.matches_finished} matches finished), "
        f"{result.decisions} decisions in {result.seconds:.2f} s"
    )
    console.print(f"rounds/s: {result.rounds_per_second:,.0f}")
    console.print(f"decisions/s: {result.decisions_per_second:,.0f}")
    return 0
