"""The long commands' progress where nobody watches a terminal: a line at times."""

from __future__ import annotations

import io

from rich.console import Console

from fouronefour.progress import progress_bar


def _console(terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=100), out


def test_a_log_gets_lines_of_progress() -> None:
    console, out = _console(terminal=False)
    with progress_bar(console, line_seconds=0.0) as progress:
        task = progress.add_task("learned vs search: rounds", total=1000)
        progress.advance(task, 2)
        progress.update(task, completed=40)
    lines = out.getvalue().splitlines()
    assert "learned vs search: rounds: 2 of 1,000" in lines[0]
    assert "learned vs search: rounds: 40 of 1,000" in lines[1]


def test_lines_come_no_more_often_than_asked() -> None:
    console, out = _console(terminal=False)
    with progress_bar(console, line_seconds=3600.0) as progress:
        task = progress.add_task("rounds", total=10)
        for _ in range(10):
            progress.advance(task)
    assert "of 10" not in out.getvalue()  # (the bar drawn at the end says 10/10)


def test_a_terminal_gets_the_bar_and_no_lines() -> None:
    console, out = _console(terminal=True)
    with progress_bar(console, line_seconds=0.0) as progress:
        task = progress.add_task("rounds", total=10)
        progress.advance(task, 5)
    assert "of 10" not in out.getvalue()
