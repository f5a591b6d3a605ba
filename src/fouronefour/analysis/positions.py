"""Positions a seat cannot tell apart from the real one: its pending decision rebuilt with
the hidden cards dealt at random, consistently with everything that seat has seen.

What is known is the search bot's (:mod:`fouronefour.bots.worlds`): the unseen cards go to
the other seats by their card counts, tribute and return cards stay with whoever is known
to hold them, and tribute payers hold nothing stronger than what they paid. Only the
seat's view is read, never the true hands, so the estimates built on these positions are
what that seat could judge.

How the rest is dealt follows how each seat plays (:mod:`.styles`). A seat that plays at
random is dealt uniformly. A seat that plays sensibly sheds loose cards and keeps pairs,
triples and bombs, so the more of its hand it has played, the more its hidden cards come
in whole ranks: each further card of a rank goes to the seat that got the last one with
chance ``shed`` (the share of its dealt cards it has played), else to a seat at random.
Dealt uniformly, sensible players' hands would be weaker than they are, and the mover's
own team (whose one hand is exact) would look too strong: at tables of greedy bots, by 8
points of win chance.

Play, hook and unhook decisions are rebuilt with the engine's
:func:`~fouronefour.engine.situation.round_from_situation`. A tribute return happens
before play, where that does not apply; it is rebuilt from the start of the round instead
(:func:`_return_position`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from fouronefour.bots.worlds import Knowledge, deal_start, read_view, situation
from fouronefour.engine import Round, Rules
from fouronefour.engine.cards import (
    INDEX,
    RANK_COUNT,
    RANKS,
    deck_counts,
    parse_ranks,
    power_table,
)

#: Fresh deals tried for a return position before giving up (a deal whose tribute would
#: differ from the real one is dealt again; with the payer's ceiling respected it never is).
_RETURN_TRIES = 20


def sample_positions(
    view: dict[str, Any],
    count: int,
    rng: random.Random,
    sensible: Sequence[float] | None = None,
) -> list[Round]:
    """``count`` rounds at the view's pending decision, hidden cards dealt at random.

    ``sensible[seat]`` is the chance that a seat plays sensibly (:mod:`.styles`); each
    world draws whether it does. None: every seat is dealt uniformly.
    """
    if view.get("decision") is None:
        raise ValueError(f"seat {view['seat']} has no decision pending in this view")
    knowledge = read_view(view)
    if view["decision"] == "return":
        # Before play every hand is as dealt: uniform.
        return [_return_position(view, knowledge, rng) for _ in range(count)]
    players = knowledge.rules.players
    dealt = sum(deck_counts(knowledge.rules.deck_count)) / players  # cards dealt to each
    shed = [max(0.0, min(1.0, 1 - knowledge.counts[s] / dealt)) for s in range(players)]
    positions = []
    for _ in range(count):
        keep = [
            shed[s] if sensible is not None and rng.random() < sensible[s] else 0.0
            for s in range(players)
        ]
        positions.append(situation(view, deal_hands(knowledge, rng, keep)))
    return positions


def deal_hands(knowledge: Knowledge, rng: random.Random, keep: Sequence[float]) -> list[str]:
    """Every seat's hand in one world, the own hand as it is: the known cards to their
    holders, the rest card by card to a seat chosen in proportion to its room, except
    that the next card of a rank stays with the seat that got the last one with chance
    ``keep[that seat]`` (if it has room). All ``keep`` 0: a uniform deal.

    Tribute payers get nothing stronger than their ceiling (docs/rules.md section 9):
    with any ceiling, the strongest ranks are dealt first so that they find a seat.
    """
    players = knowledge.rules.players
    hands, room, free = deal_start(knowledge)
    powers = power_table(knowledge.level)
    ranks = [rank for rank in range(RANK_COUNT) if free[rank]]
    rng.shuffle(ranks)
    if any(c < RANK_COUNT for c in knowledge.ceiling):
        ranks.sort(key=powers.__getitem__, reverse=True)
    for rank in ranks:
        allowed = [s for s in range(players) if room[s] and knowledge.ceiling[s] >= powers[rank]]
        last: int | None = None
        for _ in range(free[rank]):
            if not any(room[s] for s in allowed):
                allowed = [s for s in range(players) if room[s]]
                if not allowed:
                    break
            if last is not None and room[last] and last in allowed and rng.random() < keep[last]:
                seat = last
            else:
                pick = rng.randrange(sum(room[s] for s in allowed))
                for seat in allowed:
                    pick -= room[seat]
                    if pick < 0:
                        break
            hands[seat][rank] += 1
            room[seat] -= 1
            last = seat
    return ["".join(RANKS[r] * n for r, n in enumerate(hand)) for hand in hands]


def _return_position(view: dict[str, Any], knowledge: Knowledge, rng: random.Random) -> Round:
    """A round at a tribute return: the hidden hands dealt, the round's tribute paid from
    them again and the returns made so far replayed.

    The previous round's finishing order is not in a view, but the tribute log gives what
    the engine needs of it: the payers, and the receivers in the order they were paid,
    which is the winners' finishing order.
    """
    players = int(view["players"])
    tributes = [e for e in view["log"] if e["type"] == "tribute"]
    returns = [e for e in view["log"] if e["type"] == "return"]
    payers = [int(e["seat"]) for e in tributes]
    # Receivers are the winners in finishing order, cycled; the losers who are not paying
    # finished before the winning team completed.
    receivers = list(dict.fromkeys(int(e["to"]) for e in tributes))
    winning_team = receivers[0] % 2
    winners = receivers + [s for s in range(winning_team, players, 2) if s not in receivers]
    escaped = [s for s in range(1 - winning_team, players, 2) if s not in payers]
    finished = escaped + winners
    expected = [(int(e["seat"]), int(e["to"]), str(e["card"])) for e in tributes]
    for _ in range(_RETURN_TRIES):
        hands = [list(parse_ranks(h)) for h in deal_hands(knowledge, rng, [0.0] * players)]
        # Undo the returns, then the tribute: the hands as dealt.
        for event in (*reversed(returns), *reversed(tributes)):
            rank = INDEX[event["card"]]
            hands[event["to"]][rank] -= 1
            hands[event["seat"]][rank] += 1
        if any(n < 0 for hand in hands for n in hand):
            continue
        r = Round.from_hands(
            ["".join(RANKS[k] * hand[k] for k in range(RANK_COUNT)) for hand in hands],
            level=str(view["level"]),
            rules=Rules.from_dict(view["rules"]),
            previous_finished=finished,
            previous_caught=payers,
        )
        if [(t["from"], t["to"], t["card"]) for t in r.tributes] != expected:
            continue
        for event in returns:
            r = r.apply(str(event["card"]))
        if r.to_act != view["seat"] or r.decision != "return":
            raise ValueError(f"the log does not lead to a return by seat {view['seat']}")
        return r
    raise ValueError(f"no deal found that pays this round's tribute for seat {view['seat']}")


__all__ = ["deal_hands", "sample_positions"]
