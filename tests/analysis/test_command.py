"""``fouronefour analyse``: a downloaded replay in, marked moves and a graph out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fouronefour.analysis.replays import read_replay
from fouronefour.cli import main


def test_help_names_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["analyse", "--help"])
    text = capsys.readouterr().out
    for option in ("REPLAY.json", "--worlds", "--seed", "--round", "--out", "--json"):
        assert option in text


def test_a_round_of_a_replay_is_analysed(
    replay_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png, report = tmp_path / "graph.png", tmp_path / "analysis.json"
    args = ["analyse", str(replay_file), "--round", "2", "--worlds", "4"]
    assert main([*args, "--out", str(png), "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "Round 2 at level" in out and "won" in out
    assert png.read_bytes().startswith(b"\x89PNG")
    replay = json.loads(replay_file.read_text())
    [entry] = json.loads(report.read_text())["rounds"]
    first = replay["rounds"][1]["first_step"]
    assert entry["round_number"] == 2 and entry["first_step"] == first
    steps = [s for s in replay["steps"] if s["round_number"] == 2]
    assert [d["move"] for d in entry["decisions"]] == [s["move"] for s in steps]
    assert [d["seat"] for d in entry["decisions"]] == [s["seat"] for s in steps]
    marked = [d for d in entry["decisions"] if d["label"] in ("inaccuracy", "mistake", "blunder")]
    # Every marked move is printed with its step number in the match and the better move.
    for d in marked:
        assert d["best_move"] in out
    assert ("no marked moves" in out) == (not marked)


def test_the_default_graph_goes_beside_the_replay(
    replay_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "ours.json"
    copy.write_text(replay_file.read_text())
    assert main(["analyse", str(copy), "--round", "1", "--worlds", "2"]) == 0
    assert (tmp_path / "ours-analysis.png").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"steps": []}', "no 'rules'"),
        ('{"rules": {"players": 4}, "seed": 1, "steps": [{"move": "AAAA"}]}', "step 0"),
        ('{"rules": {"players": 4, "colour": 1}, "seed": 1, "steps": []}', "unknown rule"),
        ("[1, 2]", "JSON object"),
        ("{not json", "is not JSON (Expecting property name enclosed in double quotes at line 1"),
        (
            '{"error": {"code": "match_in_progress", "message": "match 1 is being played"}}',
            "the server's refusal, not a replay: match 1 is being played",
        ),
    ],
)
def test_a_bad_replay_gets_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert main(["analyse", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fouronefour analyse: ")  # one line
    assert message in err


def test_a_match_not_finished_is_refused(
    replay_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(replay_file.read_text())
    data["steps"] = data["steps"][:-5]
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(data))
    assert main(["analyse", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not finished" in err


def test_missing_files_and_rounds_are_refused(
    replay_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["analyse", str(tmp_path / "nowhere.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["analyse", str(replay_file), "--round", "99"]) == 2
    assert "no round 99" in capsys.readouterr().err
    out = tmp_path / "no-such-folder" / "graph.png"
    assert (
        main(["analyse", str(replay_file), "--round", "1", "--worlds", "2", "--out", str(out)]) == 2
    )
    assert "cannot write" in capsys.readouterr().err


def test_a_replay_from_another_deal_is_refused(replay_file: Path) -> None:
    data = json.loads(replay_file.read_text())
    data["rounds"][0]["start"]["hands"][0] = data["rounds"][0]["start"]["hands"][1]
    with pytest.raises(ValueError, match="another version"):
        read_replay(data)
    names = read_replay(json.loads(replay_file.read_text())).names
    assert names == ["Ann", "Bob", "Cleo", "Dan"]
