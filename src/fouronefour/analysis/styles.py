"""How each seat plays, as everyone at the table can tell from the public play.

Hands are dealt in the analysis's worlds as their holders would hold them: a player who
plays sensibly sheds loose cards and keeps pairs, triples and bombs, so late in a round
their hand is built of whole ranks; a player who plays at random keeps nothing. Dealing
every hidden card uniformly, as if all played at random, makes the others' hands weaker
than they are and the mover's own team (whose one hand is exact) look too strong.

The evidence is public: beating one's own partner's winning move. A sensible player lets
it stand (passing is always allowed there) unless the move empties their hand; one who
plays at random beats it whenever they hold a move that does, which is most of the time.
Measured over bot play (the first six matches of each table of ``bench/analysis.py``):
random did it at 58% of its chances, the search bot 5%, greedy never.
"""

from __future__ import annotations

from collections.abc import Sequence

from fouronefour.engine import Round

#: Chance that a player who plays at random beats their partner's winning move, when
#: they can pass and the move does not empty their hand.
RANDOM_OVERPLAY = 0.6
#: The same for a sensible player (taking the lead back on purpose).
SENSIBLE_OVERPLAY = 0.05
#: Chance, before any evidence, that a player plays at random.
RANDOM_PRIOR = 0.2


def overplays(rounds: Sequence[Round], moves: Sequence[str]) -> list[tuple[list[int], list[int]]]:
    """For each decision ``i`` (``rounds[i]`` the position, ``moves[i]`` the move), per
    seat, how often it beat its partner's winning move before that decision, and how
    often it could have (the first list of the pair: done; the second: chances).

    Reads only what every seat sees: whose move is on top, who acts, whether passing is
    allowed, the moves made and how many cards each seat holds.
    """
    players = len(rounds[0].card_counts()) if rounds else 0
    done = [0] * players
    chances = [0] * players
    out = []
    for r, move in zip(rounds, moves, strict=False):
        out.append((list(done), list(chances)))
        seat = r.to_act
        top_seat = r.top_seat
        if (
            seat is None
            or r.decision != "play"
            or r.top is None
            or top_seat is None
            or top_seat == seat
            or top_seat % 2 != seat % 2
            or "pass" not in r.legal_moves()
        ):
            continue
        move = r.resolve(move)
        emptied = move != "pass" and len(move) == r.card_counts()[seat]
        if emptied:
            continue
        chances[seat] += 1
        if move != "pass":
            done[seat] += 1
    return out


def sensible_chance(done: int, chances: int) -> float:
    """The chance that a seat plays sensibly, having beaten its partner's winning move
    ``done`` times in ``chances`` (Bayes' rule between the two kinds of player)."""
    random_likelihood = (
        RANDOM_PRIOR * RANDOM_OVERPLAY**done * (1 - RANDOM_OVERPLAY) ** (chances - done)
    )
    sensible_likelihood = (
        (1 - RANDOM_PRIOR) * SENSIBLE_OVERPLAY**done * (1 - SENSIBLE_OVERPLAY) ** (chances - done)
    )
    return sensible_likelihood / (sensible_likelihood + random_likelihood)


def sensible_chances(rounds: Sequence[Round], moves: Sequence[str]) -> list[list[float]]:
    """For each decision (``rounds[i]`` the position, ``moves[i]`` the move), each seat's
    chance to play sensibly from the public play before it."""
    return [
        [sensible_chance(k, n) for k, n in zip(done, chances, strict=True)]
        for done, chances in overplays(rounds, moves)
    ]


__all__ = [
    "RANDOM_OVERPLAY",
    "RANDOM_PRIOR",
    "SENSIBLE_OVERPLAY",
    "overplays",
    "sensible_chance",
    "sensible_chances",
]
