"""Legal moves, tested like perft: golden files and a brute-force oracle."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fouronefour as ff
from fouronefour.engine.cards import RANKS, level_index, parse_ranks
from fouronefour.engine.movegen import follow_moves, lead_moves
from fouronefour.engine.moves import rate

from . import reference_movegen
from .oracle import oracle_moves

GOLDEN = Path(__file__).with_name("golden_legal_moves.jsonl")
TOPS = [
    None,
    "3",
    "9",
    "2",
    "R",
    "55",
    "KK",
    "345",
    "9TJ",
    "QKA",
    "34567",
    "334455",
    "TTJJQQ",
    "444",
    "7777",
    "AAAAA",
    "BB",
    "BR",
    "RR",
    "44A",
    "222",
]


def generated(hand: str, top: str | None, level: str, ladder: str) -> list[str]:
    counts = parse_ranks(hand)
    level_i = level_index(level)
    if top is None:
        return lead_moves(counts, level_i, ladder)  # type: ignore[arg-type]
    return follow_moves(counts, rate(top, level_i, ladder), level_i, ladder)  # type: ignore[arg-type]


def random_hand(rng: random.Random, size: int, decks: int) -> str:
    deck = [r for r, n in enumerate((4 * decks,) * 13 + (decks, decks)) for _ in range(n)]
    return "".join(sorted(RANKS[r] for r in rng.sample(deck, size)))


def golden_cases() -> list[dict[str, object]]:
    if not GOLDEN.exists():
        return []
    return [json.loads(line) for line in GOLDEN.read_text().splitlines() if line.strip()]


def test_golden_file_is_present_and_large() -> None:
    assert len(golden_cases()) >= 300


@pytest.mark.parametrize("case", golden_cases(), ids=lambda c: f"{c['hand']}|{c['top']}")
def test_golden_legal_moves(case: dict[str, object]) -> None:
    moves = generated(
        str(case["hand"]),
        case["top"],
        str(case["level"]),  # type: ignore[arg-type]
        str(case["ladder"]),
    )
    assert len(moves) == len(set(moves)), "duplicate moves"
    assert sorted(moves) == case["moves"]


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    size=st.integers(1, 9),
    decks=st.integers(1, 3),
    level=st.sampled_from("23456789TJQKA"),
    ladder=st.sampled_from(["listed", "size"]),
    top=st.sampled_from(TOPS),
)
def test_generator_matches_brute_force_oracle(
    seed: int, size: int, decks: int, level: str, ladder: str, top: str | None
) -> None:
    hand = random_hand(random.Random(seed), size, decks)
    rules = ff.Rules(players=4, decks=decks, bomb_ladder=ladder)  # type: ignore[arg-type]
    expected = oracle_moves(hand, top, level, rules)
    moves = generated(hand, top, level, ladder)
    assert len(moves) == len(set(moves))
    assert set(moves) == expected


def test_dense_hands_match_the_oracle() -> None:
    """Long runs and many bombs at once, where run and bomb logic is most stressed."""
    rules = ff.Rules(players=4, decks=2)
    for hand in ["33445566778899", "3456789TJQKA", "44AA4BR", "4444AAA", "BBRR", "33334444"]:
        for top in TOPS:
            for level in "27A":
                assert set(generated(hand, top, level, "listed")) == oracle_moves(
                    hand, top, level, rules
                ), (hand, top, level)


def reference(hand: str, top: str | None, level: str, ladder: str) -> list[str]:
    counts = parse_ranks(hand)
    level_i = level_index(level)
    if top is None:
        return reference_movegen.lead_moves(counts, level_i, ladder)  # type: ignore[arg-type]
    rated = rate(top, level_i, ladder)  # type: ignore[arg-type]
    return reference_movegen.follow_moves(counts, rated, level_i, ladder)  # type: ignore[arg-type]


@pytest.mark.parametrize("decks", [1, 2, 3, 8, 16])
def test_moves_come_in_the_reference_generators_order(decks: int) -> None:
    """The same moves in the same order as the earlier, plainer generator, for hands of every
    size (a dealt 27-card hand down to one card), twice over so that remembered bombs and run
    patterns are used as well as computed."""
    rng = random.Random(decks)
    cases = []
    for _ in range(300):
        size = rng.randint(1, min(40, 54 * decks))
        hand = random_hand(rng, size, decks)
        cases.append((hand, rng.choice(TOPS), rng.choice("23456789TJQKA")))
    for _ in range(2):
        for hand, top, level in cases:
            for ladder in ("listed", "size"):
                assert generated(hand, top, level, ladder) == reference(hand, top, level, ladder), (
                    hand,
                    top,
                    level,
                    ladder,
                )


def regenerate_golden() -> None:  # pragma: no cover - run by hand: FOUR14_REGEN=1 pytest
    rng = random.Random(414)
    lines = []
    for i in range(320):
        decks = 1 + i % 3
        hand = random_hand(rng, rng.randint(1, 10), decks)
        top = TOPS[i % len(TOPS)]
        level = "23456789TJQKA"[i % 13]
        ladder = "listed" if i % 2 else "size"
        rules = ff.Rules(players=4, decks=decks, bomb_ladder=ladder)  # type: ignore[arg-type]
        moves = sorted(oracle_moves(hand, top, level, rules))
        lines.append(
            json.dumps({"hand": hand, "top": top, "level": level, "ladder": ladder, "moves": moves})
        )
    GOLDEN.write_text("\n".join(lines) + "\n")


if os.environ.get("FOUR14_REGEN"):
    regenerate_golden()
