"""Hypothesis strategies shared by the test packages."""

from __future__ import annotations

from hypothesis import strategies as st

import fouronefour as ff


def rule_sets(max_players: int = 8, max_extra_decks: int = 1) -> st.SearchStrategy[ff.Rules]:
    """Random rule sets: 2..max_players seats, around the default deck count, every option."""
    return st.builds(
        lambda players, extra_decks, hooking, tribute, ladder: ff.Rules(
            players=players,
            decks=max(1, (players + 1) // 2 + extra_decks),
            hooking=hooking,
            tribute=tribute,
            bomb_ladder=ladder,
        ),
        players=st.integers(2, max_players),
        extra_decks=st.integers(-1, max_extra_decks),
        hooking=st.booleans(),
        tribute=st.booleans(),
        ladder=st.sampled_from(["listed", "size"]),
    )
