"""What the learned bot looks at: a decision as numbers, from one seat's view only.

A decision is a *state* vector (the seat's hand, the cards nobody it can see holds, the
card counts around the table, the move to beat, its decision) and one *action* vector per
legal move (the move's kind and cards, what it leaves in the hand, whether the greedy
rules would play it, how many unseen cards could beat it). The network scores each
(state, action) pair; :mod:`fouronefour.bots.learned` plays the best.

The features do not depend on the number of players: seats are read as "me", "the next
seat", "the previous seat", "my partners" and "my opponents" (teams are the even and the
odd seats), ranks in their order of power at the round's level, counts per rank both as
a thermometer and divided by the copies in the decks.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from fouronefour.engine.cards import INDEX, RANK_COUNT, RUN_HIGH, Counts, power_table
from fouronefour.engine.moves import BombKind, Kind, classify_text

from .greedy import Seen, greedy_move
from .hand import PASS, decompose, remove, turns_to_go_out, view_hand, view_level
from .worlds import claimed_move, passes_since_top

Vector = npt.NDArray[np.float32]

#: Bumped whenever a feature changes meaning: weights carry the version they were
#: trained with, and the bot refuses weights of another version.
FEATURE_VERSION = 1

#: A move's kind, one-hot in this order.
KINDS = ("pass", "single", "pair", "straight", "double_dragon", "bomb", "double_joker", "414")
DECISIONS = ("lead", "follow", "hook", "unhook", "return")
#: Card counts are one-hot up to this many (the endgame is where counts matter most).
COUNT_ONE_HOT = 8
#: Scale of card counts: a 4-player hand.
HAND_SCALE = 27.0

_SHAPE_SIZE = len(KINDS) + 3 + RANK_COUNT
_RANK_SIZE = 5  # per rank: >=1, >=2, >=3, >=4 cards, count / copies
_SEAT_SIZE = COUNT_ONE_HOT + 1


def _state_size() -> int:
    ranks = 2 * RANK_COUNT * _RANK_SIZE  # own hand, unseen cards
    seats = 5 * _SEAT_SIZE + 6  # me, next, previous, partner, opponent; team totals, alive
    decision = len(DECISIONS) + 1  # decision, chain
    top = _SHAPE_SIZE + 6  # the move to beat, its seat's relation, passes since, last word
    plan = 3
    table = 13 + 2 + 3  # level, rule options, finishing
    unseen_bombs = 2
    return ranks + seats + decision + top + plan + table + unseen_bombs


STATE_SIZE = _state_size()
ACTION_SIZE = _SHAPE_SIZE + 8


@lru_cache(maxsize=1 << 14)
def move_shape(move: str, level: int) -> tuple[float, ...]:
    """A move's features that depend on the level only: kind (one-hot), cards / 10, the
    weakest and strongest card's power / 14, and its cards per rank in power order / 4."""
    kind = [0.0] * len(KINDS)
    cards = [0.0] * RANK_COUNT
    if move == PASS:
        kind[0] = 1.0
        return (*kind, 0.0, 0.0, 0.0, *cards)
    combination = classify_text(move)
    assert combination is not None  # legal moves are moves
    if combination.bomb is BombKind.DOUBLE_JOKER:
        kind[6] = 1.0
    elif combination.bomb is BombKind.FOUR_FOUR_ACE:
        kind[7] = 1.0
    else:
        kind[KINDS.index(str(combination.kind))] = 1.0
    powers = power_table(level)
    for ch in move:
        cards[powers[INDEX[ch]]] += 0.25
    low = min(powers[INDEX[ch]] for ch in move)
    high = max(powers[INDEX[ch]] for ch in move)
    return (*kind, len(move) / 10.0, low / 14.0, high / 14.0, *cards)


def _ranks(counts: Sequence[int], level: int, copies: int, out: list[float]) -> None:
    """Counts per rank in power order: thermometer to 4, and the count over ``copies``."""
    by_power = [0] * RANK_COUNT
    powers = power_table(level)
    for rank, n in enumerate(counts):
        by_power[powers[rank]] = n
    for n in by_power:
        out.extend((float(n >= 1), float(n >= 2), float(n >= 3), float(n >= 4), n / copies))


def _seat(count: int, out: list[float]) -> None:
    code = [0.0] * COUNT_ONE_HOT
    code[min(count, COUNT_ONE_HOT - 1)] = 1.0
    out.extend(code)
    out.append(count / HAND_SCALE)


@lru_cache(maxsize=1 << 16)
def beaters(move: str, unseen: Counts, level: int) -> int:
    """How many moves of the same kind and length the unseen cards could make that beat
    ``move`` (bombs by more cards or a stronger rank of the same size; an estimate, as
    the unseen cards are split among several hands)."""
    if move == PASS:
        return 0
    combination = classify_text(move)
    assert combination is not None
    powers = power_table(level)
    if combination.kind in (Kind.SINGLE, Kind.PAIR) or combination.bomb is BombKind.N_OF_A_KIND:
        need = combination.size
        power = powers[combination.high]
        return sum(
            1
            for rank, n in enumerate(unseen)
            if (n >= need and powers[rank] > power) or (combination.kind is Kind.BOMB and n > need)
        )
    if combination.kind in (Kind.STRAIGHT, Kind.DOUBLE_DRAGON):
        per = 1 if combination.kind is Kind.STRAIGHT else 2
        length = combination.size // per
        return sum(
            1
            for top in range(combination.high + 1, RUN_HIGH + 1)
            if all(unseen[r] >= per for r in range(top - length + 1, top + 1))
        )
    return 0


class Features:
    """One decision of one seat, read from its view: the state features and the parts of
    the view the action features need."""

    __slots__ = ("greedy", "hand", "level", "plan", "state", "turns", "unseen")

    def __init__(self, view: dict[str, Any], legal_moves: Sequence[str]) -> None:
        rules = view["rules"]
        players = int(rules["players"])
        decks = int(rules["decks"])
        seat = int(view["seat"])
        level = view_level(view)
        hand = view_hand(view)
        counts: list[int] = [int(n) for n in view["counts"]]
        decision = str(view.get("decision") or "play")
        top, top_seat, chain_last = claimed_move(view)

        unseen = [4 * decks] * 13 + [decks, decks]
        for event in view["log"]:
            if event["type"] in ("play", "hook", "unhook"):
                for ch in event["move"]:
                    unseen[INDEX[ch]] -= 1
        for rank in range(RANK_COUNT):
            unseen[rank] -= hand[rank]
        unseen_counts = tuple(max(0, n) for n in unseen)
        combos, bombs = decompose(hand, level)
        turns = turns_to_go_out(hand, level)

        out: list[float] = []
        copies = 4 * decks
        _ranks(hand, level, copies, out)
        _ranks(unseen_counts, level, copies, out)

        team = seat % 2
        partners = [counts[s] for s in range(players) if s != seat and s % 2 == team]
        opponents = [counts[s] for s in range(players) if s % 2 != team]
        alive_partners = [n for n in partners if n]
        alive_opponents = [n for n in opponents if n]
        _seat(counts[seat], out)
        _seat(counts[(seat + 1) % players], out)
        _seat(counts[(seat - 1) % players], out)
        _seat(min(alive_partners) if alive_partners else 0, out)
        _seat(min(alive_opponents) if alive_opponents else 0, out)
        out.extend(
            (
                sum(partners) / max(1, len(partners)) / HAND_SCALE,  # mean cards held
                sum(opponents) / max(1, len(opponents)) / HAND_SCALE,
                len(alive_partners) / 4.0,
                len(alive_opponents) / 4.0,
                float(not alive_partners),
                players / 8.0,
            )
        )

        code = [0.0] * len(DECISIONS)
        if decision == "play":
            code[0 if top is None else 1] = 1.0
        else:
            code[DECISIONS.index(decision)] = 1.0
        out.extend(code)
        out.append(float(chain_last is not None))

        if top is None or top_seat is None:
            out.extend([0.0] * (_SHAPE_SIZE + 6))
        else:
            passes = passes_since_top(view)
            out.extend(move_shape(top, level))
            out.extend(
                (
                    float(top_seat % 2 == team and top_seat != seat),
                    float(top_seat % 2 != team),
                    float(top_seat == (seat + 1) % players),
                    float(top_seat == (seat - 1) % players),
                    passes / players,
                    # everyone else still playing has passed: passing gives up the trick
                    float(passes + 2 >= sum(1 for n in counts if n) + (counts[top_seat] == 0)),
                )
            )

        out.extend((turns / 10.0, len(bombs) / 8.0, len(combos) / 15.0))

        level_code = [0.0] * 13
        level_code[level] = 1.0
        out.extend(level_code)
        out.extend((float(bool(rules["hooking"])), float(rules["bomb_ladder"] == "size")))
        finished = [int(s) for s in view["finished"]]
        out.extend(
            (
                float(any(s % 2 == team for s in finished)),
                float(any(s % 2 != team for s in finished)),
                len(finished) / players,
            )
        )
        out.extend(
            (
                sum(1 for n in unseen_counts[:13] if n >= 4) / 13.0,
                (unseen_counts[13] + unseen_counts[14]) / (2.0 * decks),
            )
        )
        self.state: Vector = np.array(out, dtype=np.float32)
        self.hand = hand
        self.level = level
        self.unseen = unseen_counts
        self.plan = frozenset(combos) | frozenset(bombs)
        self.turns = turns
        self.greedy = greedy_move(
            Seen(seat, hand, level, decision, top, top_seat, counts), legal_moves
        )

    def action(self, move: str) -> list[float]:
        """The features of playing ``move`` now."""
        hand = self.hand
        level = self.level
        if move == PASS:
            after, left, turns_after = hand, sum(hand), self.turns
            breaks_bomb = False
        else:
            after = remove(hand, move)
            left = sum(after)
            turns_after = turns_to_go_out(after, level)
            breaks_bomb = any(hand[INDEX[ch]] >= 3 and after[INDEX[ch]] for ch in set(move))
        threats = beaters(move, self.unseen, level)
        return [
            *move_shape(move, level),
            float(move == self.greedy),
            float(move in self.plan),
            float(breaks_bomb),
            float(left == 0),
            left / HAND_SCALE,
            (turns_after - self.turns) / 2.0,
            min(threats, 8) / 8.0,
            float(move != PASS and threats == 0),
        ]

    def actions(self, legal_moves: Sequence[str]) -> Vector:
        """One row of action features per legal move."""
        return np.array([self.action(m) for m in legal_moves], dtype=np.float32)


__all__ = [
    "ACTION_SIZE",
    "DECISIONS",
    "FEATURE_VERSION",
    "KINDS",
    "STATE_SIZE",
    "Features",
    "beaters",
    "move_shape",
]
