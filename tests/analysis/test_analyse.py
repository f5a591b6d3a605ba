"""analyse_round: its documented output, honesty about hidden cards, and its labels."""

from __future__ import annotations

import json
import random

import pytest

import fouronefour as ff
from fouronefour import bots
from fouronefour.analysis import (
    LABELS,
    analyse_match_round,
    analyse_round,
    bot_policy,
    match_rounds,
)
from fouronefour.analysis.labels import CONFIDENCE, THRESHOLDS, label

from .conftest import play_match

KEYS = {
    "seat",
    "move",
    "decision",
    "win_chance",
    "best_move",
    "best_win_chance",
    "played_win_chance",
    "label",
    "graph_chance",
    "trick",
    "opening",
}


def endgame() -> ff.Round:
    """Two players; seat 0 leads holding A and 3, seat 1 holds one card. Leading the A
    wins unless seat 1 holds a 2 or a joker; leading the 3 always loses."""
    rules = ff.Rules(players=2, hooking=False)
    return ff.Round.from_hands(["A3", "K"], leader=0, rules=rules)


def test_a_losing_lead_is_a_blunder_and_the_winning_one_is_best() -> None:
    [bad] = analyse_round(endgame(), ["3"], worlds=32, seed=1)
    [good] = analyse_round(endgame(), ["A"], worlds=32, seed=1)
    assert bad["label"] == "blunder" and bad["best_move"] == "A"
    assert bad["played_win_chance"] == 0.0
    assert bad["best_win_chance"] > 0.6
    assert good["label"] == "best" and good["best_move"] == "A"
    # Seat 0 cannot see seat 1's K: its chance is its estimate over every card seat 1 may
    # hold, not the certain win the true hands give.
    assert 0.6 < good["win_chance"] < 1.0
    assert good["win_chance"] == bad["win_chance"]


def test_a_single_legal_move_is_forced() -> None:
    r = endgame().apply("A")
    assert r.legal_moves() == ["pass"]
    [forced] = analyse_round(endgame(), ["A", "pass"], worlds=8)[1:]
    assert forced["label"] == "forced"
    assert forced["best_move"] == forced["move"] == "pass"
    assert forced["win_chance"] == forced["played_win_chance"] == forced["best_win_chance"]
    # Seat 1, holding the K against seat 0's last card, loses unless seat 0 has a 2 or joker.
    assert forced["win_chance"] < 0.3


def test_every_decision_of_a_round_gets_the_documented_dict() -> None:
    start, moves = next(match_rounds(ff.Rules(), 5, play_match(5, rounds=1).moves))
    result = analyse_round(start, moves, worlds=4, seed=3)
    assert len(result) == len(moves)
    json.dumps(result)  # plain JSON
    # The round's first play (here its first decision) carries every other seat's own
    # estimate before the lead; no other decision does.
    assert [i for i, entry in enumerate(result) if entry["opening"] is not None] == [0]
    opening = result[0]["opening"]
    assert opening[start.to_act] is None and len(opening) == 4
    assert all(0 <= c <= 1 for s, c in enumerate(opening) if s != start.to_act)
    r = start
    for move, entry in zip(moves, result, strict=True):
        assert set(entry) == KEYS
        assert entry["seat"] == r.to_act and entry["move"] == move
        assert entry["decision"] == str(r.decision)
        assert entry["label"] in LABELS
        assert (entry["label"] == "forced") == (len(r.legal_moves()) == 1)
        assert entry["best_move"] in r.legal_moves()
        for key in ("win_chance", "best_win_chance", "played_win_chance"):
            assert 0.0 <= entry[key] <= 1.0
        assert entry["best_win_chance"] >= entry["played_win_chance"]
        if entry["label"] in ("forced", "best"):
            assert entry["best_move"] == move
        r = r.apply(move)
    assert analyse_round(start, moves[:12], worlds=4, seed=3) == result[:12]  # reproducible


def test_other_seats_hidden_cards_do_not_change_a_seats_estimates() -> None:
    """Two rounds that differ only in cards seats 1 and 3 hold (and have not played) look
    the same to seats 0 and 2: every one of their decisions gets the same analysis."""
    start, moves = next(match_rounds(ff.Rules(), 8, play_match(8, rounds=1).moves))
    prefix = moves[:24]
    before = start
    for move in prefix:
        before = before.apply(move)
    swapped = None
    held1, held3 = before.hand(1), before.hand(3)
    for one in dict.fromkeys(held1):
        for three in dict.fromkeys(held3):
            if one == three:
                continue
            hands = [start.hand(s) for s in range(4)]
            hands[1] = hands[1].replace(one, three, 1)
            hands[3] = hands[3].replace(three, one, 1)
            other = ff.Round.from_hands(hands, leader=start.leader, level=start.level)
            try:
                r, s = start, other
                for move in prefix:
                    assert (r.to_act, r.decision) == (s.to_act, s.decision)
                    if r.to_act in (0, 2):
                        assert r.view(r.to_act) == s.view(s.to_act)
                    r, s = r.apply(move), s.apply(move)
            except (ff.IllegalMove, AssertionError):
                continue  # the swap changed what happened (a hook offer, a legal move)
            swapped = other
            break
        if swapped is not None:
            break
    assert swapped is not None
    assert swapped.hand(1) != start.hand(1)
    real = analyse_round(start, prefix, worlds=6, seed=9)
    other_result = analyse_round(swapped, prefix, worlds=6, seed=9)
    seen = [i for i, entry in enumerate(real) if entry["seat"] in (0, 2)]
    assert len(seen) >= 8
    for i in seen:
        # (The graph's value is the mean of every seat's estimate, seats 1 and 3's too: it
        # is served once the round is over, when the end-of-round pause has shown every
        # hand, analysis/graph.py.)
        # (So is the opening: every seat's estimate before the lead, analysis/opening.py.)
        hidden = {"graph_chance": None, "opening": None}
        assert {**real[i], **hidden} == {**other_result[i], **hidden}
    # Seats 1 and 3 hold other cards, so their own estimates may well differ.


def test_a_tribute_return_is_analysed_from_the_returners_view() -> None:
    match = play_match(4, rounds=2)
    rounds = list(match_rounds(match.rules, match.seed, match.moves))
    start, moves = rounds[1]
    assert start.decision == "return"
    returns = sum(1 for _ in start.tributes)
    result = analyse_round(start, moves[: returns + 1], worlds=6, seed=2)
    assert [e["decision"] for e in result[:returns]] == ["return"] * returns
    assert result[returns]["decision"] == "play"


def test_positions_at_a_return_look_the_same_to_the_returner() -> None:
    from fouronefour.analysis.positions import sample_positions

    match = play_match(4, rounds=1)
    r = match.round
    assert r.decision == "return"
    seat = r.to_act
    assert seat is not None
    view = r.view(seat)
    positions = sample_positions(view, 20, random.Random(1))
    assert all(p.view(seat) == view for p in positions)
    others = {tuple(p.hand(s) for s in range(4) if s != seat) for p in positions}
    assert len(others) == 20


def test_positions_in_play_keep_what_the_seat_sees() -> None:
    from fouronefour.analysis.positions import sample_positions

    start, moves = next(match_rounds(ff.Rules(), 8, play_match(8, rounds=1).moves))
    r = start
    checked = 0
    for move in moves[:60]:
        seat = r.to_act
        assert seat is not None
        view = r.view(seat)
        for p in sample_positions(view, 3, random.Random(checked)):
            assert p.to_act == seat and p.decision == r.decision
            assert p.hand(seat) == r.hand(seat) and p.card_counts() == r.card_counts()
            assert p.legal_moves() == r.legal_moves()
            checked += 1
        r = r.apply(move)
    assert checked == 180


def test_match_rounds_splits_a_stored_match() -> None:
    match = play_match(3, rounds=3)
    rounds = list(match_rounds(match.rules.to_dict(), match.seed, match.moves))
    assert len(rounds) == 3
    assert [m for _, ms in rounds for m in ms] == match.moves
    for number, (start, moves) in enumerate(rounds, start=1):
        hands, _ = ff.deal(match.rules, match.seed, number)
        assert sorted("".join(start.hand(s) for s in range(4))) == sorted("".join(hands))
        end = start
        for move in moves:
            end = end.apply(move)
        assert end.is_over
        assert end.winning_team == match.results[number - 1].winning_team


def test_analyse_match_round_takes_plain_data() -> None:
    match = play_match(3, rounds=2)
    start, moves = list(match_rounds(match.rules, match.seed, match.moves))[1]
    plain = analyse_match_round(
        match.rules.to_dict(), match.seed, match.moves[:-3], 2, worlds=4, seed=1
    )
    assert plain == analyse_round(start, moves[:-3], worlds=4, seed=1)
    with pytest.raises(ValueError, match="no round 5"):
        analyse_match_round(match.rules.to_dict(), match.seed, match.moves, 5, worlds=4)


def test_any_bot_can_play_the_rollouts() -> None:
    [entry] = analyse_round(
        endgame(), ["3"], worlds=16, seed=1, policy=bot_policy(bots.get("random"))
    )
    assert entry["label"] == "blunder" and entry["best_move"] == "A"


def test_bad_input_gets_a_clear_error() -> None:
    with pytest.raises(ff.IllegalMove):
        analyse_round(endgame(), ["K"])
    with pytest.raises(ValueError, match="after the round ended"):
        analyse_round(endgame(), ["A", "pass", "3", "pass"])
    with pytest.raises(ValueError, match="worlds"):
        analyse_round(endgame(), ["A"], worlds=1)
    with pytest.raises(TypeError, match="Round"):
        analyse_round("A3", ["A"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown rule option"):
        next(match_rounds({"players": 4, "jokers": 3}, 1, []))


def test_labels_follow_the_documented_thresholds() -> None:
    assert label(0.0, 0.0) == "best"
    assert label(-0.1, 0.05) == "best"
    assert label(THRESHOLDS["inaccuracy"] / 2, 0.0) == "good"
    assert label(THRESHOLDS["inaccuracy"], 0.0) == "inaccuracy"
    assert label(THRESHOLDS["mistake"], 0.0) == "mistake"
    assert label(THRESHOLDS["blunder"], 0.0) == "blunder"
    assert label(0.9, 0.0) == "blunder"
    # A loss within the noise of its estimate is not marked, however large it looks.
    assert label(0.3, 0.3 / CONFIDENCE) == "good"
    assert label(0.3, 0.3 / CONFIDENCE - 0.01) == "blunder"


@pytest.mark.parametrize("rules", [ff.Rules(players=5, bomb_ladder="size"), ff.Rules(players=6)])
def test_returns_at_other_tables_are_analysed(rules: ff.Rules) -> None:
    player, rng = bots.get("random"), random.Random(1)
    match = ff.Match(rules, seed=3)
    while len(match.results) < 1 or match.round.decision == "return":
        seat = match.round.to_act
        assert seat is not None
        match = match.apply(player.choose(match.view(seat), match.round.legal_moves(), rng))
    start, moves = list(match_rounds(rules, 3, match.moves))[1]
    assert len(moves) == len(start.tributes) > 0  # the returns, to the first play
    result = analyse_round(start, moves, worlds=3)
    assert [entry["decision"] for entry in result] == ["return"] * len(moves)
    assert [entry["move"] for entry in result] == moves


def test_each_decision_comes_with_the_public_moves_of_its_trick_before_it() -> None:
    rules = ff.Rules(players=4)
    start = ff.Round.from_hands(["35K", "789", "33QA", "334J"], leader=0, rules=rules)
    # seat 0 leads a 3, seat 2 hooks, seat 3 declines to unhook, seat 2 leads the next trick
    # and seat 3 passes on it
    steps = analyse_round(start, ["3", "33", "pass", "Q", "pass"], worlds=4)
    assert [s["trick"] for s in steps] == [
        [],
        [{"seat": 0, "move": "3"}],
        [{"seat": 0, "move": "3"}, {"seat": 2, "move": "33"}],
        [],
        [{"seat": 2, "move": "Q"}],
    ]
