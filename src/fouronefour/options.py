"""Command-line options for a rule set (docs/rules.md section 10), shared by the subcommands."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from .engine import Rules
from .engine.rules import MAX_DECKS, MAX_PLAYERS, RULE_FIELDS


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: an integer from ``low`` (to ``high``), refused with the range."""
    span = f"{low} to {high}" if high is not None else f"{low} or more"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {span}, not {value}")
        return value

    parse.__name__ = "whole number"  # argparse names the type in its own messages
    return parse


def positive_ms(text: str) -> float:
    """An argparse type: a positive, finite number of milliseconds (a search budget)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of ms, not {text}")
    return value


def add_rule_arguments(parser: argparse.ArgumentParser, players: int = 4) -> None:
    group = parser.add_argument_group("rules (docs/rules.md section 10)")
    group.add_argument(
        "--players",
        type=whole_number(2, MAX_PLAYERS),
        default=players,
        help=f"seats, 2 to {MAX_PLAYERS} (default %(default)s)",
    )
    group.add_argument(
        "--decks",
        type=whole_number(1, MAX_DECKS),
        default=None,
        help=f"54-card decks, 1 to {MAX_DECKS} (default: one per two players, rounded up)",
    )
    group.add_argument(
        "--no-hooking", dest="hooking", action="store_false", help="play without hooking"
    )
    group.add_argument(
        "--no-tribute", dest="tribute", action="store_false", help="play without tribute"
    )
    group.add_argument(
        "--bomb-ladder",
        choices=["listed", "size"],
        default="listed",
        help="order of bombs: as the rules list them, or by size (default %(default)s)",
    )


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The Rules the options name; argparse-style exit with the reason if they are invalid."""
    try:
        # (Every rule but ``goal``, a club event's shorter match, which no command offers.)
        named = {name: getattr(args, name) for name in RULE_FIELDS if name != "goal"}
        return Rules.from_dict(named)
    except ValueError as error:
        raise SystemExit(f"fouronefour: invalid rules: {error}") from None
