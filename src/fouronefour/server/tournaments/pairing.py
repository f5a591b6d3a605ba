"""Who plays whom in a round of an event: Swiss and round robin, for fixed pairs (one pair
against another at a 4-player table) or for individuals with rotating partners (two
partner pairs at a table). Pure functions of the entrants' order and what they met before:
the same input gives the same round (an event's seed fixes the first order:
:func:`seeded_order`).

Three promises, each a property test (tests/server/tournaments/test_pairing.py):

- **byes fair**: an entrant is left out (a bye) only if every other entrant has had as
  many byes (nobody gets a second bye while another has none);
- **no repeat while avoidable**: no two pairs meet twice (fixed pairs), no two players
  partner twice (individuals) unless every pairing of this round would repeat one;
  the fewest repeats otherwise;
- **deterministic**: the same entrants, order and past give the same round.

Why not a library: ``cardarena-tournament-core`` 1.5 (the maintained one on the registry,
assessed for this) pairs two sides per match only, so it has no 4-player table of two
rotating partner pairs; its Swiss pairs greedily (a top entrant takes the best opponent it
has not met, with no backtracking) so it repeats a pairing that a different choice higher
up would have avoided, and its bye goes to whoever is left over, with no count of who had
one. Its round robin (the circle method) is what :func:`circle_round` does. So this module
keeps its own: a small exact search (:func:`least_repeats`) with a node budget.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

#: Search steps one matching may take before it keeps the best found so far (exact for
#: the fields a club has: the tests check it against every matching up to 12 entrants).
SEARCH_BUDGET = 200_000
#: Bye choices tried for the fewest repeats (the fairest first).
BYE_CHOICES = 64

Meeting = frozenset[str]


def meeting(a: str, b: str) -> Meeting:
    return frozenset((a, b))


@dataclass(frozen=True)
class Past:
    """What earlier rounds of an event did, as pairing needs it."""

    #: Pairs of opponents (fixed pairs: entrant against entrant; individuals: player
    #: against player), with how often they met.
    met: Counter[Meeting] = field(default_factory=Counter)
    #: Pairs of partners (individuals only), with how often.
    partnered: Counter[Meeting] = field(default_factory=Counter)
    #: Byes each entrant had.
    byes: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class Table:
    """One table of a round: seats 0 and 2 are ``north`` (one side), 1 and 3 ``east``."""

    north: tuple[str, ...]
    east: tuple[str, ...]


@dataclass(frozen=True)
class Round:
    tables: tuple[Table, ...]
    byes: tuple[str, ...]


def seeded_order(entrants: Sequence[str], seed: int) -> list[str]:
    """The entrants in the order the event's ``seed`` draws: the seeding (and every tie's
    last resort) of an event."""
    order = sorted(entrants)
    random.Random(seed).shuffle(order)
    return order


def least_repeats(
    order: Sequence[str], cost: Callable[[str, str], int], budget: int = SEARCH_BUDGET
) -> tuple[list[tuple[str, str]], int]:
    """A perfect matching of ``order`` (an even number) with the least total ``cost``,
    preferring neighbours in ``order`` (the first entrant left takes the nearest it can);
    returns it and its cost. Exact unless ``budget`` search steps run out, then the best
    found (the first one found is the greedy matching)."""
    n = len(order)
    if n % 2:
        raise ValueError("an odd number of entrants cannot all be matched")
    best: list[tuple[str, str]] | None = None
    best_cost = 0
    steps = 0
    taken = [False] * n
    chosen: list[tuple[str, str]] = []

    def search(start: int, spent: int) -> bool:
        """True: stop (nothing better exists, or the budget is spent)."""
        nonlocal best, best_cost, steps
        while start < n and taken[start]:
            start += 1
        if start == n:
            best, best_cost = list(chosen), spent
            return spent == 0
        taken[start] = True
        for other in range(start + 1, n):
            if taken[other]:
                continue
            steps += 1
            step = cost(order[start], order[other])
            if best is not None and spent + step >= best_cost:
                continue
            taken[other] = True
            chosen.append((order[start], order[other]))
            stop = search(start + 1, spent + step)
            chosen.pop()
            taken[other] = False
            if stop or (best is not None and steps >= budget):
                taken[start] = False
                return True
        taken[start] = False
        return False

    search(0, 0)
    assert best is not None
    return best, best_cost


def bye_candidates(order: Sequence[str], byes: Counter[str], count: int) -> list[tuple[str, ...]]:
    """The fair choices of ``count`` entrants to leave out, fairest first: those with the
    fewest byes, and among equals the lowest in ``order``."""
    if count == 0:
        return [()]
    rank = {entrant: i for i, entrant in enumerate(order)}
    by_need = sorted(order, key=lambda e: (byes[e], -rank[e]))
    # Fair: everyone with fewer byes than the count-th choice must be out too.
    line = byes[by_need[count - 1]]
    must = [e for e in by_need if byes[e] < line]
    may = [e for e in by_need if byes[e] == line]
    choices = []
    for extra in combinations(may, count - len(must)):
        choices.append((*must, *extra))
        if len(choices) == BYE_CHOICES:
            break
    return choices


def _share(choices: Sequence[object]) -> int:
    """The search budget of each bye choice (a round's search stays bounded)."""
    return max(2_000, SEARCH_BUDGET // len(choices))


def pair_teams(order: Sequence[str], past: Past) -> Round:
    """A round for fixed pairs (Swiss: ``order`` is the standings; it pairs neighbours):
    a fair bye if the count is odd, then the fewest repeated meetings."""

    def cost(a: str, b: str) -> int:
        return past.met[meeting(a, b)]

    best: tuple[int, tuple[str, ...], list[tuple[str, str]]] | None = None
    choices = bye_candidates(order, past.byes, len(order) % 2)
    for out in choices:
        playing = [e for e in order if e not in out]
        matching, repeats = least_repeats(playing, cost, _share(choices))
        if best is None or repeats < best[0]:
            best = (repeats, out, matching)
        if repeats == 0:
            break
    assert best is not None
    _, out, matching = best
    return Round(tuple(Table((a,), (b,)) for a, b in matching), out)


def pair_individuals(order: Sequence[str], past: Past) -> Round:
    """A round for individuals with rotating partners: a fair bye for the count past a
    multiple of four, then partners with the fewest repeated partnerships, then the
    partner pairs matched into tables with the fewest repeated opponents."""
    if len(order) < 4:
        raise ValueError("individuals need four players for a table")

    def partners(a: str, b: str) -> int:
        return past.partnered[meeting(a, b)]

    best: tuple[int, tuple[str, ...], list[tuple[str, str]]] | None = None
    choices = bye_candidates(order, past.byes, len(order) % 4)
    for out in choices:
        playing = [e for e in order if e not in out]
        matching, repeats = least_repeats(playing, partners, _share(choices))
        if best is None or repeats < best[0]:
            best = (repeats, out, matching)
        if repeats == 0:
            break
    assert best is not None
    _, out, duos = best
    names = {f"{i}": duo for i, duo in enumerate(duos)}

    def opponents(x: str, y: str) -> int:
        return sum(past.met[meeting(a, b)] for a in names[x] for b in names[y])

    # (Opponents count less than partners: a smaller search, its best kept.)
    tables, _ = least_repeats(list(names), opponents, SEARCH_BUDGET // 10)
    return Round(tuple(Table(names[x], names[y]) for x, y in tables), out)


def circle_round(entrants: Sequence[str], index: int) -> Round:
    """Round ``index`` (from 0) of a round robin of fixed pairs by the circle method:
    over ``len(entrants) - 1`` rounds (``len`` when odd: each has one bye) everyone meets
    everyone once; later rounds start the cycle again."""
    ring: list[str | None] = list(entrants)
    if len(ring) % 2:
        ring.append(None)
    n = len(ring)
    turn = index % (n - 1)
    # The first stays put; the others turn by one each round.
    rest = ring[1:]
    rest = rest[-turn:] + rest[:-turn] if turn else rest
    ring = [ring[0], *rest]
    tables, byes = [], []
    for i in range(n // 2):
        a, b = ring[i], ring[n - 1 - i]
        if a is None or b is None:
            byes.append(b if a is None else a)
            continue
        tables.append(Table((a,), (b,)) if (i + turn) % 2 == 0 else Table((b,), (a,)))
    return Round(tuple(tables), tuple(e for e in byes if e is not None))
