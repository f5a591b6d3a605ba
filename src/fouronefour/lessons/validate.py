"""A lesson checked against the engine: every scripted move legal at its point, every
expected move legal, every anticipated wrong try really refused, along every path the
learner can take through the script."""

from __future__ import annotations

from fouronefour import bots
from fouronefour.engine import IllegalMove
from fouronefour.engine.cards import FACES

from .model import Lesson, LessonFormatError, Step, move_key
from .runner import Position, accepts, advance, decision_at, is_done, play, start


def validate(lesson: Lesson) -> None:
    """Raise LessonFormatError naming the first thing the engine refuses."""
    where = lesson.id
    for level in lesson.levels:
        if level not in FACES:
            raise LessonFormatError(f"{where}.levels: {level!r} is not a level (2 to A)")
    try:
        round_ = start(lesson)
    except ValueError as error:
        raise LessonFormatError(f"{where}.deal: {error}") from None
    if lesson.bots is not None:
        if lesson.bots.name not in bots.names():
            raise LessonFormatError(f"{where}.bots: no bot named {lesson.bots.name!r}")
        return
    try:
        round_, index = advance(lesson, round_, 0)
    except ValueError as error:  # IllegalMove is a ValueError
        raise LessonFormatError(f"{where}.script: {error}") from None
    _walk(lesson, Position(round_, index, 0))


def _walk(lesson: Lesson, position: Position) -> None:
    """Check the decision at ``position`` and every path on from it."""
    if is_done(lesson, position):
        return
    step = decision_at(lesson, position)
    assert isinstance(step, Step)
    where = f"{lesson.id}.script[{position.index}]"
    round_ = position.round
    if round_.to_act != lesson.seat:
        raise LessonFormatError(
            f"{where}: the learner's decision, but seat {round_.to_act} acts"
            " (is a scripted move missing?)"
        )
    for move in step.expect:
        try:
            round_.resolve(move)
        except IllegalMove as error:
            raise LessonFormatError(f"{where}.expect: {error}") from None
    expected = {move_key(move) for move in step.expect}
    for wrong in step.wrong:
        for move in wrong.moves:
            if move_key(move) in expected:
                raise LessonFormatError(f"{where}.wrong: {move!r} is also expected")
    for move in step.expect:
        canonical = accepts(lesson, position, move)
        assert canonical is not None
        try:
            after = play(lesson, position, canonical)
        except ValueError as error:
            raise LessonFormatError(f"{where} after {move!r}: {error}") from None
        _walk(lesson, after)
