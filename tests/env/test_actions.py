"""The action table: generated from the rules, canonical, complete for the table's decks."""

from __future__ import annotations

import doctest
import itertools
import random
from pathlib import Path

import pytest

import fouronefour as ff
import fouronefour.env
from fouronefour.engine import RANKS
from fouronefour.env import (
    ActionTable,
    UnknownAction,
    action_to_move,
    aec,
    encoding,
    move_to_action,
    single,
)
from fouronefour.env import actions as actions_module

from .helpers import documented_call, env_docs

DOCS = Path(__file__).resolve().parents[2] / "docs" / "env.md"


@pytest.mark.parametrize(("players", "size"), [(2, 182), (3, 236), (4, 236), (6, 290), (8, 344)])
def test_table_size_follows_the_decks(players: int, size: int) -> None:
    assert ActionTable(ff.Rules(players=players)).size == size


def test_every_play_action_is_a_canonical_move_of_its_kind() -> None:
    table = ActionTable(ff.Rules(players=4))
    for entry in table.entries:
        if entry.kind == "pass":
            assert entry.move == "pass"
        elif entry.kind == "return":
            assert entry.label == f"return {entry.move}" and entry.move in RANKS
        else:
            assert ff.canonical(entry.move) == entry.move
            assert ff.kind(entry.move) == entry.kind
        assert sum(entry.counts) == (0 if entry.kind == "pass" else len(entry.move))
    assert len(set(table.labels)) == table.size


def test_bombs_are_bounded_by_the_decks() -> None:
    one_deck = ActionTable(ff.Rules(players=2))
    assert "4444" in one_deck.play_index and "44444" not in one_deck.play_index
    assert "BR" in one_deck.play_index and "BB" not in one_deck.play_index
    three_decks = ActionTable(ff.Rules(players=6))
    assert {"BBB", "RRR", "BB", "RR", "AAAAAAAAAAAA"} <= set(three_decks.play_index)
    assert "BBBB" not in three_decks.play_index


def test_round_trip_of_every_action() -> None:
    rules = ff.Rules(players=4)
    table = ActionTable(rules)
    for action, kind in enumerate(table.kinds):
        decision = "return" if kind == "return" else "play"
        assert table.move_to_action(table.action_to_move(action), decision) == action
        assert move_to_action(action_to_move(action), decision) == action
    assert table.move_to_action("10JQ") == table.move_to_action("TJQ")  # free-form text
    assert table.move_to_action("return 10", "return") == table.move_to_action("T", "return")
    assert table.move_to_action("33", "hook") == table.move_to_action("33")
    assert table.move_to_action("3", "unhook") == table.move_to_action("3")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda t: t.action_to_move(236), "not in 0..235"),
        (lambda t: t.action_to_move(-1), "not in 0..235"),
        (lambda t: t.action_to_move(1.5), "not an integer"),
        (lambda t: t.move_to_action("3345"), "not a move"),
        (lambda t: t.move_to_action("333333333"), "more cards"),
        (lambda t: t.move_to_action("33", "return"), "one card"),
        (lambda t: t.move_to_action("3", "lead"), "decision"),
        (lambda t: t.move_to_action(3), "text"),
    ],
)
def test_unknown_actions_and_moves_are_refused(call: object, message: str) -> None:
    table = ActionTable(ff.Rules(players=4))
    with pytest.raises(UnknownAction, match=message):
        call(table)  # type: ignore[operator]


def test_every_legal_move_of_random_rounds_has_an_action() -> None:
    rng = random.Random(5)
    for players, seed in itertools.product((2, 4, 5), range(3)):
        rules = ff.Rules(players=players)
        table = ActionTable(rules)
        current = ff.Match(rules, seed=seed).round
        while not current.is_over:
            legal = current.legal_moves()
            actions = table.actions_of(legal, current.decision)
            assert [table.action_to_move(a) for a in actions] == legal
            current = current.apply(legal[rng.randrange(len(legal))])


def test_docs_show_the_generated_action_table() -> None:
    table = ActionTable(ff.Rules(players=4))
    assert table.summary_markdown() in DOCS.read_text(encoding="utf-8")


@pytest.mark.parametrize("module", [fouronefour.env, actions_module, aec, encoding, single])
def test_module_doctests(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.failed == 0


def test_the_docs_give_the_functions_argument_order() -> None:
    docs = env_docs()
    for function in (fouronefour.env.action_to_move, fouronefour.env.move_to_action):
        assert f"`{documented_call(function)}`" in docs
