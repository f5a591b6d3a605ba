"""A lesson as data: the deal, the learner's seat, the script and the texts (docs/tutorial.md).

:func:`parse` turns one lesson file's JSON into a :class:`Lesson` and says exactly what is
wrong with a file that does not fit the format; whether the moves are legal is checked
against the engine by :mod:`.validate`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fouronefour.engine import Rules
from fouronefour.engine.cards import parse_ranks
from fouronefour.engine.errors import IllegalMove

#: Every text exists in each of these languages (the browser client's five).
LANGUAGES = ("en", "de", "it", "hi", "zh")

#: A lesson id: the file name without its order prefix, e.g. "following" for 04-following.json.
LESSON_ID = re.compile(r"^[a-z][a-z0-9-]{0,39}$")

Texts = Mapping[str, str]


class LessonFormatError(ValueError):
    """A lesson file that does not fit the format, or whose script the engine refuses."""


@dataclass(frozen=True, slots=True)
class Deal:
    """The arguments of ``Round.from_hands``."""

    hands: tuple[str, ...]
    leader: int | None
    level: str
    previous_finished: tuple[int, ...] | None
    previous_caught: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class WrongTry:
    """Moves the lesson expects a learner might try at a decision, and why they are wrong."""

    moves: tuple[str, ...]
    text: Texts


@dataclass(frozen=True, slots=True)
class Step:
    """One of the learner's decisions: the moves the lesson accepts, and what it says."""

    expect: tuple[str, ...]
    task: Texts
    hint: Texts
    success: Texts
    wrong: tuple[WrongTry, ...]
    other: Texts | None  # for a legal move that is not the lesson's; None: the common text


@dataclass(frozen=True, slots=True)
class Scripted:
    """A move of another seat, played at its point in the script."""

    seat: int
    move: str


@dataclass(frozen=True, slots=True)
class Bots:
    """A lesson without a script: bots play the other seats and the learner plays freely."""

    name: str
    seed: int


@dataclass(frozen=True, slots=True)
class Lesson:
    id: str
    order: int
    section: str | None  # the section of docs/rules.md it teaches (None: all of them)
    title: Texts
    intro: Texts
    done: Texts
    rules: Rules
    deal: Deal
    levels: tuple[str, str]  # the teams' levels at the round's start
    seat: int
    script: tuple[Scripted | Step, ...]
    bots: Bots | None

    @property
    def decisions(self) -> int | None:
        """How many decisions the learner makes; None when bots play (it depends on play)."""
        if self.bots is not None:
            return None
        return sum(1 for entry in self.script if isinstance(entry, Step))


def move_key(text: str) -> str:
    """What a tried move is compared by: "pass", or its ranks sorted, so that "A44", "44a"
    and "4 4 A" are one try even when they are no move. Raises IllegalMove for no ranks."""
    if text.strip().lower() == "pass":
        return "pass"
    counts = parse_ranks(text)
    return ",".join(str(n) for n in counts)


# ----------------------------------------------------------------- reading JSON


def _fail(where: str, problem: str) -> LessonFormatError:
    return LessonFormatError(f"{where}: {problem}")


def _object(value: Any, where: str, required: Sequence[str], optional: Sequence[str] = ()) -> Any:
    if not isinstance(value, dict):
        raise _fail(where, "must be a JSON object")
    missing = [key for key in required if key not in value]
    if missing:
        raise _fail(where, f"missing {', '.join(missing)}")
    unknown = sorted(set(value) - set(required) - set(optional))
    if unknown:
        raise _fail(where, f"unknown field(s) {', '.join(unknown)}")
    return value


def _texts(value: Any, where: str) -> Texts:
    _object(value, where, LANGUAGES)
    for lang in LANGUAGES:
        text = value[lang]
        if not isinstance(text, str) or not text.strip():
            raise _fail(where, f"the {lang} text is empty")
    return {lang: value[lang] for lang in LANGUAGES}


def _seat(value: Any, where: str, players: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < players:
        raise _fail(where, f"{value!r} is not a seat at {players} players")
    return value


def _move_text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise _fail(where, f"{value!r} is not a move text")
    try:
        move_key(value)
    except IllegalMove as error:
        raise _fail(where, str(error)) from None
    return value


def _moves(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise _fail(where, "must be a non-empty list of moves")
    return tuple(_move_text(move, f"{where}[{i}]") for i, move in enumerate(value))


def _seats(value: Any, where: str, players: int) -> tuple[int, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise _fail(where, "must be a list of seats or null")
    return tuple(_seat(seat, f"{where}[{i}]", players) for i, seat in enumerate(value))


def _rules(value: Any, where: str) -> Rules:
    try:
        return Rules.from_dict(value)
    except ValueError as error:
        raise _fail(where, str(error)) from None


def _deal(value: Any, where: str, players: int) -> Deal:
    deal = _object(
        value, where, ("hands",), ("leader", "level", "previous_finished", "previous_caught")
    )
    hands = deal["hands"]
    if not isinstance(hands, list) or not all(isinstance(hand, str) for hand in hands):
        raise _fail(f"{where}.hands", "must be a list of rank strings")
    leader = deal.get("leader")
    if leader is not None:
        leader = _seat(leader, f"{where}.leader", players)
    level = deal.get("level", "2")
    if not isinstance(level, str):
        raise _fail(f"{where}.level", 'must be a rank text such as "2" or "K"')
    return Deal(
        hands=tuple(hands),
        leader=leader,
        level=level,
        previous_finished=_seats(
            deal.get("previous_finished"), f"{where}.previous_finished", players
        ),
        previous_caught=_seats(deal.get("previous_caught"), f"{where}.previous_caught", players),
    )


def _step(value: Any, where: str) -> Step:
    entry = _object(value, where, ("expect", "task", "hint", "success"), ("wrong", "other"))
    wrong_list = entry.get("wrong", [])
    if not isinstance(wrong_list, list):
        raise _fail(f"{where}.wrong", "must be a list")
    wrong = []
    for i, item in enumerate(wrong_list):
        item_where = f"{where}.wrong[{i}]"
        _object(item, item_where, ("moves", "text"))
        wrong.append(
            WrongTry(
                _moves(item["moves"], f"{item_where}.moves"),
                _texts(item["text"], f"{item_where}.text"),
            )
        )
    other = entry.get("other")
    return Step(
        expect=_moves(entry["expect"], f"{where}.expect"),
        task=_texts(entry["task"], f"{where}.task"),
        hint=_texts(entry["hint"], f"{where}.hint"),
        success=_texts(entry["success"], f"{where}.success"),
        wrong=tuple(wrong),
        other=None if other is None else _texts(other, f"{where}.other"),
    )


def _script_entry(value: Any, where: str, players: int) -> Scripted | Step:
    if isinstance(value, dict) and "expect" in value:
        return _step(value, where)
    entry = _object(value, where, ("seat", "move"))
    return Scripted(
        _seat(entry["seat"], f"{where}.seat", players), _move_text(entry["move"], f"{where}.move")
    )


def _bots(value: Any, where: str) -> Bots:
    entry = _object(value, where, ("name", "seed"))
    name, seed = entry["name"], entry["seed"]
    if not isinstance(name, str) or isinstance(seed, bool) or not isinstance(seed, int):
        raise _fail(where, "name must be a bot's name and seed an integer")
    return Bots(name, seed)


def _levels(value: Any, where: str, level: str) -> tuple[str, str]:
    if value is None:
        return (level, level)
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
        raise _fail(where, 'must be the two teams\' levels, e.g. ["2", "4"]')
    return (value[0], value[1])


def parse(data: Any, lesson_id: str, order: int) -> Lesson:
    """The lesson in a file's JSON; raises LessonFormatError saying what does not fit."""
    where = lesson_id
    if not LESSON_ID.match(lesson_id):
        raise _fail(where, "a lesson id is lower case letters, digits and dashes")
    lesson = _object(
        data,
        where,
        ("title", "intro", "done", "deal", "seat"),
        ("section", "rules", "levels", "script", "bots"),
    )
    if ("script" in lesson) == ("bots" in lesson):
        raise _fail(where, "a lesson has either a script or bots, not both or neither")
    section = lesson.get("section")
    if section is not None and not (
        isinstance(section, str) and re.fullmatch(r"\d+(\.\d+)?", section)
    ):
        raise _fail(f"{where}.section", 'must name a section of docs/rules.md, e.g. "6"')
    rules = _rules(lesson.get("rules", {}), f"{where}.rules")
    players = rules.players
    deal = _deal(lesson["deal"], f"{where}.deal", players)
    script: list[Scripted | Step] = []
    if "script" in lesson:
        entries = lesson["script"]
        if not isinstance(entries, list) or not entries:
            raise _fail(f"{where}.script", "must be a non-empty list")
        script = [
            _script_entry(entry, f"{where}.script[{i}]", players) for i, entry in enumerate(entries)
        ]
        if not any(isinstance(entry, Step) for entry in script):
            raise _fail(f"{where}.script", "holds no decision of the learner")
    return Lesson(
        id=lesson_id,
        order=order,
        section=section,
        title=_texts(lesson["title"], f"{where}.title"),
        intro=_texts(lesson["intro"], f"{where}.intro"),
        done=_texts(lesson["done"], f"{where}.done"),
        rules=rules,
        deal=deal,
        levels=_levels(lesson.get("levels"), f"{where}.levels", deal.level),
        seat=_seat(lesson["seat"], f"{where}.seat", players),
        script=tuple(script),
        bots=_bots(lesson["bots"], f"{where}.bots") if "bots" in lesson else None,
    )
