"""What a chat line or a name may hold (docs/protocol.md section 3, "Chat")."""

from __future__ import annotations

import pytest

from fouronefour.server.chat import check_line
from fouronefour.server.errors import TableError
from fouronefour.server.model import check_name


@pytest.mark.parametrize(
    "text",
    [
        "👨\u200d👩\u200d👧",  # an emoji sequence: zero-width joiners
        "क्\u200dष",  # Devanagari (the page speaks Hindi): a joiner too
        "می\u200cخواهم",  # Persian: a zero-width non-joiner
        "gg 👍🏽",
    ],
)
def test_joiners_are_text(text: str) -> None:
    """str.isprintable refuses U+200C and U+200D (format characters): emoji families and
    Indic conjuncts were refused, with a message about line breaks."""
    assert check_line({"text": text}) == (text, None)
    assert check_name(text) == text


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("see \u202egnp.exe", "no invisible or direction characters (U+202E)"),
        ("a\u2066b", "no invisible or direction characters (U+2066)"),
        ("two\nlines", "no line breaks"),
        ("a\tb", "no control characters (U+0009)"),
        ("\u200d", "visible characters, not joiners only"),
    ],
)
def test_what_is_refused_says_why(text: str, said: str) -> None:
    with pytest.raises(TableError) as refused:
        check_line({"text": text})
    assert refused.value.code == "bad_message" and refused.value.message == f"chat text has {said}"
    with pytest.raises(TableError) as refused:
        check_name(text)
    assert refused.value.code == "bad_name" and said in refused.value.message
