"""Possible worlds behind a view: deal the cards a seat cannot see to the other seats,
consistently with everything public, and build the round to search from.

What is public and used (docs/rules.md section 9): every card played (plays, hooks, unhooks),
each seat's card count, finishing places, and the tribute and return cards. Those give:

- the *unseen* cards: all decks, less the own hand, less every card played;
- cards whose holder is known: a tribute card went to its receiver and a returned card
  to its payer, and stays theirs until that seat plays a card of that rank;
- a ceiling for each tribute payer: tribute is the payer's highest card, so at the deal
  the payer held nothing stronger; every card it holds now that it did not receive is at
  most as strong as its tribute card.

A world deals the known cards to their holders and the rest at random, respecting the
ceilings and the counts (constrained determinization).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from fouronefour.engine.cards import (
    INDEX,
    RANK_COUNT,
    RANKS,
    Counts,
    deck_counts,
    parse_ranks,
    power_table,
)
from fouronefour.engine.round import Round
from fouronefour.engine.rules import Rules
from fouronefour.engine.situation import round_from_situation

from .hand import view_level

_PLAYED = ("play", "hook", "unhook")


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one seat's view says about the cards it cannot see."""

    seat: int
    rules: Rules
    level: int
    own: Counts
    #: cards of each rank held by no one the seat can see (played cards and own hand removed)
    unseen: Counts
    #: per seat, cards of each rank it is known to hold (all zero for the own seat)
    known: tuple[Counts, ...]
    #: per seat, the strongest power its other cards may have (15: no limit)
    ceiling: tuple[int, ...]
    #: per seat, how many cards it holds
    counts: tuple[int, ...]


def read_view(view: dict[str, Any]) -> Knowledge:
    """Everything a view tells about the hidden cards."""
    rules = Rules.from_dict(view["rules"])
    players = rules.players
    seat: int = view["seat"]
    level = view_level(view)
    powers = power_table(level)
    own = parse_ranks(str(view["hand"]))
    unseen = list(deck_counts(rules.deck_count))
    known = [[0] * RANK_COUNT for _ in range(players)]
    ceiling = [RANK_COUNT] * players
    for event in view["log"]:
        kind = event["type"]
        if kind in _PLAYED:
            player = event["seat"]
            for ch in event["move"]:
                rank = INDEX[ch]
                unseen[rank] -= 1
                if known[player][rank]:
                    known[player][rank] -= 1
        elif kind in ("tribute", "return"):
            rank = INDEX[event["card"]]
            giver, taker = event["seat"], event["to"]
            if known[giver][rank]:
                known[giver][rank] -= 1
            known[taker][rank] += 1
            if kind == "tribute":
                ceiling[giver] = min(ceiling[giver], powers[rank])
    for rank in range(RANK_COUNT):
        unseen[rank] -= own[rank]
    counts = tuple(int(n) for n in view["counts"])
    # The whole hand is known: nothing more to learn of it.
    known[seat] = [0] * RANK_COUNT
    ceiling[seat] = RANK_COUNT
    # Keep the known cards within what is unseen and within each seat's count.
    left = list(unseen)
    for other in range(players):
        room = counts[other]
        for rank in range(RANK_COUNT):
            take = min(known[other][rank], left[rank], room)
            known[other][rank] = take
            left[rank] -= take
            room -= take
    return Knowledge(
        seat=seat,
        rules=rules,
        level=level,
        own=own,
        unseen=tuple(unseen),
        known=tuple(tuple(k) for k in known),
        ceiling=tuple(ceiling),
        counts=counts,
    )


def deal_start(knowledge: Knowledge) -> tuple[list[list[int]], list[int], list[int]]:
    """What a world is dealt from: each seat's cards known so far (the own hand whole), the
    room each seat has for more, and how many cards of each rank are left to deal."""
    players = knowledge.rules.players
    hands = [list(k) for k in knowledge.known]
    dealt = knowledge.seat  # the seat whose hand is whole
    hands[dealt] = list(knowledge.own)
    room = [
        0 if seat == dealt else knowledge.counts[seat] - sum(knowledge.known[seat])
        for seat in range(players)
    ]
    free = [
        max(0, knowledge.unseen[rank] - sum(k[rank] for k in knowledge.known))
        for rank in range(RANK_COUNT)
    ]
    return hands, room, free


def sample_hands(knowledge: Knowledge, rng: random.Random) -> list[str]:
    """One world: every seat's hand, the own hand as it is."""
    players = knowledge.rules.players
    powers = power_table(knowledge.level)
    hands, room, free = deal_start(knowledge)
    pool = [rank for rank in range(RANK_COUNT) for _ in range(free[rank])]
    rng.shuffle(pool)
    limited = any(c < RANK_COUNT for c in knowledge.ceiling)
    if not limited:
        start = 0
        for seat in range(players):
            for rank in pool[start : start + room[seat]]:
                hands[seat][rank] += 1
            start += room[seat]
    else:
        # Strongest cards first, each to a seat allowed to hold it, in proportion to room.
        pool.sort(key=powers.__getitem__, reverse=True)
        for rank in pool:
            power = powers[rank]
            allowed = [s for s in range(players) if room[s] and knowledge.ceiling[s] >= power]
            if not allowed:
                allowed = [s for s in range(players) if room[s]]
                if not allowed:
                    break
            pick = rng.randrange(sum(room[s] for s in allowed))
            for s in allowed:
                pick -= room[s]
                if pick < 0:
                    hands[s][rank] += 1
                    room[s] -= 1
                    break
    return ["".join(RANKS[r] * n for r, n in enumerate(hand)) for hand in hands]


def passes_since_top(view: dict[str, Any]) -> int:
    """Passes logged since the last move that set the top (0 when a trick is led)."""
    if view["top"] is None:
        return 0
    passes = 0
    for event in reversed(view["log"]):
        kind = event["type"]
        if kind == "pass":
            passes += 1
        elif kind in _PLAYED:
            break
    return passes


def claimed_move(view: dict[str, Any]) -> tuple[str | None, int | None, int | None]:
    """(top, top_seat, chain_last) of the view's pending decision.

    During a hook chain a view shows no top (to everyone else the chain looks over), so the
    seat offered a claim reads the move it may claim from the log: the last hook or unhook.
    """
    top, top_seat = view["top"], view["top_seat"]
    if view.get("decision") not in ("hook", "unhook") or top is not None:
        return top, top_seat, None
    for event in reversed(view["log"]):
        if event["type"] in _PLAYED:
            return str(event["move"]), int(event["seat"]), int(event["seat"])
    raise ValueError("an offer in a view whose log holds no move to claim")


def situation(view: dict[str, Any], hands: list[str]) -> Round:
    """The round at the view's pending decision, with ``hands`` as everyone's cards."""
    top, top_seat, chain_last = claimed_move(view)
    return round_from_situation(
        hands,
        level=str(view["level"]),
        rules=Rules.from_dict(view["rules"]),
        to_act=int(view["seat"]),
        decision=str(view["decision"]),
        top=top,
        top_seat=top_seat,
        passes=passes_since_top(view),
        finished=list(view["finished"]),
        leader=view.get("leader"),
        chain_last=chain_last,
    )


__all__ = [
    "Knowledge",
    "claimed_move",
    "deal_start",
    "passes_since_top",
    "read_view",
    "sample_hands",
    "situation",
]
