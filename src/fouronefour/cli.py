"""The ``fouronefour`` command: one subcommand per module that owns it.

Each subcommand lives beside the code it drives and exposes ``add_arguments(parser)``
and ``run(args) -> int``; imports are lazy so ``fouronefour simulate`` does not load
the server. Every subcommand gets ``--version``, option defaults in its help, and the same
answer to Ctrl-C: a short line and exit status 130 (the subcommand stops its own workers).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import __version__

if TYPE_CHECKING:
    from rich.console import Console

#: subcommand -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("fouronefour.server.command", "host tables for friends in the browser"),
    "play": ("fouronefour.play.command", "play a match in the terminal against bots"),
    "arena": ("fouronefour.arena.command", "measure bots against each other"),
    "train": ("fouronefour.train.command", "train the learned bot (needs the train extra)"),
    "simulate": ("fouronefour.simulate", "play random legal moves and report the speed"),
    "analyse": ("fouronefour.analysis.command", "where a finished match was won and lost"),
    "admin": ("fouronefour.server.admin", "find a player, reset a password, delete a profile"),
}

#: subcommand -> the extra that brings what its module imports
EXTRAS = {"serve": "server", "admin": "server", "train": "train"}

#: The exit status of a command stopped by Ctrl-C (128 + SIGINT), as shells report it.
INTERRUPTED = 130


class HelpFormatter(argparse.HelpFormatter):
    """Adds ``(default ...)`` to an option's help unless it says its default itself, or the
    default says nothing (None, or a flag's True/False)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help
        default: Any = action.default
        if (
            text is None
            or "(default" in text
            or not action.option_strings
            or default is None
            or default is argparse.SUPPRESS
            or isinstance(default, bool)
        ):
            return text
        return f"{text} (default %(default)s)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fouronefour",
        description="414, the team card game from Northeast China",
        formatter_class=HelpFormatter,
    )
    _add_version(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(
            name, help=help_text, description=help_text, formatter_class=HelpFormatter
        )
        _add_version(sub_parser)
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue  # a subcommand whose module is not installed shows in help only
        module.add_arguments(sub_parser)
        sub_parser.set_defaults(_module=module)
    return parser


def _add_version(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--version",
        action="version",
        version=f"fouronefour {__version__}",
        help="print the version",
    )


def print_whole(console: Console, text: str) -> None:
    """``text`` as one line, as it is: rich otherwise wraps at the terminal's width (or 80
    columns in a pipe), and a line break in the middle of an error or a path is read as two
    lines by a person and a script alike. No markup or highlighting either: a path with
    brackets is printed as it is."""
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def main(argv: Sequence[str] | None = None) -> int:
    command = "fouronefour"
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        command = f"fouronefour {args.command}"
        module = getattr(args, "_module", None)
        if module is None:
            extra = EXTRAS.get(args.command)
            needs = f": pip install 'fouronefour[{extra}]'" if extra else ""
            parser.error(f"{args.command} is not available in this installation{needs}")
        result: int = module.run(args)
    except KeyboardInterrupt:
        with contextlib.suppress(ValueError):  # only the main thread may set handlers
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C: we are leaving
        print(f"\n{command}: interrupted", file=sys.stderr)
        return INTERRUPTED
    return result


if __name__ == "__main__":
    sys.exit(main())
