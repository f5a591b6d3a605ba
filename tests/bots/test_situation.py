"""``round_from_situation`` (engine/situation.py) rebuilds the round a view is at."""

from __future__ import annotations

import ast
import inspect
import random

import pytest

import fouronefour as ff
from fouronefour.bots.worlds import situation
from fouronefour.engine import situation as situation_module
from fouronefour.engine.situation import round_from_situation

from .helpers import hook_heavy_rules, random_decisions


def _same_future(a: ff.Round, b: ff.Round, rng: random.Random, steps: int = 40) -> None:
    """Two rounds that agree on every decision and hidden hand for ``steps`` random moves."""
    for _ in range(steps):
        assert a.is_over == b.is_over
        if a.is_over:
            assert a.winning_team == b.winning_team and a.caught == b.caught
            return
        assert (a.to_act, a.decision, a.top, a.top_seat, a.turn) == (
            b.to_act,
            b.decision,
            b.top,
            b.top_seat,
            b.turn,
        )
        assert a.legal_moves() == b.legal_moves()
        assert a.offer_queue == b.offer_queue
        assert [a.hand(s) for s in range(a.rules.players)] == [
            b.hand(s) for s in range(b.rules.players)
        ]
        legal = a.legal_moves()
        move = legal[rng.randrange(len(legal))]
        a, b = a.apply(move), b.apply(move)


@pytest.mark.parametrize("rules", [ff.Rules(), hook_heavy_rules(), ff.Rules(players=3)])
def test_a_view_with_the_true_hands_rebuilds_the_round(rules: ff.Rules) -> None:
    rng = random.Random(5)
    checked = {"play": 0, "hook": 0, "unhook": 0}
    for seed in range(10):
        for index, r in enumerate(random_decisions(rules, seed, rng)):
            if index % 3 and r.decision == "play":
                continue  # every hook and unhook offer, a third of the plays
            seat = r.to_act
            assert seat is not None
            view = r.view(seat)
            rebuilt = situation(view, r.reveal()["hands"])
            checked[str(r.decision)] += 1
            _same_future(r, rebuilt, random.Random(seed), steps=15)
    assert checked["play"] > 50
    if rules.deck_count == 4:
        assert checked["hook"] > 5 and checked["unhook"] > 0


def test_offers_continue_clockwise_after_the_seat_to_act() -> None:
    r = round_from_situation(
        ["3", "33", "334", "33"],
        level="2",
        rules=ff.Rules(players=4),
        to_act=2,
        decision="hook",
        top="3",
        top_seat=0,
    )
    assert r.offer_queue == [2, 3]  # seat 1 was offered before seat 2 and declined
    assert r.apply("pass").to_act == 3
    after = r.apply("pass").apply("pass")
    assert (after.decision, after.to_act, after.top) == ("play", 1, "3")


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"hands": ["3", "4", "5"]}, "3 hands"),
        ({"finished": [0]}, "holds cards"),
        ({"hands": ["", "4", "5", "6"]}, "holds no cards"),
        ({"top": "3"}, "go together"),
        ({"top": "3345", "top_seat": 1}, "not a move"),
        ({"top": "3", "top_seat": 1, "passes": 3}, "passes"),
        ({"decision": "return"}, "tribute"),
        ({"decision": "hook", "top": "4", "top_seat": 1}, "cannot claim"),
        ({"decision": "unhook", "top": "55", "top_seat": 1}, "chain_last"),
        ({"hands": ["RRR", "4", "5", "6"]}, "more cards"),
    ],
)
def test_impossible_situations_are_refused(kwargs: dict[str, object], reason: str) -> None:
    base: dict[str, object] = {
        "hands": ["33", "4", "5", "6"],
        "level": "2",
        "rules": ff.Rules(players=4),
        "to_act": 0,
    }
    base.update(kwargs)
    with pytest.raises(ValueError, match=reason):
        round_from_situation(**base)  # type: ignore[arg-type]


def test_situations_are_built_through_the_round_constructor() -> None:
    """``Round``'s fields are set in ``round.py`` only: the situation module passes them to
    ``Round._build`` and writes none of them itself."""
    tree = ast.parse(inspect.getsource(situation_module))
    written = [
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and node.attr.startswith("_")
    ]
    assert written == []
