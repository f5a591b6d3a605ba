"""Chat as pure steps (tables/chat.py): who may speak under which name, and a line said."""

from __future__ import annotations

from dataclasses import replace

from fouronefour.server.errors import ErrorCode
from fouronefour.server.storage import StoredChat
from fouronefour.server.tables.chat import Speaker, check_line, said, speaker_name
from fouronefour.server.tables.model import SeatState
from fouronefour.server.tables.settings import TableSettings

from .tablestates import NOW, a_table, refused


def test_a_line_goes_under_the_seat_or_the_spectator_that_may_speak() -> None:
    state = a_table()
    watcher = Speaker("Guest 1", NOW)
    assert speaker_name(state, 1, None) == "Bob"
    nameless = a_table(seats=(*state.seats[:2], SeatState(2, None, "human", "h"), state.seats[3]))
    assert speaker_name(nameless, 2, None) == "Seat 3"
    assert refused(speaker_name, state, None, watcher) == ErrorCode.CHAT_CLOSED
    assert refused(speaker_name, state, None, None) == ErrorCode.NOT_SEATED
    open_chat = replace(state, settings=TableSettings(spectator_chat=True))
    assert speaker_name(open_chat, None, watcher) == "Guest 1"


def test_a_line_said_is_one_chat_event_written_with_the_next_version() -> None:
    state = a_table(match_number=2, move_count=17)
    text, phrase = check_line({"text": "  good luck all "})
    step = said(state, 1, "Bob", text, phrase)
    line = StoredChat(4, 2, 17, 1_000_000, 1, "Bob", False, "good luck all", None)
    assert step.extra is not None and step.extra.chat == line
    assert step.events == ({"type": "chat", "seat": 1, "name": "Bob", "spectator": False,
                            "text": "good luck all", "at": 1_000_000},)  # fmt: skip
    assert step.state == state  # a line changes nothing else
    watched = said(state, None, "Guest 1", *check_line({"phrase": "wow"}))
    assert watched.events[0]["phrase"] == "wow" and watched.events[0]["spectator"]
    for bad in ({}, {"text": "a", "phrase": "wow"}, {"phrase": "nope"}, {"text": " "},
                {"text": "x" * 201}, {"text": "two\nlines"}, {"text": 5}):  # fmt: skip
        assert refused(check_line, bad) == ErrorCode.BAD_MESSAGE
