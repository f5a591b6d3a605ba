"""The table's decisions as pure functions (tables/play.py): no clock, socket or database."""

from __future__ import annotations

import random

import pytest

from fouronefour.engine import Match, Rules
from fouronefour.server.errors import ErrorCode, TableError
from fouronefour.server.storage import ChangeExtra
from fouronefour.server.tables.play import (
    MOVE_CHARS,
    check_decision,
    chosen_answer,
    play,
    written_with,
)


def refusal(call: object, *args: object) -> ErrorCode:
    with pytest.raises(TableError) as caught:
        call(*args)  # type: ignore[operator]
    return caught.value.code


def test_a_decision_is_refused_for_the_first_reason_that_holds() -> None:
    ok = ("playing", False, "3", 5, 7, 5, True)
    assert check_decision(*ok) == "3"
    assert refusal(check_decision, "lobby", *ok[1:]) == ErrorCode.WRONG_STATUS
    assert refusal(check_decision, "playing", True, *ok[2:]) == ErrorCode.PAUSED
    assert refusal(check_decision, "lobby", True, *ok[2:]) == ErrorCode.WRONG_STATUS
    for move in (None, 3, "", ["3"]):
        assert refusal(check_decision, "playing", False, move, *ok[3:]) == ErrorCode.BAD_MESSAGE
    too_long = "3" * (MOVE_CHARS + 1)
    assert refusal(check_decision, "playing", False, too_long, *ok[3:]) == ErrorCode.BAD_MESSAGE
    for v in (True, "5", None, 5.0):
        assert refusal(check_decision, *ok[:3], v, *ok[4:]) == ErrorCode.BAD_MESSAGE
    assert refusal(check_decision, *ok[:3], 4, *ok[4:]) == ErrorCode.STALE_VERSION  # before
    assert refusal(check_decision, *ok[:3], 8, *ok[4:]) == ErrorCode.STALE_VERSION  # future
    assert check_decision(*ok[:3], 7, *ok[4:]) == "3"  # any version since the offer
    # not offered: the move is well formed, and whose turn it is the table says
    assert check_decision(*ok[:3], "not a version", 7, 5, False) == "3"


def test_a_claim_answer_is_one_of_the_choices_offered() -> None:
    assert chosen_answer("P", ["44A", "P"]) == "P"
    assert refusal(chosen_answer, "33", ["44A", "P"]) == ErrorCode.ILLEGAL_MOVE
    assert refusal(chosen_answer, "not cards", ["44A", "P"]) == ErrorCode.ILLEGAL_MOVE


def test_an_illegal_move_changes_nothing() -> None:
    match = Match(Rules(), 11)
    r = match.round
    assert r.to_act is not None and r.decision is not None
    prompt = (str(r.decision), r.legal_moves())
    legal = set(prompt[1])
    illegal = next(m for m in ("2", "3", "4", "5", "6", "7", "8", "9", "T") if m not in legal)
    log_size = r.log_size
    assert refusal(play, match, r.to_act, prompt, illegal, 1) == ErrorCode.ILLEGAL_MOVE
    assert match.round.log_size == log_size


def test_a_whole_match_through_play_alone() -> None:
    """Every decision taken by ``play`` from the engine's own offers: each move's events
    name it first, a single card may be hooked, the match ends with its result written."""
    rng = random.Random(5)
    match = Match(Rules(), 2024)
    rounds_over = 0
    moves = 0
    while not match.is_over:
        r = match.round
        seat, decision = r.to_act, r.decision
        assert seat is not None and decision is not None
        prompt = (str(decision), r.legal_moves())
        move = rng.choice(prompt[1])
        played = play(match, seat, prompt, move, 1)
        moves += 1
        assert played.chosen == move
        assert played.events[0]["seat"] == seat
        if played.claimable is not None:
            kind, card, by, _ = played.claimable
            assert (kind, card, by) == ("hook", move, seat) and decision == "play"
        rounds_over += sum(e["type"] == "round_over" for e in played.events)
        assert played.ended == any(e["type"] == "round_over" for e in played.events)
        match = played.after
        assert moves < 20_000
    assert rounds_over == len(match.results) >= 1
    assert match.winning_team is not None
    extra = written_with(match, 1, moves, claims_kept=False, analysed=False)
    assert extra == ChangeExtra(result=(match.winning_team, len(match.results)))


def test_what_a_move_writes_besides_itself() -> None:
    match = Match(Rules(), 3)
    assert written_with(match, 2, 10, claims_kept=False, analysed=False) is None
    assert written_with(match, 2, 10, claims_kept=True, analysed=False) == ChangeExtra(
        claims_done=(2, 10)
    )
    assert written_with(match, 2, 10, claims_kept=False, analysed=True) == ChangeExtra(
        analysis=(2, 0)
    )
