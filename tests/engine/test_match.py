"""Dealing, levels and the end of a match (docs/rules.md sections 1, 7, 8)."""

from __future__ import annotations

import random

import pytest

import fouronefour as ff
from fouronefour.engine.cards import deck_counts, parse_ranks


@pytest.mark.parametrize("players", range(2, 9))
@pytest.mark.parametrize("decks", [None, 1, 2, 3, 4])
def test_deal_gives_out_every_card_lowest_seats_first(players: int, decks: int | None) -> None:
    rules = ff.Rules(players=players, decks=decks)
    hands, leader = ff.deal(rules, seed=5, round_number=1)
    sizes = [len(h) for h in hands]
    total = 54 * rules.deck_count
    assert sum(sizes) == total
    assert sizes == sorted(sizes, reverse=True) and max(sizes) - min(sizes) <= 1
    counted = [0] * 15
    for hand in hands:
        for rank, n in enumerate(parse_ranks(hand)):
            counted[rank] += n
    assert tuple(counted) == deck_counts(rules.deck_count)
    assert 0 <= leader < players


def test_default_decks_give_27_cards_at_even_tables() -> None:
    for players in (2, 4, 6, 8):
        hands, _ = ff.deal(ff.Rules(players=players), seed=1, round_number=1)
        assert {len(h) for h in hands} == {27}


def test_deals_are_reproducible_and_differ_by_seed() -> None:
    rules = ff.Rules()
    assert ff.deal(rules, 3, 1) == ff.deal(rules, 3, 1)
    assert ff.deal(rules, 3, 1) != ff.deal(rules, 4, 1)
    assert ff.deal(rules, 3, 1) != ff.deal(rules, 3, 2)


def test_rules_validation() -> None:
    with pytest.raises(ValueError, match="players must be 2 to 32, not 1"):
        ff.Rules(players=1)
    with pytest.raises(ValueError, match="decks"):
        ff.Rules(players=4, decks=0)
    with pytest.raises(ValueError, match="bomb_ladder"):
        ff.Rules(bomb_ladder="weird")  # type: ignore[arg-type]
    assert ff.Rules(players=5).decks == 3
    assert ff.Rules(players=4) == ff.Rules(players=4, decks=2)


def test_round_one_is_at_level_two_led_by_the_drawn_seat() -> None:
    rules = ff.Rules()
    match = ff.Match(rules, seed=11)
    _, leader = ff.deal(rules, 11, 1)
    assert match.round.level == "2" and match.round.to_act == leader
    assert match.levels == ("2", "2") and match.round_number == 1


def test_next_round_is_at_the_winners_level_with_tribute() -> None:
    rng = random.Random(2)
    match = ff.Match(ff.Rules(), seed=2)
    while not match.results:
        match = match.apply(rng.choice(match.round.legal_moves()))
    result = match.results[0]
    winners_level = match.levels[result.winning_team]
    assert match.round.level == winners_level
    expected_level = "23456789TJQKA"[min(12, len(result.caught))]
    assert winners_level == expected_level
    assert match.levels[1 - result.winning_team] == "2"
    tributes = match.round.tributes
    assert sorted(t["from"] for t in tributes) == sorted(result.caught)
    winners = [s for s in result.finished if s % 2 == result.winning_team]
    assert tributes[0]["to"] == winners[0]
    assert match.round.decision == "return" and match.round.to_act == tributes[0]["to"]
    assert match.round_number == 2


def test_moves_reproduce_the_match_and_apply_after_the_end_is_refused() -> None:
    rng = random.Random(5)
    match = ff.Match(ff.Rules(players=2), seed=5)
    while not match.is_over:
        match = match.apply(rng.choice(match.round.legal_moves()))
    last = match.results[-1]
    assert last.caught and match.levels[match.winning_team] == "A"
    # The winners were at A when the last round started.
    assert match.results[-2].levels_after[match.winning_team] == "A"
    with pytest.raises(ff.IllegalMove, match="over"):
        match.apply("pass")
    again = ff.Match.replay(ff.Rules(players=2), 5, match.moves)
    assert again.results == match.results


def test_match_records_canonical_moves() -> None:
    match = ff.Match(ff.Rules(), seed=3)
    r = match.round
    move = next(m for m in r.legal_moves() if len(m) == 3 and m[0] != m[1])
    reordered = move[::-1]
    assert match.apply(reordered).moves == [move]
