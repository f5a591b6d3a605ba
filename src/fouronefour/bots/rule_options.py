"""Rule-set options (RULES.md section 10) for the ``arena`` and ``play`` commands."""

from __future__ import annotations

import argparse

from fouronefour.engine import Rules


def add_rule_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("rules (RULES.md section 10)")
    group.add_argument("--players", type=int, default=4, help="seats, 2 or more (default 4)")
    group.add_argument("--decks", type=int, default=None, help="decks (default ceil(players/2))")
    group.add_argument("--no-hooking", dest="hooking", action="store_false", help="no hooking")
    group.add_argument("--no-tribute", dest="tribute", action="store_false", help="no tribute")
    group.add_argument(
        "--bomb-ladder", choices=["listed", "size"], default="listed", help="order of bombs"
    )


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The Rules the options name; exits with the reason if they are invalid."""
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
