"""The rule set: docs/rules.md section 10."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

BombLadder = Literal["listed", "size"]


@dataclass(frozen=True, slots=True)
class Rules:
    """Options of a table. ``decks=None`` means ``ceil(players / 2)``.

    >>> Rules(players=4)
    Rules(players=4, decks=2, hooking=True, tribute=True, bomb_ladder='listed')
    """

    players: int = 4
    decks: int | None = None
    hooking: bool = True
    tribute: bool = True
    bomb_ladder: BombLadder = "listed"

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise ValueError(f"players must be an integer, not {self.players!r}")
        if self.players < 2:
            raise ValueError(f"a table needs at least 2 players, not {self.players}")
        if self.decks is None:
            object.__setattr__(self, "decks", (self.players + 1) // 2)
        decks = self.decks
        if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
            raise ValueError(f"decks must be a positive integer, not {decks!r}")
        if 54 * decks < self.players:
            raise ValueError(f"{decks} deck(s) cannot deal {self.players} players a card each")
        if self.bomb_ladder not in ("listed", "size"):
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
