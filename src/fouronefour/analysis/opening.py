"""What every seat could judge before the round's first play, so that the round's graph
speaks for the whole table from its first trick (:mod:`.graph`).

Without it, the graph's first steps are the mean of the seats heard so far: the leader's
own estimate alone, then two seats', and each seat's team looks stronger from where it
sits. Here each seat other than the leader judges the position at the round's first play
(the lead) from its own view: the hidden cards dealt at random consistently with what it
has seen (its hand, the tribute and returns it knows of), then played out by the rollout
policy, as a decision's ``win_chance`` is. Nobody has played yet, so every seat is dealt
uniformly. It costs one decision's rollouts per seat: about 5% of a 4-player round's
(docs/analysis.md, "The graph").
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from fouronefour.bots.worlds import read_view
from fouronefour.engine import Decision, Round, Rules
from fouronefour.engine.situation import round_from_situation

from .positions import deal_hands
from .rollouts import RolloutPolicy, play_out


def first_play(rounds: Sequence[Round]) -> int | None:
    """The index of the round's first play decision in ``rounds`` (the positions before
    each decision), or None if none is there yet (only tribute returns so far)."""
    for index, r in enumerate(rounds):
        if r.to_act is not None and r.decision is Decision.PLAY:
            return index
    return None


def opening_chances(
    r: Round, *, worlds: int, seed: str, policy: RolloutPolicy
) -> tuple[float | None, ...]:
    """Each seat's chance that its team wins the round, as it could judge it at ``r``,
    the round's first play, before the lead; None for the leader (its decision's own
    ``win_chance`` says it). ``seed`` names the random stream."""
    leader = r.to_act
    if leader is None or r.decision is not Decision.PLAY or r.top is not None:
        raise ValueError("the opening is judged at the round's lead")
    rng = random.Random(seed)
    rules: Rules = r.rules
    out: list[float | None] = []
    for seat in range(rules.players):
        if seat == leader:
            out.append(None)
            continue
        view = r.view(seat)
        knowledge = read_view(view)
        keep = [0.0] * rules.players  # (nobody has shed a card yet)
        wins = 0.0
        for _ in range(worlds):
            world = round_from_situation(
                deal_hands(knowledge, rng, keep),
                level=str(view["level"]),
                rules=rules,
                to_act=leader,
                leader=view.get("leader"),
            )
            wins += play_out(world, seat % 2, policy, random.Random(rng.getrandbits(64)))
        out.append(wins / worlds)
    return tuple(out)


__all__ = ["first_play", "opening_chances"]
