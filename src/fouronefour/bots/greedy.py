"""``greedy``: a sensible beginner. It plans its hand into combinations and sheds the low
ones first, keeps bombs until an opponent threatens to go out, lets its partner's winning
move stand, and hooks and unhooks when that takes the lead from the other team.

The rules read a small :class:`Seen` record rather than the whole view, so that the search
bot can run them inside its rollouts without building views.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from fouronefour.engine.cards import INDEX, Counts

from . import register
from .hand import (
    PASS,
    decompose,
    is_bomb,
    lowest_power,
    remove,
    turns_to_go_out,
    view_hand,
    view_level,
)
from .worlds import claimed_move

#: An opponent with this many cards or fewer is a threat worth a bomb.
DANGER_CARDS = 6


@dataclass(frozen=True, slots=True)
class Seen:
    """What the greedy rules look at: the own hand and a few public facts."""

    seat: int
    hand: Counts
    level: int
    decision: str
    top: str | None
    top_seat: int | None
    counts: Sequence[int]

    @classmethod
    def from_view(cls, view: dict[str, Any]) -> Seen:
        top, top_seat, _ = claimed_move(view)
        return cls(
            seat=int(view["seat"]),
            hand=view_hand(view),
            level=view_level(view),
            decision=str(view.get("decision") or "play"),
            top=top,
            top_seat=top_seat,
            counts=view["counts"],
        )

    def fewest_cards(self, team: int) -> int:
        """Fewest cards held by a player of ``team`` still in the round (99 if none)."""
        alive = [n for s, n in enumerate(self.counts) if s % 2 == team and n > 0]
        return min(alive) if alive else 99


class GreedyBot:
    """Rule-of-thumb play; deterministic (``rng`` is only there for the interface) unless
    ``mistakes`` is above 0: then that share of its decisions with a choice is a uniformly
    random legal move instead, a weaker player for the bot levels (bots.levels)."""

    name = "greedy"

    def __init__(self, mistakes: float = 0.0) -> None:
        if isinstance(mistakes, bool) or not isinstance(mistakes, int | float):
            raise ValueError(f"mistakes must be a number from 0 to 1, not {mistakes!r}")
        if not 0.0 <= mistakes <= 1.0:
            raise ValueError(f"mistakes must be from 0 to 1, not {mistakes}")
        self.mistakes = float(mistakes)

    def choose(self, view: dict[str, Any], legal_moves: Sequence[str], rng: random.Random) -> str:
        if len(legal_moves) == 1:
            return legal_moves[0]
        if self.mistakes and rng.random() < self.mistakes:
            return legal_moves[rng.randrange(len(legal_moves))]
        return greedy_move(Seen.from_view(view), legal_moves)


def greedy_move(seen: Seen, legal_moves: Sequence[str]) -> str:
    """The greedy choice among ``legal_moves``."""
    if len(legal_moves) == 1:
        return legal_moves[0]
    if seen.decision == "return":
        return choose_return(seen, legal_moves)
    if seen.decision == "hook":
        return choose_hook(seen, legal_moves)
    if seen.decision == "unhook":
        return choose_unhook(seen, legal_moves)
    if seen.top is None:
        return choose_lead(seen, legal_moves)
    return choose_follow(seen, legal_moves)


def _going_out(hand: Counts, legal_moves: Sequence[str]) -> str | None:
    """A legal move that plays the whole hand, if there is one."""
    size = sum(hand)
    for move in legal_moves:
        if move != PASS and len(move) == size:
            return move
    return None


def choose_lead(seen: Seen, legal_moves: Sequence[str]) -> str:
    opponent_cards = min(3, seen.fewest_cards(1 - seen.seat % 2))
    return _lead(seen.hand, seen.level, tuple(legal_moves), opponent_cards)


@lru_cache(maxsize=1 << 15)
def _lead(hand: Counts, level: int, legal_moves: tuple[str, ...], opponent_cards: int) -> str:
    """The lead, as a pure function of what it depends on (cached: rollouts repeat it)."""
    out = _going_out(hand, legal_moves)
    if out is not None:
        return out
    combos, _ = decompose(hand, level)
    legal = set(legal_moves)
    options = [c for c in combos if c in legal]
    if not options:
        bomb_moves = [m for m in legal_moves if is_bomb(m)]
        return bomb_moves[0] if bomb_moves else legal_moves[0]
    if opponent_cards <= 2:
        # An opponent about to go out: do not lead what they can most easily follow.
        longer = [c for c in options if len(c) > opponent_cards]
        if longer:
            options = longer
        else:
            return max(options, key=lambda c: lowest_power(c, level))

    def lead_key(combo: str) -> tuple[float, int]:
        # Lowest card first; a run counts as lower than it is, so long combinations go early.
        bonus = 2.5 if len(combo) >= 3 else 0.0
        return (lowest_power(combo, level) - bonus, -len(combo))

    return min(options, key=lead_key)


def choose_follow(seen: Seen, legal_moves: Sequence[str]) -> str:
    team = seen.seat % 2
    top_seat = seen.top_seat
    assert top_seat is not None
    partner_on_top = top_seat % 2 == team
    threat = min(seen.counts[top_seat] or 99, seen.fewest_cards(1 - team))
    urgency = 0 if threat <= DANGER_CARDS else 1 if threat <= 12 else 2
    return _follow(seen.hand, seen.level, tuple(legal_moves), partner_on_top, urgency)


@lru_cache(maxsize=1 << 15)
def _follow(
    hand: Counts, level: int, legal_moves: tuple[str, ...], partner_on_top: bool, urgency: int
) -> str:
    """The follow, as a pure function of what it depends on. ``urgency``: 0 when an
    opponent is close to going out, 1 when some way off, 2 when far."""
    out = _going_out(hand, legal_moves)
    if out is not None:
        return out
    can_pass = PASS in legal_moves
    if partner_on_top and can_pass:
        return PASS  # the partner's move is winning: let it stand
    combos, _ = decompose(hand, level)
    planned = set(combos)
    beating = [m for m in legal_moves if m != PASS]
    plain = [m for m in beating if not is_bomb(m)]
    bombs = [m for m in beating if is_bomb(m)]
    for move in plain:  # weakest first, as generated
        if move in planned:
            if lowest_power(move, level) >= 12 and urgency == 2 and len(beating) > 1:
                continue  # keep a level card or joker while nobody is close to finishing
            return move
    if plain:
        before = turns_to_go_out(hand, level)
        costs = [(turns_to_go_out(remove(hand, m), level) - before, i) for i, m in enumerate(plain)]
        cost, index = min(costs)
        if cost <= 0.0 or (urgency == 0 and cost <= 1.0):
            return plain[index]
    if bombs:
        after = turns_to_go_out(remove(hand, bombs[0]), level)
        if urgency == 0 or after <= 1.5:
            return bombs[0]
    return PASS if can_pass else legal_moves[0]


def choose_hook(seen: Seen, legal_moves: Sequence[str]) -> str:
    pair = next(m for m in legal_moves if m != PASS)
    if seen.hand[INDEX[pair[0]]] == 2:
        return pair  # hooking sheds a pair and takes the lead
    opponent_cards = seen.fewest_cards(1 - seen.seat % 2)
    return pair if opponent_cards <= DANGER_CARDS else PASS  # it would break a bomb


def choose_unhook(seen: Seen, legal_moves: Sequence[str]) -> str:
    single = next(m for m in legal_moves if m != PASS)
    hooker = seen.top_seat
    if hooker is not None and hooker % 2 == seen.seat % 2:
        return PASS  # the partner holds the lead
    return single if seen.hand[INDEX[single[0]]] <= 2 else PASS


def choose_return(seen: Seen, legal_moves: Sequence[str]) -> str:
    level = seen.level
    hand = seen.hand
    return min(
        legal_moves,
        key=lambda card: (turns_to_go_out(remove(hand, card), level), lowest_power(card, level)),
    )


register("greedy", GreedyBot)

__all__ = ["GreedyBot", "Seen", "greedy_move"]
