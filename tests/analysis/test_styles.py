"""How seats play, read from public play, and the hidden cards dealt to match."""

from __future__ import annotations

import random

import fouronefour as ff
from fouronefour.analysis import match_rounds
from fouronefour.analysis.positions import deal_hands, sample_positions
from fouronefour.analysis.styles import RANDOM_PRIOR, overplays, sensible_chance
from fouronefour.bots.worlds import read_view
from fouronefour.engine.cards import RANK_COUNT, parse_ranks, power_table

from .conftest import play_match


def test_random_seats_beat_their_partners_and_greedy_ones_never_do() -> None:
    # play_match: greedy at the even seats, random at the odd ones.
    match = play_match(6, rounds=1)
    start, moves = next(match_rounds(match.rules, match.seed, match.moves))
    rounds = [start]
    for move in moves:
        rounds.append(rounds[-1].apply(move))
    evidence = overplays(rounds, moves)
    assert len(evidence) == len(moves)
    assert evidence[0] == ([0] * 4, [0] * 4)
    done, chances = evidence[-1]
    assert done[0] == done[2] == 0 and chances[0] + chances[2] > 0
    assert done[1] + done[3] >= 2
    final = [sensible_chance(d, c) for d, c in zip(done, chances, strict=True)]
    assert all(final[s] > 1 - RANDOM_PRIOR for s in (0, 2) if chances[s])
    assert min(final[1], final[3]) < 0.2


def test_overplays_count_only_moves_that_beat_a_partner_without_going_out() -> None:
    rules = ff.Rules(players=4, hooking=False, tribute=False)
    # Seat 0 leads a 3; seat 1 passes; seat 2 (its partner) beats it with a 5 while
    # holding more: one overplay out of one chance. Seat 3 has no partner on top.
    r = ff.Round.from_hands(["34", "67", "58", "9T"], leader=0, rules=rules)
    moves = ["3", "pass", "5"]
    rounds = [r]
    for move in moves:
        rounds.append(rounds[-1].apply(move))
    done, chances = overplays(rounds, moves)[-1]
    assert (done, chances) == ([0, 0, 0, 0], [0, 0, 0, 0])
    done, chances = overplays([*rounds, rounds[-1]], [*moves, "pass"])[-1]
    assert done == [0, 0, 1, 0] and chances == [0, 0, 1, 0]
    # Going out with it is not held against anyone.
    r = ff.Round.from_hands(["34", "67", "5", "9T"], leader=0, rules=rules)
    rounds = [r, r.apply("3"), r.apply("3").apply("pass")]
    assert overplays(rounds, ["3", "pass", "5"])[-1] == ([0] * 4, [0] * 4)


def test_the_chance_of_sensible_play_follows_the_evidence() -> None:
    assert sensible_chance(0, 0) == 1 - RANDOM_PRIOR
    assert sensible_chance(0, 5) > sensible_chance(0, 0)
    assert sensible_chance(1, 1) < sensible_chance(0, 0)
    assert sensible_chance(3, 4) < 0.01


def _view(seed: int, decisions: int) -> dict[str, object]:
    start, moves = next(match_rounds(ff.Rules(), seed, play_match(seed, rounds=1).moves))
    r = start
    for move in moves[:decisions]:
        r = r.apply(move)
    seat = r.to_act
    assert seat is not None
    return r.view(seat)


def _whole_ranks(hand: str) -> int:
    counts = parse_ranks(hand)
    return sum(n for n in counts if n >= 3)


def test_keeping_ranks_together_deals_the_same_cards_in_fewer_ranks() -> None:
    view = _view(9, 40)
    knowledge = read_view(view)
    rng = random.Random(4)
    others = [s for s in range(4) if s != view["seat"]]
    uniform = [deal_hands(knowledge, rng, [0.0] * 4) for _ in range(200)]
    kept = [deal_hands(knowledge, rng, [1.0] * 4) for _ in range(200)]
    for hands in (*uniform, *kept):
        assert parse_ranks(hands[view["seat"]]) == parse_ranks(str(view["hand"]))
        assert [len(hands[s]) for s in range(4)] == list(view["counts"])
        pooled = [0] * RANK_COUNT
        for s in others:
            for rank, n in enumerate(parse_ranks(hands[s])):
                pooled[rank] += n
        assert sum(pooled) == sum(knowledge.unseen)
    in_groups = sum(_whole_ranks(h[s]) for h in uniform for s in others)
    kept_groups = sum(_whole_ranks(h[s]) for h in kept for s in others)
    assert kept_groups > 1.5 * in_groups


def test_tribute_ceilings_hold_however_the_cards_are_dealt() -> None:
    match = play_match(4, rounds=1)
    start = match.round
    while start.decision == "return":
        seat = start.to_act
        assert seat is not None
        start = start.apply(start.legal_moves()[0])
    seat = start.to_act
    assert seat is not None
    view = start.view(seat)
    knowledge = read_view(view)
    assert any(c < RANK_COUNT for c in knowledge.ceiling)
    powers = power_table(knowledge.level)
    for sensible in ([0.0] * 4, [1.0] * 4):
        for p in sample_positions(view, 30, random.Random(2), sensible):
            assert p.hand(seat) == start.hand(seat)
            assert p.legal_moves() == start.legal_moves()
            for payer, ceiling in enumerate(knowledge.ceiling):
                if payer == seat or ceiling >= RANK_COUNT:
                    continue
                held, known = parse_ranks(p.hand(payer)), knowledge.known[payer]
                above = [r for r in range(RANK_COUNT) if powers[r] > ceiling]
                assert sum(held[r] for r in above) <= sum(known[r] for r in above)
