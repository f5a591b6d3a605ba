"""``fouronefour play``: a match in the terminal against bots (:mod:`fouronefour.play.game`)."""

from __future__ import annotations

import argparse
import random

from rich.console import Console

from ..arena.spec import BotSpec, bot_spec
from ..cli import print_whole
from ..options import add_rule_arguments, positive_ms, rules_from_args, whole_number
from .game import Quit, TerminalGame


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bots",
        type=bot_spec,
        default="strong",
        help="the bots at the other seats: a level (beginner, casual, strong, expert; "
        "docs/bots.md) or a bot by name (greedy, random, search, ...), with parameters if "
        "wanted, such as search:budget_ms=500 (default %(default)s)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of the deals (default: a random one)"
    )
    parser.add_argument(
        "--seat", type=whole_number(0), default=0, help="your seat (default %(default)s)"
    )
    parser.add_argument(
        "--budget-ms",
        type=positive_ms,
        default=200.0,
        help="the search bot's time per decision, in ms (default %(default)s)",
    )
    add_rule_arguments(parser)


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    spec: BotSpec = args.bots
    params = dict(spec.params)
    if spec.name == "search":
        params.setdefault("budget_ms", args.budget_ms)
    console = Console()
    try:
        game = TerminalGame(
            rules, seed, spec.name, args.seat, console, bot_params=params, bot_label=spec.label
        )
    except ValueError as error:
        print_whole(console, f"fouronefour play: {error}")
        return 2
    console.print(f"Match seed {seed} (replay it with --seed {seed}).")
    try:
        game.play()
    except Quit:
        console.print("Bye.")
    return 0


__all__ = ["add_arguments", "run"]
