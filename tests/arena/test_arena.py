"""The arena: paired deals, statistics, and the command's JSON and PNG."""

from __future__ import annotations

import importlib.metadata
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import fouronefour as ff
from fouronefour import bots
from fouronefour.arena import BotSpec, chart, play_pair, run_arena, summarize, wilson
from fouronefour.cli import main


def test_each_deal_is_played_twice_with_the_teams_swapped() -> None:
    specs = (BotSpec.parse("greedy"), BotSpec.parse("random"))
    records = run_arena(specs, ff.Rules(), pairs=3, seed=5)
    assert [(r.index, r.swapped) for r in records] == [
        (i, swapped) for i in range(3) for swapped in (False, True)
    ]
    again = play_pair(specs, ff.Rules(), 5, 1, matches=False)
    assert [(r.winner, r.levels_gained, r.decisions) for r in again] == [
        (r.winner, r.levels_gained, r.decisions) for r in records[2:4]
    ]


def test_a_deterministic_bot_against_itself_splits_every_pair() -> None:
    # The same deal with the teams swapped: the same seats win, so each bot wins once.
    specs = (BotSpec.parse("greedy"), BotSpec.parse("greedy"))
    records = run_arena(specs, ff.Rules(), pairs=4, seed=2)
    summary = summarize(specs, records, matches=False)
    assert summary["pairs_split"] == 4
    assert [b["rounds_won"] for b in summary["bots"]] == [4, 4]
    assert summary["bots"][0]["round_win_rate"] == 0.5


def test_statistics_of_a_small_run() -> None:
    specs = (BotSpec.parse("greedy"), BotSpec.parse("random"))
    records = run_arena(specs, ff.Rules(), pairs=4, seed=1, jobs=2)
    summary = summarize(specs, records, matches=False)
    greedy, random_bot = summary["bots"]
    assert summary["rounds"] == summary["games"] == 8
    assert greedy["rounds_won"] + random_bot["rounds_won"] == 8
    assert greedy["round_win_rate"] == greedy["rounds_won"] / 8
    low, high = greedy["round_win_ci95"]
    assert low <= greedy["round_win_rate"] <= high
    levels = sum(r.levels_gained[0] for r in records) / 8
    assert greedy["levels_per_round"] == levels
    assert greedy["decisions_timed"] > 0 and greedy["decision_ms_p95"] > 0


def test_wilson_interval() -> None:
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_whole_matches_are_played_to_the_end() -> None:
    specs = (BotSpec.parse("greedy"), BotSpec.parse("random"))
    records = run_arena(specs, ff.Rules(), pairs=1, seed=3, matches=True)
    summary = summarize(specs, records, matches=True)
    assert summary["games"] == 2
    assert summary["rounds"] >= 2 * 7  # 12 levels to climb, at most 2 a round, then win at A
    assert summary["bots"][0]["matches_won"] == 2


def test_bot_specs_carry_parameters_and_refuse_bad_ones() -> None:
    spec = BotSpec.parse("search:budget_ms=20,max_candidates=3")
    assert spec.params == (("budget_ms", 20), ("max_candidates", 3))
    assert spec.label == "search:budget_ms=20,max_candidates=3"
    with pytest.raises(ValueError):
        BotSpec.parse("nobody")
    with pytest.raises(ValueError):
        BotSpec.parse("search:budget_ms")


def test_the_command_prints_and_writes_json_and_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "arena",
            "greedy",
            "search:worlds=1,max_candidates=2",
            "--rounds",
            "4",
            "--jobs",
            "2",
            "--seed",
            "7",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    output = capsys.readouterr().out
    assert "round wins" in output and "greedy" in output
    [json_path] = tmp_path.glob("*.json")
    [png_path] = tmp_path.glob("*.png")
    summary = json.loads(json_path.read_text())
    assert summary["rounds"] == 4 and summary["pairs"] == 2
    assert summary["command"].startswith("fouronefour arena greedy search")
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_bots_are_refused_before_anything_runs_with_one_clear_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for bot, message in (
        ("nobody", f"unknown bot 'nobody'; known: {', '.join(bots.names())}"),
        ("search:budget_ms=abc", "bot 'search': budget_ms must be a number, not 'abc'"),
        ("search:worlds=0", "bot 'search': worlds must be at least 1, not 0"),
        ("search:speed=3", "bot 'search' has no parameter 'speed' (its parameters: budget_ms"),
        ("random:depth=2", "bot 'random' has no parameter 'depth' (it takes none)"),
    ):
        with pytest.raises(SystemExit) as exit_info:
            main(["arena", "greedy", bot, "--rounds", "2"])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert f"argument B: {message}" in err
        assert "'<='" not in err  # no Python internals
        assert err.count(", ".join(bots.names())) == (1 if bot == "nobody" else 0)  # listed once


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rounds", "7"], "argument --rounds: must be even, not 7"),
        (["--matches", "3"], "argument --matches: must be even, not 3"),
        (["--rounds", "0"], "argument --rounds: must be 2 or more, not 0"),
        (["--jobs", "0"], "argument --jobs: must be 1 or more, not 0"),
        (["--budget-ms", "-5"], "argument --budget-ms: must be a positive number of ms"),
    ],
)
def test_counts_are_checked_not_rounded(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["arena", "greedy", "random", *argv])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_an_out_that_cannot_be_written_is_refused_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "taken"
    a_file.write_text("")
    for out, why in ((a_file, "it is not a directory"), (a_file / "below", "Not a directory")):
        assert main(["arena", "greedy", "random", "--rounds", "2", "--out", str(out)]) == 2
        output = capsys.readouterr().out
        assert f"cannot write results to {out}: {why}" in output.replace("\n", "")
        assert "rounds" not in output  # nothing was played


def test_an_error_line_is_never_wrapped_whatever_the_width(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27: rich wrapped the error at the terminal's width (``.../taken:`` then ``it is
    not a directory`` on the next line) once the temporary path was long, and ``make test``
    failed on a fresh machine. Each error is one whole line, at any width."""
    monkeypatch.setenv("COLUMNS", "40")
    deep = tmp_path / ("d" * 90) / ("e" * 90)
    deep.mkdir(parents=True)
    a_file = deep / "taken"
    a_file.write_text("")
    for out, why in ((a_file, "it is not a directory"), (a_file / "below", "Not a directory")):
        assert main(["arena", "greedy", "random", "--rounds", "2", "--out", str(out)]) == 2
        output = capsys.readouterr().out
        assert f"fouronefour arena: cannot write results to {out}: {why}\n" in output
    assert main(["play", "--seat", "9", "--players", "4", "--seed", "1"]) == 2
    line = "fouronefour play: seat 9 is not a seat at 4 players\n"
    assert capsys.readouterr().out == line


def test_results_of_different_rules_go_to_different_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chart, "available", lambda: False)  # the JSON names are enough here
    base = ["arena", "greedy", "random", "--rounds", "2", "--out", str(tmp_path)]
    for extra in ([], ["--players", "6"], ["--no-hooking"], ["--bomb-ladder", "size"]):
        assert main([*base, *extra]) == 0
    names = sorted(p.name for p in tmp_path.glob("*.json"))
    assert names == [
        "greedy_vs_random_rounds2_seed1_4p-2d-nohooking.json",
        "greedy_vs_random_rounds2_seed1_4p-2d-sizeladder.json",
        "greedy_vs_random_rounds2_seed1_4p-2d.json",
        "greedy_vs_random_rounds2_seed1_6p-3d.json",
    ]
    summary = json.loads((tmp_path / names[0]).read_text())
    assert summary["command"].endswith("--players 4 --decks 2 --no-hooking")


def _drawn(summary: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The axes of the chart drawn for ``summary``: (title, x labels, bar colours) each."""
    import matplotlib.colors
    import matplotlib.figure

    figures: list[Any] = []
    monkeypatch.setattr(
        matplotlib.figure.Figure, "savefig", lambda self, *a, **k: figures.append(self)
    )
    chart.write_chart(summary, Path("unused.png"), "title")
    [figure] = figures
    return [
        (
            axis.get_title(),
            [t.get_text() for t in axis.get_xticklabels()],
            [matplotlib.colors.to_hex(bar.get_facecolor()) for bar in axis.patches],
        )
        for axis in figure.axes
    ]


def test_a_mirror_match_has_two_rows_and_two_bars_and_colours_mean_the_bot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    specs = (BotSpec.parse("greedy"), BotSpec.parse("greedy"))
    summary = summarize(specs, run_arena(specs, ff.Rules(), pairs=2, seed=2), matches=False)
    assert [b["bot"] for b in summary["bots"]] == ["greedy (A)", "greedy (B)"]
    panels = _drawn(summary, monkeypatch)
    assert len(panels) == 3
    for _, labels, colours in panels:
        assert labels == ["greedy (A)", "greedy (B)"]
        assert colours == list(chart.BOT_COLOURS)  # one bar a bot, in the bot's colour


def test_the_matches_chart_shows_the_match_win_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    specs = (BotSpec.parse("greedy"), BotSpec.parse("random"))
    summary = summarize(specs, run_arena(specs, ff.Rules(), pairs=1, seed=3, matches=True), True)
    titles = [title for title, _, _ in _drawn(summary, monkeypatch)]
    assert titles[0] == "match win rate (95% CI)" and titles[1] == "round win rate (95% CI)"


def test_without_matplotlib_the_command_writes_json_and_says_how_to_get_charts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    code = main(["arena", "greedy", "random", "--rounds", "2", "--out", str(tmp_path)])
    assert code == 0
    output = capsys.readouterr().out
    assert "pip install 'fouronefour[charts]'" in output
    assert len(list(tmp_path.glob("*.json"))) == 1 and not list(tmp_path.glob("*.png"))


def test_charts_are_an_extra_that_the_test_extra_includes() -> None:
    requirements = importlib.metadata.requires("fouronefour") or []
    matplotlib = [r for r in requirements if r.startswith("matplotlib")]
    assert matplotlib and all("extra ==" in r for r in matplotlib)
    assert {r.split('extra == "')[1].rstrip('"') for r in matplotlib} == {"charts", "test"}
