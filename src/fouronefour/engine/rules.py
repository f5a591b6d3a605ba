"""The rule set: docs/rules.md section 10."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal

BombLadder = Literal["listed", "size"]
#: The bomb ladders a rule set may name (docs/rules.md section 10).
BOMB_LADDERS: tuple[BombLadder, ...] = ("listed", "size")
#: What ends a match (docs/rules.md section 10): the whole match (section 7), one round, or
#: the first side whose level reaches a level ("3" to "A"; a club's event plays these).
GOALS: tuple[str, ...] = ("match", "round", *"3456789TJQKA")

#: The fewest and most seats, and the most decks, a rule set may have. The rules set no upper
#: bound; these keep what a table costs bounded (and one deck always deals every seat a card).
MIN_PLAYERS = 2
MAX_PLAYERS = 32
MAX_DECKS = 16


@dataclass(frozen=True, slots=True)
class Rules:
    """Options of a table. ``decks=None`` means ``ceil(players / 2)``.

    >>> Rules(players=4)
    Rules(players=4, decks=2, hooking=True, tribute=True, bomb_ladder='listed', goal='match')

    Every option is checked for its type and range (ValueError, saying which and why).
    """

    players: int = 4
    decks: int | None = None
    hooking: bool = True
    tribute: bool = True
    bomb_ladder: BombLadder = "listed"
    goal: str = "match"

    def __post_init__(self) -> None:
        players = self.players
        if isinstance(players, bool) or not isinstance(players, int):
            raise ValueError(f"players must be an integer, not {players!r}")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {players}")
        if self.decks is None:
            object.__setattr__(self, "decks", (players + 1) // 2)
        decks = self.decks
        if isinstance(decks, bool) or not isinstance(decks, int):
            raise ValueError(f"decks must be an integer, not {decks!r}")
        if not 1 <= decks <= MAX_DECKS:
            raise ValueError(f"decks must be 1 to {MAX_DECKS}, not {decks}")
        for flag in ("hooking", "tribute"):
            value = getattr(self, flag)
            if not isinstance(value, bool):
                raise ValueError(f"{flag} must be True or False, not {value!r}")
        if not isinstance(self.bomb_ladder, str) or self.bomb_ladder not in BOMB_LADDERS:
            raise ValueError(f"bomb_ladder must be 'listed' or 'size', not {self.bomb_ladder!r}")
        if not isinstance(self.goal, str) or self.goal not in GOALS:
            raise ValueError(f"goal must be 'match', 'round' or a level 3 to A, not {self.goal!r}")

    @property
    def deck_count(self) -> int:
        """``decks`` resolved (always an int after construction; typed for mypy)."""
        assert self.decks is not None  # set in __post_init__
        return self.decks

    def to_dict(self) -> dict[str, object]:
        """The rules as a JSON-ready dict (``decks`` resolved); :meth:`from_dict` reads it.
        ``goal`` only when it is not the whole match: a table's rules read, store and send
        as they always did unless a shorter match was asked for."""
        rules: dict[str, object] = {
            "players": self.players,
            "decks": self.deck_count,
            "hooking": self.hooking,
            "tribute": self.tribute,
            "bomb_ladder": self.bomb_ladder,
        }
        if self.goal != "match":
            rules["goal"] = self.goal
        return rules

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """The one way a dict becomes rules: the inverse of :meth:`to_dict`.

        Missing options take their defaults (``decks`` may be None); an unknown option or a
        value of the wrong type or range is a ValueError saying which.

        >>> Rules.from_dict(Rules(players=6, hooking=False).to_dict()) == Rules(6, hooking=False)
        True
        >>> Rules.from_dict({"players": 4, "jokers": 2})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: unknown rule option: 'jokers' (the options are players, decks, ...)
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"rules must be an object, not {type(data).__name__}")
        unknown = [key for key in data if key not in RULE_FIELDS]
        if unknown:
            names = ", ".join(repr(key) for key in unknown)
            plural = "s" if len(unknown) > 1 else ""
            raise ValueError(
                f"unknown rule option{plural}: {names} (the options are {', '.join(RULE_FIELDS)})"
            )
        return cls(**data)


#: The options of a rule set, in the order of ``to_dict``: the keys ``from_dict`` accepts.
RULE_FIELDS: tuple[str, ...] = tuple(field.name for field in fields(Rules))

__all__ = [
    "BOMB_LADDERS",
    "GOALS",
    "MAX_DECKS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "RULE_FIELDS",
    "BombLadder",
    "Rules",
]
