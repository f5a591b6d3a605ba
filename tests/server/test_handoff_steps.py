"""Seat handoffs as pure steps (tables/handoff.py): offered, found, claimed."""

from __future__ import annotations

from dataclasses import replace

from fouronefour.engine import Rules
from fouronefour.server.errors import ErrorCode
from fouronefour.server.storage import ChangeExtra, StoredHandoff
from fouronefour.server.tables.handoff import HANDOFF_SECONDS, claim, find, offer, pending
from fouronefour.server.tables.model import SeatChanges, SeatState, TableOptions, hash_token
from fouronefour.server.tables.state import Handoff

from .tablestates import NOW, a_round_end, a_table, refused

SECRET = "s3cret"


def test_a_handoff_is_offered_by_the_seat_or_the_host_and_written_unseen() -> None:
    state = a_table()
    step = offer(state, 1, 1, hash_token(SECRET))
    expires = NOW + HANDOFF_SECONDS
    assert step.state.handoffs == {1: Handoff(hash_token(SECRET), expires, by_host=False)}
    assert step.events == ()  # nobody else is told
    written = StoredHandoff(1, hash_token(SECRET), int(expires * 1000))
    assert step.extra == ChangeExtra(handoffs=(written,))
    assert pending([written]) == {1: Handoff(hash_token(SECRET), expires)}
    assert offer(state, 0, 1, "h").state.handoffs[1].by_host
    assert refused(offer, state, 1, 0, "h") == ErrorCode.NOT_HOST
    assert refused(offer, state, 0, 2, "h") == ErrorCode.BAD_SEAT  # empty: join it
    assert refused(offer, state, 0, 9, "h") == ErrorCode.BAD_SEAT


def test_a_live_secret_finds_its_seat_and_an_expired_one_none() -> None:
    state = offer(a_table(), 1, 1, hash_token(SECRET)).state
    assert find(state, SECRET) == 1
    assert find(state, "other") is None and find(state, 5) is None and find(state, "") is None
    assert find(replace(state, now=NOW + HANDOFF_SECONDS), SECRET) is None


def test_a_claim_hands_the_seat_over_with_a_new_token() -> None:
    state = offer(a_table(), 1, 1, hash_token(SECRET)).state
    step = claim(state, SECRET, "Bob2", None, "hash-new", "p-bob")
    assert step.state.seats[1] == SeatState(1, "Bob2", "human", "hash-new", profile="p-bob")
    assert step.seat_changes == SeatChanges(revoked={1: ErrorCode.BAD_TOKEN})
    assert step.state.handoffs == {} and step.extra == ChangeExtra(
        handoffs=(StoredHandoff(1, None),)
    )
    assert refused(claim, step.state, SECRET, "Bob3", None, "h", None) == ErrorCode.BAD_HANDOFF
    assert refused(claim, state, SECRET, "", None, "h", None) == ErrorCode.BAD_NAME
    private = replace(state, options=TableOptions(Rules(), invite_hash="i"))
    assert refused(claim, private, "wrong", "X", None, "h", None) == ErrorCode.TABLE_NOT_FOUND


def test_a_removed_player_comes_back_only_through_the_hosts_handoff() -> None:
    removed = a_table(removed=frozenset({hash_token("eve-token")}))
    by_player = offer(removed, 1, 1, hash_token(SECRET)).state
    assert refused(claim, by_player, SECRET, "Eve", "eve-token", "h", None) == ErrorCode.KICKED
    by_host = offer(removed, 0, 1, hash_token(SECRET)).state
    step = claim(by_host, SECRET, "Eve", "eve-token", "h", None)
    assert step.state.removed == frozenset() and step.row


def test_a_bots_seat_is_claimed_between_rounds_only() -> None:
    seats = a_table().seats
    with_bot = a_table(status="playing", seats=(*seats[:3], SeatState(3, "Bot 4", "bot")))
    state = offer(with_bot, 0, 3, hash_token(SECRET)).state
    assert refused(claim, state, SECRET, "Cy", None, "h", None) == ErrorCode.WRONG_STATUS
    between = replace(state, round_end=a_round_end()[1])
    assert claim(between, SECRET, "Cy", None, "h", None).state.seats[3].kind == "human"
