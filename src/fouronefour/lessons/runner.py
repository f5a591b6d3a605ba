"""Running a lesson statelessly: from the learner's moves so far to what the lesson shows now.

Every call replays the lesson from ``Round.from_hands``: the other seats' moves (the script's,
or the bots') are played between the learner's, and the learner's moves must be ones the
lesson accepted. What comes back is built from ``Round.view(seat)`` of the learner's seat
and public events only: never another seat's hand (docs/rules.md section 9).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from fouronefour import bots
from fouronefour.bots.worlds import claimed_move
from fouronefour.engine import IllegalMove, Round
from fouronefour.engine.cards import FACES

from . import reasons
from .model import LANGUAGES, Lesson, Scripted, Step, move_key

#: The bot whose move a Hint suggests in a lesson played against bots.
HINT_BOT = "greedy"


class LessonMovesError(ValueError):
    """The learner's moves so far are not a path through the lesson."""


@dataclass(frozen=True, slots=True)
class Position:
    """Where a replay stands: the round, the next script entry, and the log's size when
    the learner last moved (what happened since is shown as news)."""

    round: Round
    index: int
    mark: int


def start(lesson: Lesson) -> Round:
    deal = lesson.deal
    return Round.from_hands(
        list(deal.hands),
        leader=deal.leader,
        level=deal.level,
        rules=lesson.rules,
        previous_finished=deal.previous_finished,
        previous_caught=deal.previous_caught,
    )


def _bot_move(lesson: Lesson, round_: Round, name: str) -> str:
    seat = round_.to_act
    assert seat is not None and lesson.bots is not None
    legal = round_.legal_moves()
    rng = random.Random(lesson.bots.seed * 1_000_003 + round_.log_size * 31 + seat)
    return bots.get(name).choose(round_.view(seat), legal, rng)


def advance(lesson: Lesson, round_: Round, index: int) -> tuple[Round, int]:
    """Play the other seats until the learner decides or the lesson ends."""
    if lesson.bots is not None:
        while not round_.is_over and round_.to_act != lesson.seat:
            round_ = round_.apply(_bot_move(lesson, round_, lesson.bots.name))
        return round_, index
    script = lesson.script
    while index < len(script):
        entry = script[index]
        if not isinstance(entry, Scripted):
            break
        if round_.to_act != entry.seat:
            raise ValueError(
                f"script entry {index} is seat {entry.seat}'s, but seat {round_.to_act} acts"
            )
        round_ = round_.apply(entry.move)
        index += 1
    return round_, index


def decision_at(lesson: Lesson, position: Position) -> Step | None:
    """The lesson's decision at ``position`` (None in a lesson against bots, or when done)."""
    if lesson.bots is not None or position.index >= len(lesson.script):
        return None
    entry = lesson.script[position.index]
    assert isinstance(entry, Step)
    return entry


def is_done(lesson: Lesson, position: Position) -> bool:
    if lesson.bots is not None:
        return position.round.is_over
    return position.index >= len(lesson.script)


def accepts(lesson: Lesson, position: Position, move: str) -> str | None:
    """The canonical move if the lesson accepts ``move`` now, else None."""
    try:
        canonical = position.round.resolve(move)
    except IllegalMove:
        return None
    decision = decision_at(lesson, position)
    if decision is None:
        return canonical  # against bots every legal move is the learner's to choose
    wanted = {move_key(expected) for expected in decision.expect}
    return canonical if move_key(canonical) in wanted else None


def play(lesson: Lesson, position: Position, move: str) -> Position:
    """The position after the learner's accepted ``move`` and the other seats' replies."""
    mark = position.round.log_size
    round_, index = advance(lesson, position.round.apply(move), position.index + 1)
    return Position(round_, index, mark)


def replay(lesson: Lesson, moves: list[str]) -> Position:
    """The position after the learner's ``moves``; LessonMovesError if they stray."""
    round_, index = advance(lesson, start(lesson), 0)
    position = Position(round_, index, 0)
    for i, move in enumerate(moves):
        if is_done(lesson, position):
            raise LessonMovesError(f"the lesson is over after {i} move(s); {len(moves)} given")
        canonical = accepts(lesson, position, move)
        if canonical is None:
            raise LessonMovesError(f"move {i} ({move!r}) is not one the lesson accepts there")
        position = play(lesson, position, canonical)
    return position


# ----------------------------------------------------------------- what the learner sees


def offer_window(view: dict[str, Any]) -> dict[str, Any] | None:
    """The learner's own hook or unhook offer: the claimed move and its player. The view
    hides a chain's top from everyone (section 9), but the seat offered the claim knows it."""
    decision = view["decision"]
    if decision not in ("hook", "unhook"):
        return None
    claimed, claimed_seat, _ = claimed_move(view)
    claim = next(move for move in view["legal_moves"] if move != "pass")
    return {"kind": decision, "rank": claim[0], "claimed": claimed, "claimed_seat": claimed_seat}


def levels_after(lesson: Lesson, round_: Round) -> list[str]:
    """The teams' levels once the round is over: the winners go up one per caught player."""
    levels = list(lesson.levels)
    team = round_.winning_team
    if team is not None:
        levels[team] = FACES[min(FACES.index("A"), FACES.index(levels[team]) + len(round_.caught))]
    return levels


def _hint_move(lesson: Lesson, position: Position) -> str | None:
    decision = decision_at(lesson, position)
    if decision is not None:
        return position.round.resolve(decision.expect[0])
    if lesson.bots is None or position.round.is_over:
        return None
    return _bot_move(lesson, position.round, HINT_BOT)


def _say(
    lesson: Lesson, position: Position, view: dict[str, Any], hint: str | None, lang: str
) -> dict[str, Any]:
    done = is_done(lesson, position)
    say: dict[str, Any] = {"intro": lesson.intro[lang], "task": None, "hint": None, "done": None}
    if done:
        say["done"] = lesson.done[lang]
        if lesson.bots is not None:
            won = position.round.winning_team == lesson.seat % 2
            say["done"] = reasons.text("free_won" if won else "free_lost", lang) + " " + say["done"]
        return say
    decision = decision_at(lesson, position)
    if decision is not None:
        say["task"], say["hint"] = decision.task[lang], decision.hint[lang]
        return say
    say["task"] = _free_task(view, lang)
    if hint == "pass":
        say["hint"] = reasons.text("free_hint_pass", lang)
    elif hint is not None:
        say["hint"] = reasons.text("free_hint", lang, move=reasons.spoken(hint))
    return say


def _free_task(view: dict[str, Any], lang: str) -> str:
    decision = view["decision"]
    legal = view["legal_moves"]
    if decision in ("hook", "unhook"):
        claim = next(move for move in legal if move != "pass")
        return reasons.text(
            f"free_{decision}", lang, rank=reasons.spoken(claim[0]), claim=reasons.spoken(claim)
        )
    if decision == "return":
        return reasons.text("free_return", lang)
    if view["top"] is None:
        return reasons.text("free_lead", lang)
    return reasons.text("free_follow", lang, top=reasons.spoken(view["top"]))


def _feedback(lesson: Lesson, position: Position, attempt: str, lang: str) -> dict[str, Any]:
    """Why the lesson does not take ``attempt`` (which it did not accept)."""
    round_ = position.round
    try:
        key = move_key(attempt)
    except IllegalMove:
        key = None
    try:
        round_.resolve(attempt)
        legal = True
    except IllegalMove:
        legal = False
    feedback: dict[str, Any] = {"accepted": False, "move": attempt, "legal": legal}
    decision = decision_at(lesson, position)
    anticipated = None
    if decision is not None and key is not None:
        anticipated = next(
            (wrong for wrong in decision.wrong if key in {move_key(m) for m in wrong.moves}), None
        )
    if not legal:
        feedback.update(reasons.explain(round_, attempt, lang))
    if anticipated is not None:
        feedback["reason"] = "lesson"
        feedback["text"] = anticipated.text[lang]
    elif legal:
        feedback["reason"] = "not_the_lesson"
        other = decision.other if decision is not None else None
        feedback["text"] = other[lang] if other is not None else reasons.text("other", lang)
    return feedback


def respond(
    lesson: Lesson, moves: list[str], attempt: str | None = None, lang: str = "en"
) -> dict[str, Any]:
    """What the lesson shows after the learner's ``moves``, and after trying ``attempt``.

    An accepted attempt is played (the learner adds it to their moves); a refused one
    changes nothing and ``feedback`` says why, in ``lang``.
    """
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}")
    position = replay(lesson, moves)
    feedback: dict[str, Any] | None = None
    if attempt is not None:
        if is_done(lesson, position):
            raise LessonMovesError("the lesson is over: there is nothing left to try")
        canonical = accepts(lesson, position, attempt)
        if canonical is None:
            feedback = _feedback(lesson, position, attempt, lang)
        else:
            decision = decision_at(lesson, position)
            position = play(lesson, position, canonical)
            feedback = {
                "accepted": True,
                "move": canonical,
                "legal": True,
                "reason": None,
                "text": decision.success[lang] if decision is not None else None,
            }
    round_ = position.round
    view = round_.view(lesson.seat)
    made = len(moves) + (1 if feedback is not None and feedback["accepted"] else 0)
    done = is_done(lesson, position)
    hint = None if done else _hint_move(lesson, position)
    result = None
    if round_.is_over:
        result = {
            "finished": round_.finished,
            "caught": round_.caught,
            "winning_team": round_.winning_team,
            "levels_before": list(lesson.levels),
            "levels_after": levels_after(lesson, round_),
        }
    return {
        "lesson": lesson.id,
        "lang": lang,
        "title": lesson.title[lang],
        "section": lesson.section,
        "seat": lesson.seat,
        "moves": made,
        "decisions": lesson.decisions,
        "done": done,
        "view": view,
        "window": offer_window(view),
        "levels": levels_after(lesson, round_),
        "events": round_.log_since(position.mark),
        "say": _say(lesson, position, view, hint, lang),
        "hint_move": hint,
        "feedback": feedback,
        "result": result,
    }
