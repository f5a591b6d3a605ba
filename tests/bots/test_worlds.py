"""Worlds behind a view: the unseen cards, what is known of them, and samples that agree."""

from __future__ import annotations

import random

import fouronefour as ff
from fouronefour.bots.greedy import GreedyBot
from fouronefour.bots.worlds import read_view, sample_hands
from fouronefour.engine.cards import INDEX, RANK_COUNT, deck_counts, parse_ranks, power_table

from .helpers import random_decisions


def _match_in_round_two(seed: int) -> ff.Match:
    """A match between greedy bots, played into its second round (after tribute)."""
    match = ff.Match(ff.Rules(), seed=seed)
    bot, rng = GreedyBot(), random.Random(seed)
    while match.round_number == 1 or match.round.decision == "return":
        r = match.round
        seat = r.to_act
        assert seat is not None
        match = match.apply(bot.choose(match.view(seat), r.legal_moves(), rng))
    return match


def test_unseen_cards_are_exactly_the_other_hands() -> None:
    rules = ff.Rules()
    rng = random.Random(3)
    for seed in range(4):
        for r in random_decisions(rules, seed, rng):
            seat = r.to_act
            assert seat is not None
            knowledge = read_view(r.view(seat))
            others = [0] * RANK_COUNT
            for other in range(4):
                if other != seat:
                    for rank, n in enumerate(r.hand_counts(other)):
                        others[rank] += n
            assert list(knowledge.unseen) == others


def test_tribute_and_return_cards_are_known_and_payers_are_capped() -> None:
    for seed in range(6):
        match = _match_in_round_two(seed)
        r = match.round
        if not r.tributes:
            continue
        for seat in range(4):
            knowledge = read_view(match.view(seat))
            powers = power_table(knowledge.level)
            for tribute in r.tributes:
                payer, receiver = tribute["from"], tribute["to"]
                if seat not in (payer, receiver):
                    assert knowledge.known[receiver][INDEX[tribute["card"]]] >= 1
                    assert knowledge.known[payer][INDEX[tribute["returned"]]] >= 1
                if seat != payer:
                    assert knowledge.ceiling[payer] == powers[INDEX[tribute["card"]]]
            # Every constraint holds in the true deal, and so in each sample.
            rng = random.Random(seed)
            for _ in range(20):
                hands = sample_hands(knowledge, rng)
                assert len(hands[seat]) == len(r.hand(seat))
                assert sorted(hands[seat]) == sorted(r.hand(seat))
                total = [0] * RANK_COUNT
                for other, hand in enumerate(hands):
                    counts = parse_ranks(hand)
                    assert sum(counts) == r.card_counts()[other]
                    for rank in range(RANK_COUNT):
                        total[rank] += counts[rank]
                        assert counts[rank] >= knowledge.known[other][rank]
                    if other != seat:
                        extra = [
                            rank
                            for rank in range(RANK_COUNT)
                            if counts[rank] > knowledge.known[other][rank]
                        ]
                        assert all(powers[rank] <= knowledge.ceiling[other] for rank in extra)
                assert tuple(total) == deck_counts(2)


def test_samples_differ_and_follow_the_injected_rng() -> None:
    r = next(random_decisions(ff.Rules(), 1, random.Random(0)))
    knowledge = read_view(r.view(r.to_act or 0))
    first = sample_hands(knowledge, random.Random(9))
    assert first == sample_hands(knowledge, random.Random(9))
    assert first != sample_hands(knowledge, random.Random(10))
