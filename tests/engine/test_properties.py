"""Property tests over random rounds and matches of random sizes and options."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fouronefour as ff
from fouronefour.engine.cards import RANKS, deck_counts, parse_ranks

from ..strategies import rule_sets

MAX_DECISIONS_PER_ROUND = 20_000

rules_strategy = rule_sets()

junk_moves = st.one_of(
    st.text(alphabet="23456789TJQKABR10pas xZ", max_size=8),
    st.sampled_from(["pass", "PASS", "44A", "BR", "RR", "BB", "345", "33", "2", "A", "BBR"]),
)


def add_played(totals: list[int], events: list[dict[str, Any]]) -> None:
    for event in events:
        if event["type"] in ("play", "hook", "unhook"):
            for rank, n in enumerate(parse_ranks(event["move"])):
                totals[rank] += n


def assert_conserved(r: ff.Round, played: list[int]) -> None:
    totals = list(played)
    for seat in range(r.rules.players):
        for rank, n in enumerate(r.hand_counts(seat)):
            assert n >= 0
            totals[rank] += n
    dealt = deck_counts(r.rules.deck_count)
    assert tuple(totals) == dealt


def snapshot(r: ff.Round) -> Any:
    return (
        [r.view(s) for s in range(r.rules.players)],
        r.to_act,
        r.decision,
        r.legal_moves(),
        r.log,
    )


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rules_strategy, seed=st.integers(0, 2**32), junk=st.lists(junk_moves, max_size=4))
def test_random_matches_keep_every_invariant(rules: ff.Rules, seed: int, junk: list[str]) -> None:
    rng = random.Random(seed)
    match = ff.Match(rules, seed=seed)
    rounds_checked = 0
    decisions = 0
    levels = [0, 0]
    played = [0] * 15
    seen = 0
    while not match.is_over and rounds_checked < 2:
        r = match.round
        if r.log_size < seen:  # a new round
            played, seen = [0] * 15, 0
        add_played(played, r.log_since(seen))
        seen = r.log_size
        assert_conserved(r, played)
        if r.legal_moves() and decisions % 7 == 0:
            # Random other input is rejected and changes nothing.
            for text in junk:
                if text in r.legal_moves():
                    continue
                try:
                    canonical = ff.canonical(text)
                except ff.IllegalMove:
                    canonical = None
                if canonical is not None and canonical in r.legal_moves():
                    continue
                before = snapshot(r)
                try:
                    match.apply(text)
                except ff.IllegalMove:
                    pass
                else:
                    # A non-move can be a legal tribute return ("10" = T) only.
                    assert r.decision == "return"
                assert snapshot(r) == before
        move = rng.choice(r.legal_moves())
        previous = match
        match = match.apply(move)
        decisions += 1
        assert decisions < MAX_DECISIONS_PER_ROUND * 3, "a round did not end"
        if len(match.results) > len(previous.results):
            rounds_checked += 1
            result = match.results[-1]
            finished_round = previous.round.apply(move)
            assert finished_round.is_over
            team = result.winning_team
            # Levels move only as section 7 says.
            expected = list(levels)
            expected[team] = min(12, levels[team] + len(result.caught))
            assert [RANKS.index(level) for level in result.levels_after] == expected
            assert all(s % 2 != team for s in result.caught)
            assert all(
                s % 2 == team or s in finished_round.finished
                for s in range(rules.players)
                if s not in result.caught
            )
            if match.is_over:
                assert levels[team] == 12
                assert len(result.caught) == len(range(1 - team, rules.players, 2))
            else:
                assert match.round.level == RANKS[expected[team]]
            levels = expected
    replayed = ff.Match.replay(rules, seed, match.moves)
    assert replayed.moves == match.moves
    assert replayed.levels == match.levels
    assert [replayed.round.view(s) for s in range(rules.players)] == [
        match.round.view(s) for s in range(rules.players)
    ]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([2, 4, 4, 6]))
def test_whole_matches_end_and_replay(seed: int, players: int) -> None:
    rules = ff.Rules(players=players)
    rng = random.Random(seed)
    match = ff.Match(rules, seed=seed)
    steps = 0
    while not match.is_over:
        match = match.apply(rng.choice(match.round.legal_moves()))
        steps += 1
        assert steps < 500_000
    assert match.winning_team in (0, 1)
    assert match.levels[match.winning_team] == "A"
    assert ff.Match.replay(rules, seed, match.moves).winning_team == match.winning_team


def _offer(r: ff.Round) -> bool:
    return r.decision in ("hook", "unhook")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 6), observer_pick=st.integers(0, 7))
def test_views_do_not_depend_on_other_hidden_hands(
    seed: int, players: int, observer_pick: int
) -> None:
    rules = ff.Rules(players=players, tribute=False)
    rng = random.Random(seed)
    hands, leader = ff.deal(rules, seed, 1)
    a = ff.Round.from_hands(hands, leader=leader, rules=rules)
    history: list[tuple[int, str, str, ff.Round]] = []
    while not a.is_over:
        seat, decision = a.to_act, a.decision
        assert seat is not None and decision is not None
        move = rng.choice(a.legal_moves())
        a = a.apply(move)
        history.append((seat, str(decision), move, a))
    observer = observer_pick % players
    # Cards the other seats never played can be dealt differently without changing
    # anything public: permute them among the other seats.
    played: list[list[int]] = [[0] * 15 for _ in range(players)]
    for event in a.log:
        if event["type"] in ("play", "hook", "unhook"):
            for rank, n in enumerate(parse_ranks(event["move"])):
                played[event["seat"]][rank] += n
    others = [s for s in range(players) if s != observer]
    pool = [r for s in others for r, n in enumerate(a.hand_counts(s)) for _ in range(n)]
    rng.shuffle(pool)
    new_hands = list(hands)
    for s in others:
        keep = len(a.hand(s))
        mine, pool = pool[:keep], pool[keep:]
        cards = [r for r, n in enumerate(played[s]) for _ in range(n)] + mine
        new_hands[s] = "".join(RANKS[r] for r in cards)
    b = ff.Round.from_hands(new_hands, leader=leader, rules=rules)

    index = 0
    compared = 0
    while not b.is_over:
        # Skip the other seats' declines in A: they are private and B has its own offers.
        while index < len(history):
            seat, decision, move, _ = history[index]
            if decision in ("hook", "unhook") and move == "pass" and seat != observer:
                index += 1
                continue
            break
        seat, decision, move, a_after = history[index]
        if _offer(b) and not (b.to_act == seat and b.decision == decision):
            assert b.to_act != observer
            b = b.apply("pass")
            continue
        assert (b.to_act, str(b.decision)) == (seat, decision)
        b = b.apply(move)
        index += 1
        involved = {a_after.to_act if _offer(a_after) else None, b.to_act if _offer(b) else None}
        if observer in involved:
            continue
        if _offer(a_after) != _offer(b) and a_after.turn == observer:
            continue  # the seat whose normal turn is next can tell that something waits
        assert a_after.view(observer) == b.view(observer)
        compared += 1
    assert a.is_over and a.finished == b.finished and compared > 0
