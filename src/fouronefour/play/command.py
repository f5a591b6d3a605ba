"""``fouronefour play``: a match in the terminal against bots (:mod:`fouronefour.play.game`)."""

from __future__ import annotations

import argparse
import random
from typing import Any

from rich.console import Console

from ..options import add_rule_arguments, rules_from_args
from .game import Quit, TerminalGame


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bots", choices=["greedy", "search", "random"], default="greedy", help="the other seats"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of the deals (random)")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument(
        "--budget-ms", type=float, default=200.0, help="search bot time per decision (ms)"
    )
    add_rule_arguments(parser)


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    params: dict[str, Any] = {"budget_ms": args.budget_ms} if args.bots == "search" else {}
    console = Console()
    try:
        game = TerminalGame(rules, seed, args.bots, args.seat, console, bot_params=params)
    except ValueError as error:
        console.print(f"[red]{error}[/]")
        return 2
    console.print(f"Match seed {seed} (replay it with --seed {seed}).")
    try:
        game.play()
    except Quit:
        console.print("Bye.")
    return 0


__all__ = ["add_arguments", "run"]
