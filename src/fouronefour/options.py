"""Command-line options for a rule set (docs/rules.md section 10), shared by the subcommands."""

from __future__ import annotations

import argparse

from .engine import Rules


def add_rule_arguments(parser: argparse.ArgumentParser, players: int = 4) -> None:
    group = parser.add_argument_group("rules (docs/rules.md section 10)")
    group.add_argument("--players", type=int, default=players, help="seats, 2 or more")
    group.add_argument("--decks", type=int, default=None, help="decks (default ceil(players/2))")
    group.add_argument("--no-hooking", dest="hooking", action="store_false", help="no hooking")
    group.add_argument("--no-tribute", dest="tribute", action="store_false", help="no tribute")
    group.add_argument(
        "--bomb-ladder", choices=["listed", "size"], default="listed", help="order of bombs"
    )


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The Rules the options name; argparse-style exit with the reason if they are invalid."""
    try:
        return Rules(
            players=args.players,
            decks=args.decks,
            hooking=args.hooking,
            tribute=args.tribute,
            bomb_ladder=args.bomb_ladder,
        )
    except ValueError as error:
        raise SystemExit(f"fouronefour: invalid rules: {error}") from None
