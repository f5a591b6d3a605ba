"""Who sits where as pure steps (tables/seating.py): no clock, socket or database."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fouronefour.engine import Rules
from fouronefour.server.errors import ErrorCode
from fouronefour.server.storage import ChangeExtra, StoredHandoff, StoredSeat
from fouronefour.server.tables.model import SeatChanges, SeatState, TableOptions, hash_token
from fouronefour.server.tables.seating import (
    away,
    back,
    connected,
    disconnected,
    fill_bots,
    hand_over,
    join,
    kick,
    move_seat,
    profile_seat,
    was_removed,
)
from fouronefour.server.tables.state import Handoff, evolve

from .tablestates import a_table, refused


def test_a_seat_is_a_frozen_value_each_change_a_new_one() -> None:
    seat = SeatState(2)
    taken = seat.with_player("Cy", "human", "h", "p-cy")
    assert seat == SeatState(2) and taken.public()["name"] == "Cy" and taken.profile == "p-cy"
    assert taken.with_bot() == SeatState(2, "Bot 3", "bot")
    online, changed = taken.connected()
    assert changed and online.connections == 1 and online.public()["online"]
    twice, changed = online.connected()
    assert not changed and twice.connections == 2
    once, offline = twice.disconnected()
    assert not offline and once.connections == 1
    absent = once.with_away(True)
    assert absent.bot_controlled and not once.bot_controlled and once.with_away(False) is once
    back_online, changed = absent.connected()
    assert changed and not back_online.away  # a reconnect ends being away
    handed = absent.handed_to("Dee", "h2")
    assert (handed.name, handed.token_hash, handed.connections) == ("Dee", "h2", 0)
    assert absent.emptied() == SeatState(2)
    assert SeatState(1, "Bot 2", "bot").moved_to(3).name == "Bot 4"
    assert taken.moved_to(0) == SeatState(0, "Cy", "human", "h", profile="p-cy")


def test_a_table_state_evolves_as_dataclasses_replace_would() -> None:
    state = a_table()
    paused = evolve(state, paused=True, move_count=3)
    assert paused == replace(state, paused=True, move_count=3) and paused is not state
    assert not state.paused and state.move_count == 0  # the original is untouched
    with pytest.raises(TypeError, match="no field 'pause'"):
        evolve(state, pause=True)


def test_joining_takes_a_free_or_bot_seat_in_the_lobby_only() -> None:
    state = a_table()
    step = join(state, "  Cy ", 2, None, "hash-cy", "p-cy")
    seat = step.state.seats[2]
    assert seat == SeatState(2, "Cy", "human", "hash-cy", profile="p-cy")
    assert step.events == ({"type": "seat", **seat.public()},)
    assert step.seats == (StoredSeat(2, "Cy", "human", "hash-cy", "p-cy"),)
    assert not step.row and step.seat_changes is None
    assert state.seats[2] == SeatState(2)  # the state it was given is unchanged
    with_bot = a_table(seats=(*state.seats[:3], SeatState(3, "Bot 4", "bot")))
    assert join(with_bot, "Dee", 3, None, "h", None).state.seats[3].kind == "human"
    assert refused(join, state, "Cy", 1, None, "h", None) == ErrorCode.SEAT_TAKEN
    assert refused(join, state, "Cy", 4, None, "h", None) == ErrorCode.BAD_SEAT
    assert refused(join, state, "Cy", "2", None, "h", None) == ErrorCode.BAD_MESSAGE
    assert refused(join, state, "", 2, None, "h", None) == ErrorCode.BAD_NAME
    playing = a_table(status="playing")
    assert refused(join, playing, "Cy", 2, None, "h", None) == ErrorCode.WRONG_STATUS
    kicked = a_table(removed=frozenset({hash_token("old-token")}))
    assert refused(join, kicked, "Cy", 2, "old-token", "h", None) == ErrorCode.KICKED
    assert join(kicked, "Cy", 2, "another", "h", None).state.seats[2].name == "Cy"


def test_the_host_fills_the_empty_seats_with_bots_between_matches() -> None:
    step = fill_bots(a_table(), 0)
    assert [s.name for s in step.state.seats] == ["Ann", "Bob", "Bot 3", "Bot 4"]
    assert [e["seat"] for e in step.events] == [2, 3]
    assert step.seats == (StoredSeat(2, "Bot 3", "bot", None), StoredSeat(3, "Bot 4", "bot", None))
    full = fill_bots(step.state, 0)
    assert full.events == () and full.seats == ()  # nothing to fill: no version
    assert refused(fill_bots, a_table(), 1) == ErrorCode.NOT_HOST
    assert refused(fill_bots, a_table(), None) == ErrorCode.NOT_HOST
    assert refused(fill_bots, a_table(status="playing"), 0) == ErrorCode.WRONG_STATUS


def test_connections_come_and_go_and_only_online_or_back_is_told() -> None:
    state = a_table()
    second = connected(state, 0)
    assert second.events == () and second.state.seats[0].connections == 2
    first = connected(a_table(seats=(SeatState(0, "Ann", "human", "h"), *state.seats[1:])), 0)
    assert first.events[0]["online"] and first.state.seats[0].connections == 1
    returning = a_table(seats=(state.seats[0].with_away(True), *state.seats[1:]))
    assert connected(returning, 0).events[0]["away"] is False
    still = disconnected(second.state, 0)
    assert still.events == () and still.state.seats[0].connections == 1
    gone = disconnected(state, 0)
    assert gone.events[0]["online"] is False and gone.state.seats[0].connections == 0
    assert disconnected(gone.state, 0).state.seats[0].connections == 0  # never below none


def test_a_player_not_there_is_away_until_they_come_back() -> None:
    state = a_table(status="playing")
    gone = away(state, 1)
    assert gone.state.seats[1].away and gone.events == (
        {"type": "seat", **gone.state.seats[1].public()},
    )
    assert not state.seats[1].away
    step = back(gone.state, 1)
    assert not step.state.seats[1].away and step.events[0]["away"] is False
    assert refused(back, state, 1) == ErrorCode.NOT_AWAY


def test_the_host_removes_a_player_who_is_kept_out() -> None:
    state = a_table(handoffs={1: Handoff("secret", 2_000.0), 0: Handoff("other", 2_000.0)})
    step = kick(state, 0, 1)
    assert step.state.seats[1] == SeatState(1)
    # Bob is kept out by the token he had and, signed in, by his profile.
    assert step.state.removed == {"hash-bob", "profile:p-bob"}
    assert was_removed(step.state.removed, "x") is False
    assert list(step.state.handoffs) == [0]  # Bob's handoff is void, Ann's stays
    assert step.extra == ChangeExtra(handoffs=(StoredHandoff(1, None),))
    assert step.seat_changes == SeatChanges(revoked={1: ErrorCode.KICKED})
    assert step.row and step.renewed == (1,) and step.seats == (StoredSeat(1, None, "empty", None),)
    assert refused(kick, state, 1, 1) == ErrorCode.NOT_HOST
    assert refused(kick, state, 0, 0) == ErrorCode.BAD_SEAT  # the host's own
    assert refused(kick, state, 0, 2) == ErrorCode.BAD_SEAT  # empty
    assert refused(kick, a_table(status="playing"), 0, 1) == ErrorCode.WRONG_STATUS
    bot = fill_bots(state, 0).state
    assert kick(bot, 0, 2).state.removed == frozenset()  # a bot has no token to keep out


def test_an_events_table_host_removes_and_moves_nobody() -> None:
    """At a club event's table (its rules' goal shorter than a match) the first seat's
    player hosts, but the event seats its players: removing an opponent (who could then not
    take their seat back: a bot would play their round) or swapping seats is refused."""
    whole_matches = TableOptions(Rules(), event=True)  # (an event of whole matches)
    for options in (TableOptions(Rules(goal="round")), whole_matches):
        state = a_table(options=options)
        assert refused(kick, state, 0, 1) == ErrorCode.WRONG_STATUS
        assert refused(move_seat, state, 0, 1, 2) == ErrorCode.WRONG_STATUS
        assert refused(move_seat, state, 0, 0, 3) == ErrorCode.WRONG_STATUS
    kick(a_table(), 0, 1)  # (a table of its own: as before)
    move_seat(a_table(), 0, 1, 2)


def test_a_removed_profile_cannot_sit_again_with_a_new_token() -> None:
    """A kick is a real removal for that table: a signed-in player removed by the host is
    refused a free seat under a fresh token (a plain join, a club's link), and comes back
    only through the host's handoff, which lets the profile in again."""
    kicked = kick(a_table(), 0, 1).state
    assert refused(join, kicked, "Bob", 2, None, "hash-new", "p-bob") == ErrorCode.KICKED
    assert join(kicked, "Bob", 2, None, "hash-new", None).state.seats[2].name == "Bob"  # a guest
    assert join(kicked, "Cy", 2, None, "hash-cy", "p-cy").state.seats[2].profile == "p-cy"
    handed = hand_over(kicked, 1, "Bob", "hash-again", "hash-bob", "p-bob").state
    assert handed.removed == frozenset()
    seated = join(replace(handed, seats=kicked.seats), "Bob", 2, None, "hash-new", "p-bob")
    assert seated.state.seats[2].profile == "p-bob"


def test_the_host_swaps_two_seats_and_the_host_seat_follows() -> None:
    state = a_table(handoffs={1: Handoff("secret", 2_000.0)})
    step = move_seat(state, 0, 0, 2)
    assert step.state.seats[2] == SeatState(2, "Ann", "human", "hash-ann", connections=1)
    assert step.state.seats[0] == SeatState(0)
    assert step.state.host_seat == 2
    assert step.events[0] == {"type": "seats_swapped", "seats": [0, 2], "host_seat": 2}
    assert step.seat_changes == SeatChanges(swapped=(0, 2)) and step.row
    assert step.renewed == (0, 2) and step.extra == ChangeExtra(handoffs=())
    other = move_seat(state, 0, 1, 3)
    assert other.state.host_seat == 0 and other.state.seats[3].name == "Bob"
    assert other.extra == ChangeExtra(handoffs=(StoredHandoff(1, None),))
    assert other.state.handoffs == {}
    assert refused(move_seat, state, 0, 1, 1) == ErrorCode.BAD_SEAT
    assert refused(move_seat, state, 0, 2, 3) == ErrorCode.BAD_SEAT  # both empty
    assert refused(move_seat, state, 0, 1, None) == ErrorCode.BAD_MESSAGE
    assert refused(move_seat, state, 1, 0, 2) == ErrorCode.NOT_HOST
    assert refused(move_seat, a_table(status="playing"), 0, 1, 2) == ErrorCode.WRONG_STATUS


def test_a_seat_handed_over_keeps_its_place_and_revokes_the_old_token() -> None:
    state = a_table(status="playing", removed=frozenset({"hash-eve"}),
                    handoffs={1: Handoff("secret", 2_000.0)})  # fmt: skip
    step = hand_over(state, 1, "Eve", "hash-new", let_back="hash-eve", profile="p-eve")
    seat = step.state.seats[1]
    assert (seat.name, seat.token_hash, seat.profile, seat.connections) == (
        "Eve", "hash-new", "p-eve", 0,
    )  # fmt: skip
    assert step.state.removed == frozenset() and step.row  # let back: the row changes
    assert step.seat_changes == SeatChanges(revoked={1: ErrorCode.BAD_TOKEN})
    assert step.state.handoffs == {} and step.renewed == (1,)
    assert not hand_over(state, 1, "Eve", "h").row
    assert profile_seat(state, "p-bob").seat == 1
    assert refused(profile_seat, state, "p-nobody") == ErrorCode.BAD_SEAT
