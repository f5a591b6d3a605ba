"""The notice an event's start sends the club (tournaments/service.py) is worded as an
event's, not as the club's table's, in every language (push/words.py)."""

from __future__ import annotations

import pytest

from fouronefour.server.notify import Notice
from fouronefour.server.push.words import words

EVENT = Notice(
    "club_event", "/e/abc", {"club": "c1", "event": "Thursday cup", "words": "tournament"}
)


@pytest.mark.parametrize("language", ["en", "de", "it", "hi", "zh"])
def test_an_events_notice_names_the_event(language: str) -> None:
    title, body = words(EVENT, language)
    table_title, _ = words(
        Notice("club_event", "/c/c1/table", {"club": "c1", "from": "Ann"}), language
    )
    assert "Thursday cup" in title and body and title != table_title


def test_an_unknown_variant_keeps_the_kinds_words() -> None:
    plain = Notice("club_event", "/c/c1/table", {"club": "Club", "from": "Ann"})
    odd = Notice("club_event", "/c/c1/table", {"club": "Club", "from": "Ann", "words": "nope"})
    assert words(odd, "en") == words(plain, "en")
