"""Learn 414: short lessons played at a real table, each a scripted deal (docs/tutorial.md).

A lesson is a data file in ``data/`` (``NN-id.json``: ``NN`` orders the lessons, ``id``
names one). :func:`catalogue` lists them, :func:`get` finds one, and :func:`respond` runs
one statelessly from the learner's moves so far. Depends on the engine and the bots only.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

from .model import LANGUAGES, Lesson, LessonFormatError, parse
from .runner import LessonMovesError, respond
from .validate import validate

_FILE_NAME = re.compile(r"^(\d+)-([a-z][a-z0-9-]*)\.json$")


class LessonNotFound(KeyError):
    """No lesson has that id."""


def parse_file(name: str, source: str) -> Lesson:
    """The lesson in a data file called ``name`` (``NN-id.json``), validated."""
    match = _FILE_NAME.match(name)
    if match is None:
        raise LessonFormatError(
            f"{name}: a lesson file is named NN-id.json, e.g. 04-following.json"
        )
    try:
        data = json.loads(source)
    except json.JSONDecodeError as error:
        raise LessonFormatError(f"{name}: not JSON ({error})") from None
    lesson = parse(data, match.group(2), int(match.group(1)))
    validate(lesson)
    return lesson


@cache
def lessons() -> dict[str, Lesson]:
    """Every lesson by id, in order; each validated against the engine when first loaded."""
    folder = resources.files(__package__).joinpath("data")
    found = [
        parse_file(entry.name, entry.read_text(encoding="utf-8"))
        for entry in folder.iterdir()
        if entry.name.endswith(".json")
    ]
    found.sort(key=lambda lesson: lesson.order)
    ids = [lesson.id for lesson in found]
    if len(set(ids)) != len(ids):
        raise LessonFormatError(f"two lesson files share an id: {ids}")
    return {lesson.id: lesson for lesson in found}


def get(lesson_id: str) -> Lesson:
    found = lessons().get(lesson_id)
    if found is None:
        raise LessonNotFound(lesson_id)
    return found


def catalogue() -> list[dict[str, Any]]:
    """The lessons in order: id, the rules section taught, the title in every language, and
    how many decisions the learner makes (null when bots play)."""
    return [
        {
            "id": lesson.id,
            "order": lesson.order,
            "section": lesson.section,
            "title": dict(lesson.title),
            "decisions": lesson.decisions,
        }
        for lesson in lessons().values()
    ]


__all__ = [
    "LANGUAGES",
    "Lesson",
    "LessonFormatError",
    "LessonMovesError",
    "LessonNotFound",
    "catalogue",
    "get",
    "lessons",
    "parse_file",
    "respond",
]
