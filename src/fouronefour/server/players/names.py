"""What a player may be called: display names (the rules of a seat's and chat's names, and
no passing for "(you)" or for a bot), usernames, and passwords' length."""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from pathlib import Path

from ... import web
from ...bots.levels import level_names
from ..errors import ErrorCode, TableError
from ..tables.model import check_name
from .errors import PlayerCode, PlayerError

USERNAME = re.compile(r"[a-z0-9][a-z0-9_.-]{2,23}")
#: Passwords: at least 8 characters (NIST SP 800-63B); at most 256 so that one hash costs
#: what docs/hosting.md says whatever is sent.
PASSWORD_MIN, PASSWORD_MAX = 8, 256
#: What the client writes after a seat's name, and the bot names it shows, in every
#: language it has (web/static/i18n): "you", "Bot {n}", the levels' names.
_I18N_KEYS = ("you", "bot_name", "bot_beginner", "bot_casual", "bot_strong", "bot_expert")


def _fold(text: str) -> str:
    """``text`` as compared for impersonation: NFKC (full-width and styled letters become
    plain ones), case folded, and without spaces, punctuation, marks and format characters."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(c for c in folded if unicodedata.category(c)[0] in "LN")


@functools.cache
def _reserved() -> tuple[frozenset[str], tuple[re.Pattern[str], ...]]:
    """Folded names nobody may take, and patterns ("bot7") of the bots' seat names."""
    names: set[str] = {"you", "bot", "host", "admin", "system", "moderator", "seat"}
    patterns: list[re.Pattern[str]] = [re.compile(r"(bot|seat)\d*")]
    names.update(_fold(n) for n in level_names())
    for path in sorted((Path(web.__file__).parent / "static" / "i18n").glob("*.json")):
        words = json.loads(path.read_text(encoding="utf-8"))
        for key in _I18N_KEYS:
            text = words.get(key)
            if not isinstance(text, str):
                continue
            if "{n}" in text:
                head, _, tail = text.partition("{n}")
                patterns.append(
                    re.compile(re.escape(_fold(head)) + r"\d*" + re.escape(_fold(tail)))
                )
            else:
                names.add(_fold(text))
    for name in list(names):
        names.add(name + "bot")
        names.add("bot" + name)
    names.discard("")
    return frozenset(names), tuple(patterns)


#: "you" in German and Italian are also people's names (Tu, Du): only "(du)" is refused.
_ALSO_NAMES = frozenset({"du", "tu"})


def check_display_name(name: object) -> str:
    """``name`` stripped, or PlayerError ``bad_name``: 1 to 24 visible characters on one line
    (a seat's rules, tables/model.py ``unshown``), and not one the client shows for someone
    else: "you" and "(you)" in any of its languages, "Bot 3", a bot level's name. The text is
    kept as typed: the client escapes it wherever it shows it."""
    try:
        cleaned = check_name(name)  # (a seat's rules)
    except TableError as error:
        raise PlayerError(error.code, error.message) from None
    folded = _fold(cleaned)
    names, patterns = _reserved()
    if (folded in names and folded not in _ALSO_NAMES) or any(
        p.fullmatch(folded) for p in patterns
    ):
        raise PlayerError(ErrorCode.BAD_NAME, "that name is kept for the game itself (you, a bot)")
    if "(" in cleaned and _fold(cleaned[cleaned.rfind("(") :]) in names:
        raise PlayerError(ErrorCode.BAD_NAME, 'a name may not end as "(you)" or a bot does')
    return cleaned


def check_username(username: object) -> str:
    """The username as kept: lower case ASCII letters, digits, ``_ . -``, 3 to 24, starting
    with a letter or digit (ASCII only, so that no two look alike)."""
    if not isinstance(username, str) or not USERNAME.fullmatch(username.strip().lower()):
        raise PlayerError(
            PlayerCode.BAD_USERNAME,
            "a username has 3 to 24 letters a-z, digits, '_', '.' or '-', first a letter or digit",
        )
    return username.strip().lower()


def check_password(password: object) -> str:
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise PlayerError(
            PlayerCode.BAD_PASSWORD,
            f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters",
        )
    return password
