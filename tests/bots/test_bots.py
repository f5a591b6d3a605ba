"""Every bot: only legal moves, over many rounds and every rule option; decisions that
depend on the view alone; and the behaviour the greedy and search bots promise."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fouronefour as ff
from fouronefour import bots
from fouronefour.bots.search import SearchBot, pick, prune
from fouronefour.engine import deal
from fouronefour.engine.situation import round_from_situation

from ..strategies import rule_sets

rules_strategy = rule_sets(max_players=7, max_extra_decks=2)


def _play_match(rules: ff.Rules, seed: int, players: list[Any], rounds: int) -> ff.Match:
    """Play ``rounds`` rounds of a match (tribute included), asserting every move is legal."""
    match = ff.Match(rules, seed=seed)
    rngs = [random.Random(f"{seed}/{s}") for s in range(rules.players)]
    while not match.is_over and len(match.results) < rounds:
        r = match.round
        seat = r.to_act
        assert seat is not None
        legal = r.legal_moves()
        view = match.view(seat)
        assert view["legal_moves"] == legal
        move = players[seat].choose(view, legal, rngs[seat])
        assert move in legal, (players[seat].name, move, legal, view["decision"])
        match = match.apply(move)
    return match


@settings(max_examples=40, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 10**6))
def test_random_and_greedy_only_play_legal_moves(rules: ff.Rules, seed: int) -> None:
    players = [bots.get("greedy" if s % 2 else "random") for s in range(rules.players)]
    _play_match(rules, seed, players, rounds=3)
    players = [bots.get("greedy") for _ in range(rules.players)]
    _play_match(rules, seed + 1, players, rounds=2)


@settings(max_examples=6, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 10**6))
def test_search_only_plays_legal_moves(rules: ff.Rules, seed: int) -> None:
    search = SearchBot(worlds=1, max_candidates=3)
    players = [search if s % 2 == 0 else bots.get("greedy") for s in range(rules.players)]
    _play_match(rules, seed, players, rounds=2)


def _replay_with_other_hands(
    rules: ff.Rules, seed: int, seat: int, decisions: int
) -> tuple[ff.Round, ff.Round]:
    """A random round stopped at a decision of ``seat``, and the same public history
    replayed from a different deal: ``seat`` holds the same cards, every other seat the
    cards it played plus a random share of the rest. Declined offers are private, so the
    replay declines whatever the other deal offers before the logged claim."""
    rng = random.Random(seed)
    hands, leader = deal(rules, seed, 1)
    r = ff.Round.from_hands(hands, leader=leader, rules=rules)
    seen = 0
    while True:
        legal = r.legal_moves()
        if r.to_act == seat and len(legal) > 1:
            seen += 1
            if seen >= decisions:
                break
        r = r.apply(legal[rng.randrange(len(legal))])
        assert not r.is_over, "pick a decision earlier in the round"
    played: list[list[str]] = [[] for _ in range(rules.players)]
    for event in r.log:
        if event["type"] in ("play", "hook", "unhook"):
            played[event["seat"]].append(event["move"])
    rest = [ch for s in range(rules.players) if s != seat for ch in r.hand(s)]
    rng.shuffle(rest)
    other_hands = []
    for s in range(rules.players):
        if s == seat:
            other_hands.append(hands[s])
            continue
        take = len(r.hand(s))
        other_hands.append("".join(played[s]) + "".join(rest[:take]))
        rest = rest[take:]
    other = ff.Round.from_hands(other_hands, leader=leader, rules=rules)
    for event in r.log:
        if event["type"] in ("finish",):
            continue
        while other.decision in ("hook", "unhook") and not (
            other.to_act == event["seat"] and event["type"] in ("hook", "unhook")
        ):
            other = other.apply("pass")
        other = other.apply(event.get("move", "pass"))
    while other.to_act != seat:  # offers to others pending where the true round has none
        other = other.apply("pass")
    return r, other


@pytest.mark.parametrize("name", ["random", "greedy", "search"])
@pytest.mark.parametrize(("seed", "decisions"), [(1, 3), (2, 6), (4, 9)])
def test_bots_decide_the_same_whatever_the_hidden_hands(
    name: str, seed: int, decisions: int
) -> None:
    rules = ff.Rules()
    seat = seed % 4
    true_round, other_round = _replay_with_other_hands(rules, seed, seat, decisions)
    assert [true_round.hand(s) for s in range(4)] != [other_round.hand(s) for s in range(4)]
    view_a, view_b = true_round.view(seat), other_round.view(seat)
    assert view_a == view_b
    params: dict[str, Any] = {"worlds": 3} if name == "search" else {}
    legal = true_round.legal_moves()
    choice_a = bots.get(name, **params).choose(view_a, legal, random.Random(7))
    choice_b = bots.get(name, **params).choose(view_b, other_round.legal_moves(), random.Random(7))
    assert choice_a == choice_b


def _view(**situation: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"level": "2", "rules": ff.Rules(), "to_act": 0}
    base.update(situation)
    r = round_from_situation(**base)
    return r.view(r.to_act or 0)


def _choose(view: dict[str, Any], name: str = "greedy") -> str:
    return bots.get(name).choose(view, view["legal_moves"], random.Random(0))


def test_greedy_leads_its_lowest_combination_and_prefers_long_ones() -> None:
    view = _view(hands=["34567QQKK2", "99TT", "TT", "JJ55"])
    assert _choose(view) == "34567"
    view = _view(hands=["3QQKKAA2", "99TT", "TT", "JJ55"])
    assert _choose(view) == "3"


def test_greedy_does_not_beat_its_partner() -> None:
    view = _view(hands=["7A2", "99", "TTT", "JJ"], top="5", top_seat=2, passes=1)
    assert _choose(view) == "pass"
    view = _view(hands=["7A2", "99", "TTT", "JJ"], top="5", top_seat=1)
    assert _choose(view) == "7"


def test_greedy_keeps_bombs_until_they_matter() -> None:
    hands = ["3335689JK", "KKKKQQQQJJJ", "4444455555", "AA2222222"]
    relaxed = _view(hands=hands, top="A", top_seat=1)
    assert _choose(relaxed) == "pass"
    urgent = _view(hands=["3335689JK", "A", "4444455555", "AA2222222"], top="A", top_seat=1)
    assert _choose(urgent) == "333"


def test_greedy_hooks_for_the_lead_and_unhooks_only_an_opponent() -> None:
    hook = _view(hands=["5599", "8", "7", "65"], to_act=0, decision="hook", top="5", top_seat=3)
    assert _choose(hook) == "55"
    # Seat 2 leads a 5 and seat 1 hooks it: seat 0 may unhook an opponent.
    r = ff.Round.from_hands(["5799", "556", "58", "667"], leader=2).apply("5").apply("55")
    assert (r.to_act, r.decision) == (0, "unhook")
    assert _choose(r.view(0)) == "5"
    # Seat 1 leads a 5 and seat 2 hooks it: seat 0 lets its partner keep the lead.
    r = ff.Round.from_hands(["5799", "58", "556", "667"], leader=1).apply("5").apply("55")
    assert (r.to_act, r.decision) == (0, "unhook")
    assert _choose(r.view(0)) == "pass"


def test_greedy_and_search_return_a_low_card_after_tribute() -> None:
    r = ff.Round.from_hands(
        ["3459TTJQKA2", "RR34", "BK5", "Q67"],
        level="4",
        previous_finished=[0, 2],
        previous_caught=[1, 3],
    )
    seat = r.to_act
    assert seat is not None and r.decision == "return"
    view = r.view(seat)
    for name in ("greedy", "search"):
        assert _choose(view, name) in view["legal_moves"]


def test_search_goes_out_when_it_can_and_respects_its_budget() -> None:
    view = _view(hands=["33", "4", "5", "6"], top="22", top_seat=1)
    search = SearchBot(budget_ms=30)
    assert _choose(view, "search") == "pass"
    lead = _view(hands=["3456789TJQKA2BR", "44", "55", "66"])
    assert search.choose(lead, lead["legal_moves"], random.Random(1)) == "3456789TJQKA"
    assert search.last_worlds >= 1
    forced = _view(hands=["3", "4", "5", "6"])
    assert search.choose(forced, forced["legal_moves"], random.Random(1)) == "3"
    assert search.last_worlds == 0  # one legal move: no search


def test_search_sticks_to_greedy_unless_the_evidence_is_clear() -> None:
    noisy = [[1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, 1.0]]
    assert pick(noisy, confidence=1.0) == 0
    clear = [[-1.0] * 8, [1.0] * 7 + [-1.0]]
    assert pick(clear, confidence=1.0) == 1
    assert pick(noisy, confidence=0.0) == 1


@pytest.mark.parametrize(
    "params", [{"worlds": 0}, {"budget_ms": 0}, {"max_candidates": 1}, {"unknown": 1}]
)
def test_search_refuses_bad_parameters(params: dict[str, Any]) -> None:
    with pytest.raises((ValueError, TypeError)):
        bots.get("search", **params)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"budget_ms": "fast"}, "bot 'search': budget_ms must be a number, not 'fast'"),
        ({"budget_ms": float("inf")}, "bot 'search': budget_ms must be finite"),
        ({"worlds": 2.5}, "bot 'search': worlds must be a whole number, not 2.5"),
        ({"max_candidates": True}, "bot 'search': max_candidates must be a whole number"),
        ({"depth": 2}, "bot 'search' has no parameter 'depth' \\(its parameters: budget_ms"),
    ],
)
def test_bad_parameters_are_named_in_a_value_error(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bots.get("search", **params)


def test_a_bot_taking_any_keyword_gets_what_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    def factory(**params: Any) -> bots.Bot:
        bot = bots.RandomBot()
        bot.name = f"open {sorted(params)}"
        return bot

    bots.names()  # load the registered bots first, then add this one for this test only
    monkeypatch.setitem(bots._FACTORIES, "test-open", factory)
    assert bots.get("test-open", anything=1).name == "open ['anything']"
    with pytest.raises(ValueError, match="has no parameter 'x' \\(it takes none\\)"):
        bots.get("random", x=1)  # a bot that takes no parameters


def test_every_bot_is_registered() -> None:
    assert {"random", "greedy", "search"} <= set(bots.names())


def test_search_prunes_only_clearly_worse_moves_and_never_the_greedy_choice() -> None:
    greedy_choice = [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    best = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    hopeless = [-1.0, -1.0, -1.0, -1.0, -1.0, -1.0]
    unclear = [1.0, 1.0, 1.0, 1.0, 1.0, -1.0]
    scores = [greedy_choice, best, hopeless, unclear]
    assert prune(scores, [0, 1, 2, 3]) == [0, 1, 3]
    assert prune([hopeless, best, greedy_choice], [0, 1, 2]) == [0, 1]
