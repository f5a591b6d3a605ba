"""The terminal game, driven by scripted input."""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Callable, Iterator

import pytest
from rich.console import Console

import fouronefour as ff
from fouronefour.engine.cards import RANKS, deck_counts, parse_ranks
from fouronefour.play import Quit, TerminalGame, group_hand


def _console(width: int = 100) -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=width, color_system=None, force_terminal=False), buffer


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


def test_the_bots_are_a_level_by_name_strong_unless_told(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from fouronefour.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "--seed", "4", "--seat", "1", "--bots", "casual"]) == 0
    assert "(opponent, casual)" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "--seed", "4", "--seat", "1"]) == 0
    assert "(opponent, strong)" in capsys.readouterr().out


def test_a_bad_seat_is_refused() -> None:
    with pytest.raises(ValueError):
        TerminalGame(ff.Rules(), seed=1, seat=4)


def test_hands_read_in_groups() -> None:
    assert group_hand("334555BR") == "33 4 555 B R"


@functools.cache
def _two_rounds_with_hooks(width: int) -> str:
    """The person at seat 1 takes the greedy bot's hint at every prompt, 4 decks (many hooks)."""
    console, buffer = _console(width)
    read = _hinting_player(buffer, [])
    game = TerminalGame(ff.Rules(decks=4), seed=3, bot="greedy", seat=1, console=console, read=read)
    while not game.match.is_over and len(game.match.results) < 2:
        seat = game.match.round.to_act
        if seat == game.seat:
            game.human_turn()
        else:
            game.bot_turn(seat or 0)
    return buffer.getvalue()


@pytest.mark.parametrize("width", [80, 120])
def test_the_round_header_stays_on_one_line_at_hook_prompts(width: int) -> None:
    text = _two_rounds_with_hooks(width)
    lines = text.splitlines()
    hook_prompts = [i for i, line in enumerate(lines) if ": hook with" in line]
    assert hook_prompts
    headers = [line for line in lines if line.startswith("Round ") and ", level " in line]
    assert headers and all(re.search(r"other team [2-9TJQKA]$", h) for h in headers)


def test_the_log_shows_where_each_trick_starts() -> None:
    text = _two_rounds_with_hooks(120)
    leads = re.findall(r"^(Seat \d \(\w+, greedy\) leads|You lead) (\S+)$", text, re.MULTILINE)
    assert len(leads) > 10 and any(who == "You lead" for who, _ in leads)
    for block in text.split("\n\n")[1:]:  # every trick after the first opens with its lead
        assert re.match(r"(Seat \d \(\w+, greedy\) leads|You lead|Your team|The other)", block)


def test_errors_speak_to_the_person_and_show_the_hand_grouped() -> None:
    console, buffer = _console()
    game = TerminalGame(ff.Rules(), seed=11, seat=0, console=console, read=lambda: "quit")
    while game.match.round.to_act != 0:
        game.bot_turn(game.match.round.to_act or 0)
    view = game.match.view(0)
    missing = next(r for r in RANKS[:13] if r not in view["hand"])
    lines = iter([missing, "pass" if view["top"] is None else "3345", "quit"])
    game._read = lines.__next__
    with pytest.raises(Quit):
        game.human_turn()
    text = buffer.getvalue()
    hand = group_hand(view["hand"])
    assert f"Not legal: you do not hold {missing} (your hand: {hand})" in text.replace("\n", " ")
    assert "seat 0" not in text.lower()


def test_the_leader_is_told_they_may_not_pass() -> None:
    console, buffer = _console()
    game = TerminalGame(ff.Rules(), seed=11, seat=0, console=console)
    while (game.match.round.to_act, game.match.round.top) != (0, None):
        if game.match.round.to_act == 0:
            game.apply(game.match.round.legal_moves()[-1])  # seat 0 passes while following
        else:
            game.bot_turn(game.match.round.to_act or 0)
    game._read = iter(["pass", "quit"]).__next__
    with pytest.raises(Quit):
        game.human_turn()
    assert "Not legal: you lead this trick and may not pass" in buffer.getvalue()


def test_help_lists_every_command_and_played_counts_the_cards() -> None:
    console, buffer = _console()
    game = TerminalGame(ff.Rules(), seed=5, seat=0, console=console)
    for _ in range(12):  # a few moves into the round
        seat = game.match.round.to_act
        game.apply(
            game.match.round.legal_moves()[-1] if seat else game.match.round.legal_moves()[0]
        )
    while game.match.round.to_act != 0:
        game.bot_turn(game.match.round.to_act or 0)
    game._read = iter(["help", "played", "exit"]).__next__
    with pytest.raises(Quit):
        game.human_turn()
    text = buffer.getvalue()
    for command in ("hint", "hand", "played", "help", "quit", "exit"):
        assert re.search(rf"\b{command}\b", text.split("Type a move", 1)[1])
    view = game.match.view(0)
    played = re.search(r"Played this round: (.*)", text)
    unseen = re.search(r"Not seen by you: +(.*)", text)
    assert played and unseen

    def counts(line: str) -> list[int]:
        total = [0] * 15
        for item in line.split():
            rank, n = item.split("x")
            total[RANKS.index(rank)] += int(n)
        return total

    hand = parse_ranks(view["hand"])
    whole = [a + b + c for a, b, c in zip(counts(played[1]), counts(unseen[1]), hand, strict=True)]
    assert whole == list(deck_counts(2))
    moves = [e["move"] for e in view["log"] if e["type"] in ("play", "hook", "unhook")]
    assert sum(counts(played[1])) == sum(len(m) for m in moves) > 0
