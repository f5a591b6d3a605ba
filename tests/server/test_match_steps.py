"""A match begins as a pure step (tables/matches.py): the host's checks, then the deal."""

from __future__ import annotations

from fouronefour.engine import Match, Rules
from fouronefour.server.errors import ErrorCode
from fouronefour.server.storage import NewMatch
from fouronefour.server.tables.matches import check_play_again, check_start, deal
from fouronefour.server.tables.model import TableOptions
from fouronefour.server.tables.seating import fill_bots

from .tablestates import a_table, refused


def test_the_host_starts_once_every_seat_is_filled() -> None:
    lobby = a_table()
    assert refused(check_start, lobby, 0) == ErrorCode.SEATS_EMPTY
    full = fill_bots(lobby, 0).state
    check_start(full, 0)
    assert refused(check_start, full, 1) == ErrorCode.NOT_HOST
    assert refused(check_start, a_table(status="finished"), 0) == ErrorCode.WRONG_STATUS
    assert refused(check_play_again, full, 0) == ErrorCode.WRONG_STATUS  # not over yet
    again = a_table(status="finished", seats=full.seats, match_number=1)
    check_play_again(again, 0)
    assert refused(check_play_again, again, 1) == ErrorCode.NOT_HOST
    emptied = a_table(status="finished", match_number=1)
    assert refused(check_play_again, emptied, 0) == ErrorCode.SEATS_EMPTY


def test_an_events_decided_table_is_not_played_again() -> None:
    """A club event's table (its rules' goal: one round, a level) ends when the event's
    length decides it; the event makes the next round's tables, so the host's play again
    is refused (docs/tournaments.md, "A decided table ends")."""
    full = fill_bots(a_table(), 0).state
    event_options = (TableOptions(Rules(goal="round")), TableOptions(Rules(goal="8")),
                     TableOptions(Rules(), event=True))  # fmt: skip
    for options in event_options:
        event_table = a_table(status="finished", seats=full.seats, match_number=1,
                              options=options)  # fmt: skip
        assert refused(check_play_again, event_table, 0) == ErrorCode.WRONG_STATUS


def test_an_events_table_is_started_by_its_event_not_by_its_host() -> None:
    """The host of an event's table cannot start it before its players are there (a paired
    player who comes within the grace time would find a bot in their place); the event
    starts it (docs/tournaments.md, "Grace")."""
    full = fill_bots(a_table(), 0).state
    for options in (TableOptions(Rules(goal="round")), TableOptions(Rules(), event=True)):
        event_table = a_table(seats=full.seats, options=options)
        assert refused(check_start, event_table, 0) == ErrorCode.WRONG_STATUS
        check_start(event_table, 0, by_event=True)
        assert refused(check_start, event_table, 1, by_event=True) == ErrorCode.NOT_HOST


def test_a_match_is_dealt_from_its_seed_with_everyone_back() -> None:
    seats = fill_bots(a_table(), 0).state.seats
    away = (seats[0], seats[1].with_away(True), *seats[2:])
    state = a_table(status="finished", match_number=1, move_count=90, seats=away)
    dealt = deal(state, 41)
    after = dealt.state
    assert after.match is not None and after.match.moves == [] and after.round_end is None
    assert after.match.round.hand(0) == Match(state.options.rules, 41).round.hand(0)
    assert (after.status, after.match_number, after.move_count) == ("playing", 2, 0)
    assert after.trick_start == after.match.round.log_size and not after.paused
    assert not any(seat.away for seat in after.seats)
    kinds = [e["type"] for e in dealt.events]
    assert kinds == ["status", "match_start", "round_start"]
    levels = list(after.match.levels)
    assert dealt.events[1] == {"type": "match_start", "match_number": 2, "levels": levels}
    assert dealt.new_match == NewMatch(2, 41, state.options.rules.to_dict())
    assert dealt.new_prompts and dealt.row
