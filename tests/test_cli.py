"""The ``fouronefour`` command as a user meets it: help, --version, and Ctrl-C."""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import fouronefour as ff
from fouronefour.cli import SUBCOMMANDS, HelpFormatter, build_parser, main


def _subparsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    parser = build_parser()
    [group] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    yield from group.choices.items()


@pytest.mark.parametrize("command", [[], *([name] for name in SUBCOMMANDS)])
def test_version_is_printed_by_every_command(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"fouronefour {ff.__version__}"


def test_every_option_has_help_that_shows_its_default() -> None:
    for name, parser in _subparsers():
        formatter = HelpFormatter(prog=name)
        for action in parser._actions:
            if not action.option_strings or action.dest in ("help", "version"):
                continue
            text = formatter._get_help_string(action)
            assert text, f"{name} {action.option_strings[0]} has no help"
            if action.default is None or isinstance(action.default, bool):
                continue  # nothing to show (a flag, or an option the help explains)
            assert "%(default)" in text, f"{name} {action.option_strings[0]} hides its default"
            shown = formatter._expand_help(action)
            said = re.findall(r"(?:\(|; )default\b", shown)
            assert len(said) == 1, f"{name} {action.option_strings[0]}: {shown}"
        assert "(default " in " ".join(parser.format_help().split())  # (at any width)


def test_out_of_range_rule_options_are_refused_with_their_range(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv, message in (
        (["simulate", "--decks", "25"], "argument --decks: must be 1 to 16, not 25"),
        (["play", "--players", "1"], "argument --players: must be 2 to 32, not 1"),
        (["arena", "greedy", "random", "--players", "x"], "'x' is not a whole number"),
        (["play", "--budget-ms", "0"], "must be a positive number of ms, not 0"),
        (["arena", "search", "greedy", "--budget-ms", "-1"], "a positive number of ms, not -1"),
    ):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2
        assert message in capsys.readouterr().err


def test_serve_refuses_what_would_leave_it_unusable_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each of these used to start a server that could not serve (a table could not be
    created, port 70000 listened on 4464) or to end in a traceback; now one line each and
    nothing is served."""
    db = str(tmp_path / "t.db")
    for flags, said in (
        (["--db", str(tmp_path / "no" / "x.db")], "there is no directory"),
        (["--db", str(tmp_path)], "is a directory"),
        (["--db", "mysql://x"], "a SQLite file or a postgresql:// URL"),
        (["--check", "--db", str(tmp_path / "no" / "x.db")], "there is no directory"),
        (["--db", "postgresql://u:secret@127.0.0.1:1/db"], "PostgreSQL does not answer"),
        (["--db", db, "--rate-burst", "0"], "--rate-burst at least 1"),
        (["--db", db, "--rate", "-1"], "--rate must be above 0"),
        (["--db", db, "--turn-seconds", "0"], "--turn-seconds must be 0.05 to 3600"),
        (["--db", db, "--turn-seconds", "99999"], "--turn-seconds must be 0.05 to 3600"),
        (["--db", db, "--hook-seconds", "0"], "--hook-seconds must be 0.05 to 60"),
        (["--db", db, "--max-tables", "0"], "--max-tables must be at least 1"),
        (["--db", db, "--bot-delay", "-1"], "--bot-delay must be 0 to 60"),
        (["--db", db, "--bot-processes", "-1"], "--bot-processes must be 0 to 64"),
        (["--db", db, "--port", "70000"], "--port must be 1 to 65535"),
        (["--db", db, "--port", "-1"], "--port must be 1 to 65535"),
    ):
        assert main(["serve", *flags]) != 0, flags
        out, err = capsys.readouterr()
        lines = (out + err).strip().splitlines()
        assert len(lines) == 1 and said in lines[0], (flags, lines)
        assert "secret" not in lines[0]


# ----------------------------------------------------------------- Ctrl-C


def _processes_in_group(group: int) -> list[int]:
    """Live processes of a process group, read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def _sigint_as_in_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(
    argv: list[str], processes: int = 1, printed: str = "", twice: bool = False
) -> tuple[int, str, float]:
    """Start ``fouronefour argv`` in a process group of its own, wait until ``processes``
    run in it and it has printed ``printed``, press Ctrl-C as a terminal does (SIGINT to the
    whole group; ``twice``: again 50 ms later), and return the exit status, standard error
    and seconds from Ctrl-C to exit. Asserts that no process of the group is left."""
    process = subprocess.Popen(
        [sys.executable, "-m", "fouronefour", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # as from a terminal: pytest-xdist's workers ignore SIGINT, and children inherit that
        preexec_fn=_sigint_as_in_a_terminal,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    try:
        deadline = time.monotonic() + 60
        while printed and printed not in process.stdout.readline():
            assert time.monotonic() < deadline and process.poll() is None
        while len(_processes_in_group(process.pid)) < processes:
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.05)
        time.sleep(0.5)  # into the work: bots thinking, workers playing
        pressed = time.monotonic()
        os.killpg(process.pid, signal.SIGINT)
        if twice:
            time.sleep(0.05)
            os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=10)
        took = time.monotonic() - pressed
        time.sleep(0.2)
        assert _processes_in_group(process.pid) == []
        return process.returncode, err, took
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()


def test_ctrl_c_while_a_bot_thinks_stops_play_at_once() -> None:
    rules = ff.Rules()
    _, leader = ff.deal(rules, 7, 1)
    you = (leader + 1) % 4  # a bot leads the first trick, with a long budget to think
    argv = ["play", "--bots", "search", "--budget-ms", "20000", "--seed", "7", "--seat", str(you)]
    code, err, took = _interrupt(argv, printed="You are seat")
    assert code == 130 and took < 2
    assert "Traceback" not in err and "fouronefour play: interrupted" in err


@pytest.mark.parametrize("twice", [False, True])
def test_ctrl_c_stops_the_arena_and_its_workers(tmp_path: Path, twice: bool) -> None:
    argv = ["arena", "search", "greedy", "--rounds", "40", "--jobs", "2", "--out", str(tmp_path)]
    code, err, took = _interrupt(argv, processes=3, twice=twice)
    assert code == 130 and took < 2
    assert "Traceback" not in err and "fouronefour arena: interrupted" in err
    assert list(tmp_path.iterdir()) == []  # nothing half written
