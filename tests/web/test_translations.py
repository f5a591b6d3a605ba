"""Translation data: every language has every string, with the same placeholders.

No browser needed: reads the JSON files and the client's sources.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fouronefour.bots.levels import level_names
from fouronefour.server.players.errors import PlayerCode
from fouronefour.server.players.values import AVATARS

WEB = Path(__file__).resolve().parents[2] / "src" / "fouronefour" / "web"
I18N = WEB / "static" / "i18n"
LANGUAGES = ("en", "de", "it", "hi", "zh")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _strings(lang: str) -> dict[str, str]:
    data = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _keys_used_by_the_client() -> set[str]:
    """Keys named literally in the HTML and JS (dynamic ones are checked below)."""
    html = (WEB / "index.html").read_text(encoding="utf-8")
    keys = set(re.findall(r'data-i18n(?:-placeholder|-title|-label)?="([a-z0-9_]+)"', html))
    for source in (WEB / "static").glob("*.js"):
        keys |= set(re.findall(r'\bt\("([a-z0-9_]+)"', source.read_text(encoding="utf-8")))
    return keys


def test_the_language_files_are_exactly_the_languages_offered() -> None:
    assert sorted(p.stem for p in I18N.glob("*.json")) == sorted(LANGUAGES)
    module = (WEB / "static" / "i18n.js").read_text(encoding="utf-8")
    for lang in LANGUAGES:
        assert re.search(rf"^\s+{lang}: \"", module, re.MULTILINE), lang


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_string_is_translated_with_the_same_placeholders(lang: str) -> None:
    english = _strings("en")
    other = _strings(lang)
    assert set(other) == set(english)
    for key, text in english.items():
        assert other[key].strip(), f"{lang}:{key} is empty"
        assert set(PLACEHOLDER.findall(other[key])) == set(PLACEHOLDER.findall(text)), key


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_translations_are_not_english_left_in_place(lang: str) -> None:
    english = _strings("en")
    other = _strings(lang)
    # Short labels may coincide ("Team", "Code", "offline"); whole sentences may not.
    same = [key for key, text in english.items() if len(text) > 20 and other[key] == text]
    assert not same, f"{lang} keeps English text for {same}"


def test_every_key_the_client_names_exists() -> None:
    english = _strings("en")
    missing = sorted(_keys_used_by_the_client() - set(english))
    assert not missing
    dynamic = [
        *(f"bot_{name}" for name in ("random", "greedy", "search", "learned")),
        *(f"bot_{name}" for name in level_names()),
        *(
            f"phrase_{key}"
            for key in (
                "good_luck", "well_played", "thanks", "hurry_up", "oops", "wow", "sorry",
                "good_game", "emote_smile", "emote_laugh", "emote_clap", "emote_think",
                "emote_sad", "emote_angry",
            )
        ),
        *(f"kind_{kind}" for kind in ("single", "pair", "straight", "double_dragon", "bomb")),
        "team_a", "team_b", "hook_done", "unhook_done", "offer_hook", "offer_unhook",
        "window_hook", "window_unhook", "window_open_hook", "window_open_unhook",
        "result_place", "result_player", "result_team",
        "round_won", "round_won_stay", "round_won_final",
        *(f"avatar_{name}" for name in AVATARS),
        *(f"how_{how}" for how in ("guest", "claim", "password", "password_change", "device",
                                   "passkey")),
        "stats_matches", "stats_wins", "stats_win_rate", "stats_rated", "stats_rounds",
        "stats_average_place", "game_won", "game_lost", "game_rated", "game_casual",
        "game_partners", "game_opponents", "signed_out", "signed_out_all", "deleted",
    ]  # fmt: skip
    assert not [key for key in dynamic if key not in english]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_avatar_has_a_name_and_a_drawing(lang: str) -> None:
    """The server's avatars (players/values.py) are the client's (profile.js), each named."""
    strings = _strings(lang)
    names = [strings.get(f"avatar_{avatar}", "").strip() for avatar in AVATARS]
    assert all(names), f"{lang} misses an avatar's name: {names}"
    assert len(set(names)) == len(names), f"{lang} gives two avatars one name: {names}"
    profile = (WEB / "static" / "profile.js").read_text(encoding="utf-8")
    table = profile.split("export const AVATARS", 1)[1].split("};", 1)[0]
    assert re.findall(r"^  (\w+): \[", table, re.MULTILINE) == list(AVATARS)


def test_every_players_error_a_person_can_meet_has_words() -> None:
    english = _strings("en")
    assert not [code for code in PlayerCode if f"error_{code}" not in english]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_bot_level_has_its_name_in_every_language(lang: str) -> None:
    strings = _strings(lang)
    names = [strings.get(f"bot_{level}", "").strip() for level in level_names()]
    assert all(names), f"{lang} misses a level's name: {names}"
    assert len(set(names)) == len(names), f"{lang} gives two levels one name: {names}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_quick_phrase_and_emote_has_words(lang: str) -> None:
    # A screen reader reads an emote's words (chat.js hides its picture from it).
    for key, text in _strings(lang).items():
        if key.startswith("phrase_"):
            assert re.search(r"\w", text), f"{lang}:{key} has no words"


def test_every_server_error_code_has_a_message() -> None:
    protocol = (WEB.parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    table = protocol.split("## 6. Error codes", 1)[1]
    codes = set(re.findall(r"^\| `([a-z_]+)` \|", table, re.MULTILINE))
    assert codes, "no error codes found in docs/protocol.md"
    # Errors a person can cause from the page get their own words; the rest are protocol
    # mistakes the client never makes and fall back to the server's message.
    client_never_sends = {
        "bad_json", "bad_message", "unknown_type", "too_large", "hello_required",
        "bad_protocol", "already_hello", "not_away",
    }  # fmt: skip
    english = _strings("en")
    missing = sorted(c for c in codes - client_never_sends if f"error_{c}" not in english)
    assert not missing


def test_the_style_sheet_closes_every_block() -> None:
    # An unclosed block swallows every rule after it into the block's media query (a merge
    # once left one open: the phone layout of everything below it was lost).
    css = (WEB / "static" / "style.css").read_text(encoding="utf-8")
    depth = 0
    for number, line in enumerate(css.splitlines(), 1):
        depth += line.count("{") - line.count("}")
        assert depth >= 0, f"style.css:{number} closes a block that is not open"
    assert depth == 0, "style.css leaves a block open"
