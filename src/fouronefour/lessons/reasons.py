"""Why a move is illegal, in words a learner reads in their own language.

The engine's :class:`IllegalMove` says why in English for programmers ("'33' does not beat
'KK' at level 2"); a lesson names the same reason as one of a few codes and says it in
the learner's language, from the texts in ``texts.json`` beside this module.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from fouronefour.engine import Decision, Round
from fouronefour.engine.cards import RANKS, parse_ranks
from fouronefour.engine.errors import IllegalMove
from fouronefour.engine.moves import classify_text, rate

from .model import LANGUAGES

#: The reasons a move can be illegal, each with a text in texts.json.
REASONS = (
    "not_a_move",  # the cards make no combination (3345, KA2, BBR)
    "not_held",  # cards the learner does not hold
    "must_lead",  # a pass by the leader
    "wrong_kind",  # another kind or length than the move on top
    "too_low",  # the same kind and length, but not higher
    "claim_only",  # during a hook or unhook offer: only the claim or a pass
    "not_returnable",  # a return card that is not of face rank 2 to 9 (or not held)
    "round_over",  # a move after the round ended
)


@cache
def common_texts() -> dict[str, dict[str, str]]:
    """The texts every lesson shares, by key and language (texts.json)."""
    source = resources.files(__package__).joinpath("texts.json").read_text(encoding="utf-8")
    data: dict[str, dict[str, str]] = json.loads(source)
    return data


def text(key: str, lang: str, **params: str) -> str:
    """A common text in ``lang`` with ``{name}`` placeholders filled in."""
    template = common_texts()[key][lang]
    for name, value in params.items():
        template = template.replace("{" + name + "}", value)
    return template


def spoken(move: str) -> str:
    """A move as a learner reads it on the cards: "TTJ" -> "10 10 J"."""
    return " ".join("10" if rank == "T" else rank for rank in move)


def _faces(move: str) -> str:
    counts = parse_ranks(move)
    return "".join(RANKS[r] * n for r, n in enumerate(counts) if n)


def why_illegal(round_: Round, move: str) -> tuple[str, dict[str, str]]:
    """The reason code for ``move``, illegal for the seat to act, and its text's parameters."""
    seat = round_.to_act
    decision = round_.decision
    if seat is None or decision is None:
        return "round_over", {}
    legal = round_.legal_moves()
    if decision in (Decision.HOOK, Decision.UNHOOK):
        claim = next(m for m in legal if m != "pass")
        return "claim_only", {"claim": spoken(claim)}
    if decision is Decision.RETURN:
        return "not_returnable", {"cards": ", ".join(spoken(m) for m in legal)}
    if move.strip().lower() == "pass":
        return "must_lead", {}
    try:
        counts = parse_ranks(move)
        combination = classify_text(move)
    except IllegalMove:
        return "not_a_move", {"move": move}
    shown = spoken(_faces(move))
    if combination is None or not any(counts):
        return "not_a_move", {"move": shown}
    hand = round_.hand_counts(seat)
    if any(n > hand[r] for r, n in enumerate(counts)):
        return "not_held", {"move": shown}
    top = round_.top
    if top is None:  # any combination held may lead; nothing else is left to say
        return "not_a_move", {"move": shown}
    level = RANKS.index(round_.level)
    ladder = round_.rules.bomb_ladder
    mine, theirs = rate(move, level, ladder), rate(top, level, ladder)
    params = {"move": shown, "top": spoken(top)}
    if not mine.is_bomb and mine.group != theirs.group:
        return "wrong_kind", params
    return "too_low", params


def explain(round_: Round, move: str, lang: str) -> dict[str, Any]:
    """Feedback on an illegal ``move``: its reason code, the text in ``lang`` and the
    engine's own message."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}")
    try:
        round_.resolve(move)
    except IllegalMove as error:
        engine = str(error)
    else:
        raise ValueError(f"{move!r} is legal here")
    reason, params = why_illegal(round_, move)
    return {"reason": reason, "text": text(reason, lang, **params), "engine": engine}
