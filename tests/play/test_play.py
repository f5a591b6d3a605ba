"""The terminal game, driven by scripted input."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator

import pytest
from rich.console import Console

import fouronefour as ff
from fouronefour.play import Quit, TerminalGame, group_hand


def _console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=100, color_system=None, force_terminal=False), buffer


def _hinting_player(buffer: io.StringIO, first: list[str]) -> Callable[[], str]:
    """Types ``first`` line by line, then for every prompt asks for a hint and types it."""

    def lines() -> Iterator[str]:
        yield from first
        while True:
            yield "hint"
            hints = re.findall(r"^hint: (\S+)$", buffer.getvalue()[-500:], re.MULTILINE)
            yield hints[-1]

    script = lines()
    return lambda: next(script)


def test_a_match_is_played_to_the_end_with_scripted_input() -> None:
    console, buffer = _console()
    read = _hinting_player(buffer, ["3345", "help", "zz"])
    game = TerminalGame(ff.Rules(), seed=11, bot="greedy", seat=0, console=console, read=read)
    match = game.play()
    assert match.is_over
    text = buffer.getvalue()
    assert "Not legal: '3345' is not a move" in text
    assert "Not legal:" in text.split("zz", 1)[1]  # 'zz' gets a message too
    assert "Type a move in the notation" in text
    assert "wins the match" in text
    assert "Tribute: " in text and "Return: " in text  # tribute is shown to everyone
    assert "Your hand:" in text and "Order of cards:" in text
    assert f"Round {len(match.results)} at level" in text
    assert "finished 1st" in text


def test_the_person_is_offered_hooks() -> None:
    console, buffer = _console()
    read = _hinting_player(buffer, [])
    game = TerminalGame(ff.Rules(decks=4), seed=3, bot="greedy", seat=1, console=console, read=read)
    rounds = 0
    while not game.match.is_over and rounds < 2:
        seat = game.match.round.to_act
        if seat == game.seat:
            game.human_turn()
        else:
            game.bot_turn(seat or 0)
        rounds = len(game.match.results)
    assert "hook with" in buffer.getvalue()


def test_quit_and_end_of_input_leave_the_match() -> None:
    console, _ = _console()
    game = TerminalGame(ff.Rules(), seed=1, console=console, read=iter(["quit"]).__next__)
    with pytest.raises(Quit):
        game.play()

    def closed() -> str:
        raise EOFError

    game = TerminalGame(ff.Rules(), seed=1, console=console, read=closed)
    with pytest.raises(Quit):
        game.play()


def test_the_command_runs_on_piped_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from fouronefour.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("3345\nhint\nquit\n"))
    assert main(["play", "--seed", "4", "--bots", "greedy"]) == 0
    out = capsys.readouterr().out
    assert "Match seed 4" in out and "Not legal" in out and "hint: " in out and "Bye." in out


def test_a_bad_seat_is_refused() -> None:
    with pytest.raises(ValueError):
        TerminalGame(ff.Rules(), seed=1, seat=4)


def test_hands_read_in_groups() -> None:
    assert group_hand("334555BR") == "33 4 555 B R"
