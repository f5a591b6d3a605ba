"""Bot levels a person picks by name: Beginner, Casual, Strong and Expert (docs/bots.md,
"Levels").

Each level is a bot with fixed settings, registered under the level's name (``get("casual")``),
and a fixed rating on the OpenSkill scale (Plackett-Luce, mu 25 and sigma 25/3 for a new
player) measured by ``bench/levels.py``: a round robin of the levels on paired deals, whose
``--write`` keeps the ratings and the table they came from in ``levels.json`` beside this
module. The ratings anchor people's ratings where bots sit at a rated table, as a bot's Elo
does in other online card games.

Every level does a fixed amount of work a decision (no time budget), so it plays the same
on a loaded server as on an idle one and its rating holds wherever it plays; and every level
is cheap (at most about a millisecond a decision), so a server runs it in a thread.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import Bot, get, register

#: What bench/levels.py measured: each level's rating and the round robin behind it.
MEASURED = Path(__file__).with_name("levels.json")


@dataclass(frozen=True, slots=True)
class Rating:
    """A rating on the OpenSkill scale: the estimate and its uncertainty."""

    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class Level:
    """A named strength: the bot that plays it, with its settings."""

    name: str
    bot: str
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def rating(self) -> Rating:
        """The fixed rating bench/levels.py measured for this level."""
        return measured_ratings()[self.name]

    def build(self) -> Bot:
        return get(self.bot, **dict(self.params))

    @property
    def spec(self) -> str:
        """The bot and its settings as the arena and ``play`` write them."""
        settings = ",".join(f"{key}={value}" for key, value in self.params)
        return f"{self.bot}:{settings}" if settings else self.bot

    def to_dict(self) -> dict[str, Any]:
        rating = self.rating
        return {
            "name": self.name,
            "bot": self.spec,
            "rating": {"mu": rating.mu, "sigma": rating.sigma},
        }


#: The levels, weakest first; each beats the one below it in at least 60% of paired rounds
#: (bench/levels.py, whose latest figures are in docs/bots.md).
LEVELS: tuple[Level, ...] = (
    Level("beginner", "greedy", (("mistakes", 0.5),)),
    Level("casual", "greedy", (("mistakes", 0.15),)),
    Level("strong", "greedy"),
    Level("expert", "learned"),
)

_BY_NAME = {level.name: level for level in LEVELS}


def level(name: str) -> Level:
    """The level called ``name``; ValueError naming the levels otherwise."""
    found = _BY_NAME.get(name)
    if found is None:
        known = ", ".join(level.name for level in LEVELS)
        raise ValueError(f"unknown level {name!r}; the levels are {known}")
    return found


@functools.cache
def measured_ratings() -> dict[str, Rating]:
    """Each level's rating, as bench/levels.py wrote it (read once, on first use)."""
    data = json.loads(MEASURED.read_text(encoding="utf-8"))
    return {name: Rating(float(r["mu"]), float(r["sigma"])) for name, r in data["ratings"].items()}


def level_names() -> list[str]:
    """The levels' names, weakest first."""
    return [level.name for level in LEVELS]


def _factory(found: Level) -> Callable[[], Bot]:
    def build() -> Bot:
        return found.build()

    return build


for _level in LEVELS:
    register(_level.name, _factory(_level))


__all__ = ["LEVELS", "MEASURED", "Level", "Rating", "level", "level_names", "measured_ratings"]
