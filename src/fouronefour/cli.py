"""The ``fouronefour`` command: one subcommand per module that owns it.

Each subcommand lives beside the code it drives and exposes ``add_arguments(parser)``
and ``run(args) -> int``; imports are lazy so ``fouronefour simulate`` does not load
the server.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: subcommand -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("fouronefour.server.command", "host tables for friends in the browser"),
    "play": ("fouronefour.play.command", "play a match in the terminal against bots"),
    "arena": ("fouronefour.arena.command", "measure bots against each other"),
    "simulate": ("fouronefour.simulate", "play random legal moves and report the speed"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fouronefour", description="414, the team card game from Northeast China"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue  # a subcommand whose module is not installed shows in help only
        module.add_arguments(sub_parser)
        sub_parser.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    module = getattr(args, "_module", None)
    if module is None:
        parser.error(f"{args.command} is not available in this installation")
    result: int = module.run(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
