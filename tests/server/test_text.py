"""What a chat line or a name may hold (docs/protocol.md section 3, "Chat")."""

from __future__ import annotations

import pytest

from fouronefour.server.errors import TableError
from fouronefour.server.tables.chat import check_line
from fouronefour.server.tables.model import check_name


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


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("\u3164", "visible characters, not blank ones only"),  # Hangul filler: a letter
        ("\u3164" * 30, "visible characters, not blank ones only"),
        ("\u115f\u1160 \uffa0", "visible characters, not blank ones only"),
        ("\u2800\u2800", "visible characters, not blank ones only"),  # braille blank
        ("\u0301\u0301", "visible characters, not blank ones only"),  # marks on nothing
        ("a" + "\u0301" * 199, "at most 4 combining marks on a character"),
        ("ok a" + "\u0300\u0301\u0302\u0303\u0304", "at most 4 combining marks on a character"),
    ],
)
def test_a_line_shows_something_and_marks_are_bounded(text: str, said: str) -> None:
    """Issue 27: a line of U+3164 (a letter by its class) showed as an empty message, and
    "a" with 199 combining marks was accepted. Names share the rule."""
    with pytest.raises(TableError) as refused:
        check_line({"text": text})
    assert refused.value.code == "bad_message" and refused.value.message == f"chat text has {said}"
    with pytest.raises(TableError) as refused:
        check_name(text[:24])
    assert refused.value.code == "bad_name" and said in refused.value.message


@pytest.mark.parametrize(
    "text",
    [
        "Tiếng Việt",  # two marks on one letter when decomposed
        "Tie\u0302\u0301ng",
        "1\ufe0f\u20e3",  # keycap: a variation selector and an enclosing mark
        "ㅋㅋㅋ",  # Hangul letters that are not fillers
        "\u3164gg",
        "เก่ง",  # Thai
    ],
)
def test_real_text_with_marks_and_fillers_among_letters_is_kept(text: str) -> None:
    assert check_line({"text": text}) == (text, None)
    assert check_name(text) == text
