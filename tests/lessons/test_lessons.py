"""Lessons as data: every file validates against the engine, and the stateless runner shows
the learner their own view only, accepts the lesson's moves and explains every other try."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from importlib import resources
from typing import Any

import pytest

from fouronefour import lessons
from fouronefour.engine import Round
from fouronefour.lessons import runner
from fouronefour.lessons.model import LANGUAGES, Lesson, Step

DATA = resources.files("fouronefour.lessons").joinpath("data")
VIEW_KEYS = set(Round.from_hands(["3", "4"]).view(0))
RESPONSE_KEYS = {
    "lesson", "lang", "title", "section", "seat", "moves", "decisions", "done", "view",
    "window", "levels", "events", "say", "hint_move", "feedback", "result",
}  # fmt: skip


def _data_files() -> list[str]:
    return sorted(entry.name for entry in DATA.iterdir() if entry.name.endswith(".json"))


def _source(name: str) -> Any:
    return json.loads(DATA.joinpath(name).read_text(encoding="utf-8"))


def test_every_lesson_file_loads_and_validates() -> None:
    loaded = lessons.lessons()
    assert len(loaded) == len(_data_files()) >= 9
    assert [lesson.order for lesson in loaded.values()] == sorted(
        lesson.order for lesson in loaded.values()
    )
    listed = lessons.catalogue()
    assert [entry["id"] for entry in listed] == list(loaded)
    for entry in listed:
        assert set(entry["title"]) == set(LANGUAGES)


def test_the_lessons_teach_what_the_issue_lists() -> None:
    """Card order, combinations, following, bombs, hooking, the round's end, tribute, and a
    whole round at the end; each scripted lesson anticipates a wrong try at every step."""
    loaded = list(lessons.lessons().values())
    assert [lesson.section for lesson in loaded[:-1]] == ["2", "3", "3", "5", "4", "6", "7", "8"]
    assert loaded[-1].bots is not None and loaded[-1].bots.name == "greedy"
    for lesson in loaded[:-1]:
        steps = [entry for entry in lesson.script if isinstance(entry, Step)]
        assert steps and all(step.wrong for step in steps), lesson.id


def _broken(name: str, change: Any) -> str:
    data = _source(name)
    change(data)
    return json.dumps(data)


def _first_step(data: dict[str, Any]) -> dict[str, Any]:
    return next(entry for entry in data["script"] if "expect" in entry)


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        (lambda d: _first_step(d)["expect"].__setitem__(0, "K"), "does not hold"),
        (lambda d: d["script"].insert(0, {"seat": 1, "move": "3"}), "seat 1's, but seat 3 acts"),
        (lambda d: d["script"][0].__setitem__("move", "33"), "does not hold"),
        (lambda d: _first_step(d)["task"].pop("hi"), "missing hi"),
        (lambda d: _first_step(d)["hint"].__setitem__("zh", " "), "zh text is empty"),
        (lambda d: _first_step(d)["wrong"][0]["moves"].append("5"), "also expected"),
        (lambda d: d["script"].pop(0), "seat 3 acts"),
        (lambda d: d["deal"]["hands"].append("3"), "5 hands given"),
        (lambda d: d.__setitem__("colour", "red"), "unknown field"),
    ],
)
def test_a_broken_lesson_is_refused_saying_why(change: Any, complaint: str) -> None:
    with pytest.raises(lessons.LessonFormatError, match=complaint):
        lessons.parse_file("01-order.json", _broken("01-order.json", change))


def test_a_lesson_file_needs_an_order_and_an_id() -> None:
    with pytest.raises(lessons.LessonFormatError, match=r"NN-id\.json"):
        lessons.parse_file("order.json", DATA.joinpath("01-order.json").read_text())


# ----------------------------------------------------------------- walking every path


def _paths(lesson: Lesson) -> Iterator[list[str]]:
    """Every sequence of accepted learner moves, from the start to the lesson's end."""

    def walk(moves: list[str]) -> Iterator[list[str]]:
        yield moves
        position = runner.replay(lesson, moves)
        step = runner.decision_at(lesson, position)
        if step is not None:
            for move in step.expect:
                yield from walk([*moves, move])
        elif not runner.is_done(lesson, position):  # against bots: follow the hints
            response = runner.respond(lesson, moves)
            yield from walk([*moves, response["hint_move"]])

    return walk([])


def _check_only_own_view(lesson: Lesson, moves: list[str], response: dict[str, Any]) -> None:
    """What a response holds: the keys it may have, the learner's own Round.view and public
    events; no other seat's hand and no pending decision of anyone else."""
    assert set(response) == RESPONSE_KEYS
    position = runner.replay(lesson, moves)
    if response["feedback"] and response["feedback"]["accepted"]:
        position = runner.replay(lesson, [*moves, response["feedback"]["move"]])
    round_ = position.round
    view = response["view"]
    assert set(view) == VIEW_KEYS
    assert view == round_.view(lesson.seat)
    assert view["hand"] == round_.hand(lesson.seat)
    if round_.to_act != lesson.seat:
        assert view["decision"] is None and view["legal_moves"] == []
    assert all(event in round_.log for event in response["events"])
    text = json.dumps(response)
    for key in ("hands", "reveal", "offer_queue", "to_act", "_hands"):
        assert f'"{key}"' not in text


@pytest.mark.parametrize("lesson_id", list(lessons.lessons()))
def test_the_runner_shows_only_the_learners_view_on_every_path(lesson_id: str) -> None:
    lesson = lessons.get(lesson_id)
    for moves in _paths(lesson):
        response = runner.respond(lesson, moves, None, "hi")
        _check_only_own_view(lesson, moves, response)
        if response["done"]:
            assert response["say"]["done"] and response["hint_move"] is None
            continue
        assert response["say"]["task"] and response["hint_move"] in response["view"]["legal_moves"]
        accepted = runner.respond(lesson, moves, response["hint_move"], "zh")
        assert accepted["feedback"]["accepted"] and accepted["moves"] == len(moves) + 1
        _check_only_own_view(lesson, moves, accepted)
        step = runner.decision_at(lesson, runner.replay(lesson, moves))
        for wrong in step.wrong if step is not None else ():
            for move in wrong.moves:
                refused = runner.respond(lesson, moves, move, "de")
                assert refused["feedback"]["accepted"] is False
                assert refused["feedback"]["text"] == wrong.text["de"]
                _check_only_own_view(lesson, moves, refused)
                assert refused["view"] == response["view"]  # a refused try changes nothing


def test_a_wrong_try_is_explained_in_the_learners_language() -> None:
    lesson = lessons.get("following")
    # Anticipated by the lesson: its own words.
    refused = lessons.respond(lesson, [], "9T", "it")["feedback"]
    assert refused["reason"] == "lesson" and refused["legal"] is False
    assert refused["text"].startswith("Due carte non fanno una scala")
    assert "is not a move" in refused["engine"]
    # Illegal and not anticipated: the engine's reason, in words for the learner.
    refused = lessons.respond(lesson, [], "4", "de")["feedback"]
    assert refused["reason"] == "wrong_kind"
    assert refused["text"].startswith("4 kann 6 7 8 nicht folgen: Folge mit derselben Art")
    assert refused["engine"] == "'4' does not beat '678' at level 2"
    refused = lessons.respond(lesson, [], "QKA", "zh")["feedback"]
    assert (refused["reason"], refused["text"]) == ("not_held", "你手里没有 Q K A。")
    # Legal, but not the lesson's move.
    refused = lessons.respond(lesson, [], "pass", "en")["feedback"]
    assert refused["reason"] == "not_the_lesson" and refused["legal"] is True
    assert refused["text"].startswith("That move is allowed, but it is not the one")


def test_reasons_cover_leading_claims_and_returns() -> None:
    following = lessons.get("following")
    assert lessons.respond(following, ["9TJ"], "TJQ", "en")["feedback"]["reason"] == "not_held"
    bombs = lessons.respond(lessons.get("bombs"), ["777", "BB"], "33", "en")["feedback"]
    assert (bombs["reason"], bombs["text"]) == (
        "wrong_kind",
        "3 3 cannot follow R R: follow with the same kind and length, higher, or with a bomb.",
    )
    hook = lessons.respond(lessons.get("hooking"), [], "K", "en")["feedback"]
    assert (hook["reason"], hook["text"]) == (
        "claim_only",
        "Now you may only take the offer with 9 9, or decline.",
    )
    tribute = lessons.respond(lessons.get("tribute"), [], "pass", "en")["feedback"]
    assert tribute["reason"] == "not_returnable" and "3, 5, 6, 8" in tribute["text"]
    whole = lessons.respond(lessons.get("whole-round"), [], "pass", "en")["feedback"]
    assert whole["reason"] == "must_lead"
    nonsense = lessons.respond(following, [], "xyz", "en")["feedback"]
    assert nonsense["reason"] == "not_a_move" and nonsense["legal"] is False


def test_the_learners_own_offer_shows_the_claimed_move() -> None:
    response = lessons.respond(lessons.get("hooking"), ["99"])
    assert response["view"]["decision"] == "unhook"
    assert response["window"] == {"kind": "unhook", "rank": "5", "claimed": "55", "claimed_seat": 3}


def test_moves_that_leave_the_lesson_are_refused() -> None:
    lesson = lessons.get("order")
    with pytest.raises(lessons.LessonMovesError, match="move 0"):
        lessons.respond(lesson, ["R"])
    with pytest.raises(lessons.LessonMovesError, match="move 1"):
        lessons.respond(lesson, ["5", "nonsense"])
    with pytest.raises(lessons.LessonMovesError, match="over after 3"):
        lessons.respond(lesson, ["5", "R", "2", "7"])
    with pytest.raises(lessons.LessonMovesError, match="nothing left to try"):
        lessons.respond(lesson, ["5", "R", "2"], "7")


def test_any_spelling_of_the_expected_move_is_accepted() -> None:
    lesson = lessons.get("bombs")
    response = lessons.respond(lesson, ["7 7 7", "bb"], "a44")
    assert response["feedback"]["accepted"] and response["feedback"]["move"] == "44A"


def test_the_round_end_lesson_reports_caught_players_and_levels() -> None:
    response = lessons.respond(lessons.get("round-end"), ["A"], "55")
    assert response["done"] and response["view"]["is_over"]
    assert response["result"] == {
        "finished": [1, 2, 0],
        "caught": [3],
        "winning_team": 0,
        "levels_before": ["2", "2"],
        "levels_after": ["3", "2"],
    }


def test_the_whole_round_is_the_same_every_time_and_ends() -> None:
    lesson = lessons.get("whole-round")
    first = [copy.deepcopy(runner.respond(lesson, moves)) for moves in _paths(lesson)]
    again = [runner.respond(lesson, moves) for moves in _paths(lesson)]
    assert first == again
    assert first[-1]["done"] and first[-1]["result"]["winning_team"] == 0
    assert first[-1]["say"]["done"].startswith("Your team played out first")
    assert 4 <= len(first) - 1 <= 20  # the learner's decisions: a short round
