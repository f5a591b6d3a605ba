"""Table settings: what the host may change at any time (docs/protocol.md section 2).

Unlike the options (rules and timers, fixed when a table is created), settings change
while people play: the longest end-of-round pause, whether clients show the card counter,
whether spectators may chat. A create request may give their first values.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..errors import ErrorCode, TableError

ROUND_PAUSE_SECONDS_RANGE = (0.0, 120.0)


@dataclass(frozen=True, slots=True)
class TableSettings:
    #: The longest end-of-round pause; 0: none (docs/protocol.md section 5).
    round_pause_seconds: float = 15.0
    #: Whether clients show the card counter (public information; the server only carries it).
    card_counter: bool = True
    #: Whether spectators may chat.
    spectator_chat: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "round_pause_seconds": self.round_pause_seconds,
            "card_counter": self.card_counter,
            "spectator_chat": self.spectator_chat,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableSettings:
        """Settings as stored (trusted; a table stored before settings existed has none)."""
        defaults = cls()
        return cls(
            float(data.get("round_pause_seconds", defaults.round_pause_seconds)),
            bool(data.get("card_counter", defaults.card_counter)),
            bool(data.get("spectator_chat", defaults.spectator_chat)),
        )

    def changed(self, data: dict[str, Any]) -> TableSettings:
        """These settings with those ``data`` names changed, each checked (``bad_option``)."""
        changes: dict[str, Any] = {}
        if "round_pause_seconds" in data:
            value = data["round_pause_seconds"]
            low, high = ROUND_PAUSE_SECONDS_RANGE
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TableError(ErrorCode.BAD_OPTION, "round_pause_seconds must be a number")
            if not low <= value <= high:
                raise TableError(
                    ErrorCode.BAD_OPTION, f"round_pause_seconds must be between {low} and {high}"
                )
            changes["round_pause_seconds"] = float(value)
        for flag in ("card_counter", "spectator_chat"):
            if flag in data:
                if not isinstance(data[flag], bool):
                    raise TableError(ErrorCode.BAD_OPTION, f"{flag} must be true or false")
                changes[flag] = data[flag]
        return replace(self, **changes)


SETTING_KEYS = frozenset(TableSettings().to_dict())
