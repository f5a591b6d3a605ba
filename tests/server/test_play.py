"""The table's decisions as pure functions (tables/play.py): no clock, socket or database."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from fouronefour.engine import PASS, Match, Rules
from fouronefour.server.errors import ErrorCode, TableError
from fouronefour.server.storage import ChangeExtra
from fouronefour.server.tables.model import SeatState, TableOptions
from fouronefour.server.tables.play import (
    MOVE_CHARS,
    TableState,
    advance,
    check_decision,
    check_offered,
    chosen_answer,
    close_window,
    decide,
    play,
    written_with,
)
from fouronefour.server.tables.settings import TableSettings


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


def a_state(**changes: object) -> TableState:
    seats = [SeatState(s, f"P{s}", "human", f"h{s}", profile=f"p{s}") for s in range(4)]
    state = TableState(
        code="PURE01",
        options=TableOptions(Rules(), hook_mode="fair"),
        match_number=1,
        move_count=0,
        status="playing",
        paused=False,
        settings=TableSettings(round_pause_seconds=15.0),
        trick_start=0,
        bots_only=False,
        analysing=True,
        seats=tuple(seats),
        now=1_000.0,
    )
    return replace(state, **changes)  # type: ignore[arg-type]


def test_a_whole_match_steps_from_state_to_state() -> None:
    """Every move through play and advance alone: the moves' indices follow each other, each
    ended round pauses (its next round_start held back, the row written) and is due for
    analysis, a single card opens a fair window, and the last step ends the match with its
    result and the players' record written."""
    rng = random.Random(9)
    state = a_state()
    match = Match(state.options.rules, 77)
    pauses = windows = 0
    while not match.is_over:
        r = match.round
        assert r.to_act is not None and r.decision is not None
        prompt = (str(r.decision), r.legal_moves())
        played = play(match, r.to_act, prompt, rng.choice(prompt[1]), state.match_number)
        step = advance(state, match, played.after, [played.chosen], played.events,
                       played.claimable, played.ended)  # fmt: skip
        assert step.written.first_move_index == state.move_count
        assert step.state.move_count == state.move_count + 1
        kinds = [e["type"] for e in step.events]
        if played.ended and not step.match.is_over:
            pauses += 1
            assert step.pause is not None and step.pause.until == state.now + 15.0
            assert "round_start" not in kinds and step.written.row and step.analysed
            assert step.written.extra is not None and step.written.extra.analysis is not None
        else:
            assert step.pause is None and not step.written.row
        if played.claimable is not None:
            windows += 1
            assert step.window is not None and kinds[-1] == "window_open"
            assert step.window.closes_at == state.now + state.options.hook_seconds
        match, state = step.match, step.state
    assert pauses == len(match.results) - 1 and windows > 0
    assert state.status == "finished" and step.written.match_over and step.written.table_row
    extra = step.written.extra
    assert extra is not None and extra.result == (match.winning_team, len(match.results))
    assert extra.record is not None and '"profile_id":"p0"' in extra.record


def test_no_pause_at_a_table_of_bots_or_without_one_and_a_paused_table_waits() -> None:
    match = Match(Rules(), 5)
    rng = random.Random(1)
    while True:  # to the move that ends the first round
        r = match.round
        assert r.to_act is not None and r.decision is not None
        prompt = (str(r.decision), r.legal_moves())
        played = play(match, r.to_act, prompt, rng.choice(prompt[1]), 1)
        if played.ended:
            break
        match = played.after
    args = (match, played.after, [played.chosen], played.events, None, True)
    assert advance(a_state(bots_only=True), *args).pause is None
    assert advance(a_state(settings=TableSettings(round_pause_seconds=0.0)), *args).pause is None
    waiting = advance(a_state(paused=True), *args).pause
    assert waiting is not None and waiting.until is None  # (counted once the host resumes)
    assert advance(a_state(analysing=False), *args).written.extra is None


def test_a_closed_window_goes_to_the_nearest_claimant_alone() -> None:
    """resolve(): declines up to the nearest seat that claimed; a farther claim is not fed
    to the engine, whatever order the answers came in."""
    from fouronefour.engine import PASS, Decision
    from fouronefour.server.tables.windows import next_window, resolve

    rng = random.Random(3)
    match = Match(Rules(), 31)
    while True:
        r = match.round
        assert r.to_act is not None and r.decision is not None
        prompt = (str(r.decision), r.legal_moves())
        played = play(match, r.to_act, prompt, rng.choice(prompt[1]), 1)
        offers = played.after.round.offer_queue
        hook = played.claimable is not None and played.after.round.decision is Decision.HOOK
        if hook and len(offers) >= 2:
            break
        match = played.after
    window = next_window(played.after, played.claimable, True, False, 3.0, 0.0)
    assert window is not None and window.offers == offers
    claim = window.legal()[0]
    window.answers[offers[-1]] = claim  # the farthest claims first...
    window.answers[offers[1]] = claim  # ...then a nearer one
    closed = resolve(window, played.after, 1)
    assert closed.moves == [PASS, claim]  # the nearest seat declined (no answer), the next won
    assert closed.events[0] == {"type": "window_close", "kind": "hook", "rank": claim[0],
                                "claimed_by": offers[1]}  # fmt: skip
    assert closed.events[1] == {"type": "hook", "seat": offers[1], "move": claim}
    assert closed.claimable == ("unhook", claim, offers[1], True)
    assert closed.after.moves[-2:] == [PASS, claim]


def a_window_open(hook_mode: str = "fair") -> tuple[TableState, int, int]:
    """A table of four humans whose match ``decide`` played at random until a hook window
    asked two seats or more; with those two nearest seats."""
    rng = random.Random(3)
    state = a_state(options=TableOptions(Rules(), hook_mode=hook_mode), analysing=False)  # type: ignore[arg-type]
    state = replace(state, match=Match(state.options.rules, 31))
    while True:
        assert state.match is not None
        r = state.match.round
        assert r.to_act is not None and r.decision is not None
        prompt = (str(r.decision), r.legal_moves())
        state = decide(state, r.to_act, rng.choice(prompt[1]), prompt, by_bot=False).step.state
        window = state.window
        if window is not None and window.kind == "hook" and len(window.offers) >= 2:
            return state, window.offers[0], window.offers[1]
        if window is not None:  # (any other window: everyone declines)
            for seat in window.offers:
                legal = window.legal()
                state = decide(state, seat, PASS, (window.kind, legal), by_bot=True).step.state
            if state.window is not None:
                state = close_window(state).state


def test_a_players_answer_to_a_window_is_written_and_the_window_stays_open() -> None:
    state, _, far = a_window_open()
    window = state.window
    assert window is not None
    claim = window.legal()[0]
    decided = decide(state, far, claim, (window.kind, window.legal()), by_bot=False)
    assert decided.claim and decided.chosen == claim and decided.advanced is None
    answered = decided.step.state.window
    assert answered is not None and answered.answers == {far: claim} and answered.kept
    extra = decided.step.extra
    assert extra is not None and extra.claims[0].seat == far  # written before the ack
    assert decided.step.events == ()  # who answered is hidden
    by_bot = decide(state, far, PASS, (window.kind, window.legal()), by_bot=True)
    assert by_bot.step.extra is None and not by_bot.step.state.window.kept  # type: ignore[union-attr]


def test_a_window_that_closes_goes_to_the_nearest_claimant_and_its_late_answers_are_told() -> None:
    state, near, far = a_window_open()
    window = state.window
    assert window is not None
    claim = window.legal()[0]
    state = decide(state, far, claim, (window.kind, window.legal()), by_bot=False).step.state
    closed = close_window(state)
    assert closed.events[0]["type"] == "window_close" and closed.events[0]["claimed_by"] == far
    assert closed.state.closed_offers == frozenset(window.offers)
    assert closed.written.extra is not None and closed.written.extra.claims_done is not None
    assert refusal(check_offered, closed.state, near, False) == ErrorCode.NOT_YOUR_TURN
    assert refusal(check_offered, state, far, False) == ErrorCode.ALREADY_ANSWERED
    check_offered(state, near, True)


def test_a_fast_window_closes_once_its_nearest_claimant_is_known() -> None:
    state, near, _ = a_window_open("fast")
    window = state.window
    assert window is not None
    decided = decide(state, near, window.legal()[0], (window.kind, window.legal()), by_bot=True)
    assert decided.advanced is not None and decided.step.state.window != window
    assert decided.step.events[0]["claimed_by"] == near and decided.step.moves


def test_an_away_player_who_decides_is_back() -> None:
    state = a_state()
    seats = list(state.seats)
    match = Match(state.options.rules, 8)
    seat = match.round.to_act
    assert seat is not None
    seats[seat] = seats[seat].with_away(True)
    away = replace(state, seats=tuple(seats), match=match)
    prompt = (str(match.round.decision), match.round.legal_moves())
    decided = decide(away, seat, prompt[1][0], prompt, by_bot=False)
    assert not decided.step.state.seats[seat].away
    assert decided.step.events[0] == {"type": "seat", **decided.step.state.seats[seat].public()}
    by_bot = decide(away, seat, prompt[1][0], prompt, by_bot=True)
    assert by_bot.step.state.seats[seat].away and by_bot.step.events[0]["type"] != "seat"
