"""A notice's words in its recipient's language, from the client's own translation files
(``web/static/i18n/<lang>.json``, keys ``push_<kind>_title`` and ``push_<kind>_body``): one
place to translate, and a test that every language has them (tests/web/test_translations.py).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from ..notify import Notice
from ..players.values import LANGUAGES

I18N = Path(__file__).resolve().parents[2] / "web" / "static" / "i18n"
FALLBACK = "en"
#: The longest a filled-in parameter may be in a notice (names are shorter already).
PARAM_LENGTH = 64
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@functools.cache
def strings(language: str) -> dict[str, str]:
    """The ``push_`` strings of ``language`` (English's where it has none)."""
    if language not in LANGUAGES:
        language = FALLBACK
    found: dict[str, str] = json.loads((I18N / f"{language}.json").read_text(encoding="utf-8"))
    chosen = {key: text for key, text in found.items() if key.startswith("push_")}
    if language != FALLBACK:
        chosen = {**strings(FALLBACK), **chosen}
    return chosen


def words(notice: Notice, language: str) -> tuple[str, str]:
    """The notice's title and body in ``language``."""
    texts = strings(language)
    params = {key: str(value)[:PARAM_LENGTH] for key, value in notice.params.items()}

    def fill(key: str) -> str:
        return _PLACEHOLDER.sub(
            lambda m: params.get(m.group(1), ""), texts.get(key, texts.get("push_title", "414"))
        )

    # One kind may cover several happenings (a club's table, a club's event starting): a
    # notice names its words' variant, ``params["words"]`` (keys push_<kind>_<words>_...).
    key = f"push_{notice.kind}"
    variant = notice.params.get("words")
    if variant and f"{key}_{variant}_title" in texts:
        key = f"{key}_{variant}"
    return fill(f"{key}_title"), fill(f"{key}_body")
