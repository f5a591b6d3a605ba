"""The rule set: docs/rules.md section 10."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

BombLadder = Literal["listed", "size"]

#: The most seats and decks a rule set may have. The rules set no upper bound; these keep what
#: a table costs bounded (and one deck always deals every seat a card).
MAX_PLAYERS = 32
MAX_DECKS = 16


@dataclass(frozen=True, slots=True)
class Rules:
    """Options of a table. ``decks=None`` means ``ceil(players / 2)``.

    >>> Rules(players=4)
    Rules(players=4, decks=2, hooking=True, tribute=True, bomb_ladder='listed')

    Every option is checked for its type and range (ValueError, saying which and why).
    """

    players: int = 4
    decks: int | None = None
    hooking: bool = True
    tribute: bool = True
    bomb_ladder: BombLadder = "listed"

    def __post_init__(self) -> None:
        players = self.players
        if isinstance(players, bool) or not isinstance(players, int):
            raise ValueError(f"players must be an integer, not {players!r}")
        if not 2 <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be 2 to {MAX_PLAYERS}, not {players}")
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
        if not isinstance(self.bomb_ladder, str) or self.bomb_ladder not in ("listed", "size"):
            raise ValueError(f"bomb_ladder must be 'listed' or 'size', not {self.bomb_ladder!r}")

    @property
    def deck_count(self) -> int:
        """``decks`` resolved (always an int after construction; typed for mypy)."""
        assert self.decks is not None  # set in __post_init__
        return self.decks

    def to_dict(self) -> dict[str, object]:
        return {
            "players": self.players,
            "decks": self.deck_count,
            "hooking": self.hooking,
            "tribute": self.tribute,
            "bomb_ladder": self.bomb_ladder,
        }


__all__ = ["MAX_DECKS", "MAX_PLAYERS", "BombLadder", "Rules"]
