"""The pairing's three promises (tournaments/pairing.py), over random fields, results and
seeds: byes fair, no repeat while avoidable (checked against every matching), and the same
round for the same input."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from fouronefour.server.tournaments.pairing import (
    Past,
    Round,
    circle_round,
    least_repeats,
    meeting,
    pair_individuals,
    pair_teams,
    seeded_order,
)


def matchings(items: Sequence[str]) -> Iterator[list[tuple[str, str]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for i, other in enumerate(rest):
        for tail in matchings(rest[:i] + rest[i + 1 :]):
            yield [(first, other), *tail]


def fair_byes(entrants: Sequence[str], byes: Counter[str], count: int) -> list[tuple[str, ...]]:
    """Every choice of ``count`` byes that gives nobody a second while another has none."""
    fair = []
    for out in combinations(entrants, count):
        rest = [e for e in entrants if e not in out]
        if not rest or not out or max(byes[e] for e in out) <= min(byes[e] for e in rest):
            fair.append(out)
    return fair


def fewest_repeats(
    entrants: Sequence[str], byes: Counter[str], count: int, seen: Counter[frozenset[str]]
) -> int:
    best = None
    for out in fair_byes(entrants, byes, count):
        playing = [e for e in entrants if e not in out]
        for matching in matchings(playing):
            repeats = sum(seen[meeting(a, b)] for a, b in matching)
            best = repeats if best is None else min(best, repeats)
    assert best is not None
    return best


def check_fair(entrants: Sequence[str], byes: Counter[str], out: Sequence[str]) -> None:
    rest = [e for e in entrants if e not in out]
    if out and rest:
        assert max(byes[e] for e in out) <= min(byes[e] for e in rest), (out, byes)


def play(round_: Round, past: Past, rng: random.Random, individuals: bool) -> Past:
    met, partnered, byes = Counter(past.met), Counter(past.partnered), Counter(past.byes)
    byes.update(round_.byes)
    for table in round_.tables:
        for a in table.north:
            for b in table.east:
                met[meeting(a, b)] += 1
        if individuals:
            partnered[meeting(*table.north)] += 1
            partnered[meeting(*table.east)] += 1
    rng.random()  # (results do not change pairing here: the order stands for them)
    return Past(met, partnered, byes)


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(min_value=2, max_value=9),
    rounds=st.integers(min_value=1, max_value=9),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_teams_swiss_fair_byes_and_fewest_repeats(count: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    entrants = seeded_order([f"p{i}" for i in range(count)], seed)
    past = Past()
    for _ in range(rounds):
        order = sorted(entrants, key=lambda _: rng.random())  # (standings after results)
        round_ = pair_teams(order, past)
        assert round_ == pair_teams(order, past)  # deterministic
        seated = [e for t in round_.tables for e in (*t.north, *t.east)]
        assert sorted(seated + list(round_.byes)) == sorted(entrants)
        assert len(round_.byes) == count % 2
        check_fair(entrants, past.byes, round_.byes)
        repeats = sum(past.met[meeting(t.north[0], t.east[0])] for t in round_.tables)
        assert repeats == fewest_repeats(entrants, past.byes, count % 2, past.met)
        past = play(round_, past, rng, individuals=False)


@settings(max_examples=40, deadline=None)
@given(
    count=st.integers(min_value=4, max_value=11),
    rounds=st.integers(min_value=1, max_value=7),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_individuals_fair_byes_and_fewest_repeated_partners(
    count: int, rounds: int, seed: int
) -> None:
    rng = random.Random(seed)
    entrants = seeded_order([f"i{i}" for i in range(count)], seed)
    past = Past()
    for _ in range(rounds):
        order = sorted(entrants, key=lambda _: rng.random())
        round_ = pair_individuals(order, past)
        assert round_ == pair_individuals(order, past)
        seated = [e for t in round_.tables for e in (*t.north, *t.east)]
        assert sorted(seated + list(round_.byes)) == sorted(entrants)
        assert all(len(t.north) == len(t.east) == 2 for t in round_.tables)
        assert len(round_.byes) == count % 4
        check_fair(entrants, past.byes, round_.byes)
        repeats = sum(
            past.partnered[meeting(*duo)] for t in round_.tables for duo in (t.north, t.east)
        )
        assert repeats == fewest_repeats(entrants, past.byes, count % 4, past.partnered)
        past = play(round_, past, rng, individuals=True)


@settings(max_examples=40, deadline=None)
@given(count=st.integers(min_value=2, max_value=16), seed=st.integers(0, 2**32))
def test_round_robin_meets_everyone_once_with_one_bye_each(count: int, seed: int) -> None:
    entrants = seeded_order([f"p{i}" for i in range(count)], seed)
    cycle = count if count % 2 else count - 1
    met: Counter[frozenset[str]] = Counter()
    byes: Counter[str] = Counter()
    for index in range(cycle):
        round_ = circle_round(entrants, index)
        assert round_ == circle_round(entrants, index)
        check_fair(entrants, byes, round_.byes)
        byes.update(round_.byes)
        for table in round_.tables:
            met[meeting(table.north[0], table.east[0])] += 1
    assert set(met.values()) == {1}
    assert len(met) == count * (count - 1) // 2
    assert all(byes[e] == (1 if count % 2 else 0) for e in entrants)


def test_seeded_order_is_the_seeds() -> None:
    names = [f"p{i}" for i in range(10)]
    assert seeded_order(names, 7) == seeded_order(list(reversed(names)), 7)
    assert seeded_order(names, 7) != seeded_order(names, 8)


def test_swiss_pairs_neighbours_in_the_standings() -> None:
    round_ = pair_teams(["a", "b", "c", "d"], Past())
    assert [(t.north, t.east) for t in round_.tables] == [(("a",), ("b",)), (("c",), ("d",))]
    past = Past(met=Counter({meeting("a", "b"): 1, meeting("c", "d"): 1}))
    round_ = pair_teams(["a", "b", "c", "d"], past)
    assert [(t.north, t.east) for t in round_.tables] == [(("a",), ("c",)), (("b",), ("d",))]


def test_a_spent_budget_keeps_the_best_found() -> None:
    order = [f"p{i}" for i in range(12)]
    matching, cost = least_repeats(order, lambda a, b: 1, budget=1)
    assert len(matching) == 6 and cost == 6
