"""Positions a seat cannot tell apart from the real one: its pending decision rebuilt with
the hidden cards dealt at random, consistently with everything that seat has seen.

The dealing is the search bot's (:mod:`fouronefour.bots.worlds`): the unseen cards go to
the other seats by their card counts, tribute and return cards stay with whoever is known
to hold them, and tribute payers hold nothing stronger than what they paid. Only the
seat's view is read, never the true hands, so the estimates built on these positions are
what that seat could judge.

Play, hook and unhook decisions are rebuilt with the engine's
:func:`~fouronefour.engine.situation.round_from_situation`. A tribute return happens
before play, where that does not apply; it is rebuilt from the start of the round instead
(:func:`_return_position`).
"""

from __future__ import annotations

import random
from typing import Any

from fouronefour.bots.worlds import Knowledge, read_view, rules_of, sample_hands, situation
from fouronefour.engine import Round
from fouronefour.engine.cards import INDEX, RANK_COUNT, RANKS, parse_ranks

#: Fresh deals tried for a return position before giving up (a deal whose tribute would
#: differ from the real one is dealt again; with the payer's ceiling respected it never is).
_RETURN_TRIES = 20


def sample_positions(view: dict[str, Any], count: int, rng: random.Random) -> list[Round]:
    """``count`` rounds at the view's pending decision, hidden cards dealt at random."""
    if view.get("decision") is None:
        raise ValueError(f"seat {view['seat']} has no decision pending in this view")
    knowledge = read_view(view)
    if view["decision"] == "return":
        return [_return_position(view, knowledge, rng) for _ in range(count)]
    return [situation(view, sample_hands(knowledge, rng)) for _ in range(count)]


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
        hands = [list(parse_ranks(h)) for h in sample_hands(knowledge, rng)]
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
            rules=rules_of(view),
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


__all__ = ["sample_positions"]
