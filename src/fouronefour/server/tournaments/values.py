"""What an event is made of, as its store keeps it and its routes send it: the setup an
admin gives (checked here: :func:`check_setup`), the event, its players and its games."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ...engine.cards import FACES
from ..errors import ErrorCode
from ..tables.model import unshown
from .errors import EventError

Format = Literal["swiss", "round_robin"]
Entry = Literal["pairs", "individuals"]
Status = Literal["open", "running", "finished"]
GameStatus = Literal["new", "lobby", "playing", "decided", "bye"]
Side = Literal["north", "east"]

FORMATS: tuple[Format, ...] = ("swiss", "round_robin")
ENTRIES: tuple[Entry, ...] = ("pairs", "individuals")
#: How long a table of the event plays: one round, until a side reaches a level ("3" to
#: "A"), or a whole match (until a side wins at A: docs/rules.md section 7).
LENGTHS: tuple[str, ...] = ("round", *FACES[1:], "match")
NAME_LENGTH = 40
MAX_ROUNDS = 15
#: Entrants an event takes (pairs or individuals): a club's evening, and a bound on the
#: tables one event makes a round.
MAX_ENTRANTS = 64
GRACE_SECONDS_RANGE = (0, 600)


@dataclass(frozen=True)
class Setup:
    name: str
    format: Format = "swiss"
    entry: Entry = "pairs"
    rounds: int = 3
    length: str = "round"
    #: How long a new table waits for its players before bots take the absent seats.
    grace_seconds: int = 60
    #: The bots' level at the event's tables (background/botrunner.py).
    bot: str = "greedy"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "format": self.format,
            "entry": self.entry,
            "rounds": self.rounds,
            "length": self.length,
            "grace_seconds": self.grace_seconds,
            "bot": self.bot,
        }


def check_event_name(name: object) -> str:
    """An event's name: user content, one line of 1 to :data:`NAME_LENGTH` characters that
    shows (the same rule as a seat's name: tables/model.py ``unshown``)."""
    if not isinstance(name, str):
        raise EventError(ErrorCode.BAD_NAME, "an event's name must be text")
    cleaned = name.strip()
    if not cleaned or len(cleaned) > NAME_LENGTH:
        raise EventError(ErrorCode.BAD_NAME, f"an event's name has 1 to {NAME_LENGTH} characters")
    refused = unshown(cleaned)
    if refused is not None:
        raise EventError(ErrorCode.BAD_NAME, f"an event's name has {refused}")
    return cleaned


def _whole(data: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EventError(ErrorCode.BAD_OPTION, f"{key} must be a whole number from {low} to {high}")
    return value


def _one_of(data: dict[str, Any], key: str, default: str, allowed: tuple[str, ...]) -> str:
    value = data.get(key, default)
    if value not in allowed:
        raise EventError(ErrorCode.BAD_OPTION, f"{key} must be one of {', '.join(allowed)}")
    return str(value)


SETUP_KEYS = frozenset(Setup("x").to_dict())


def check_setup(data: dict[str, Any], bots: tuple[str, ...], default_bot: str) -> Setup:
    """An admin's setup, every field checked (``bad_name``, ``bad_option``)."""
    unknown = set(data) - SETUP_KEYS
    if unknown:
        raise EventError(ErrorCode.BAD_OPTION, f"no event option {sorted(unknown)[0]!r}")
    defaults = Setup("x", bot=default_bot)
    setup = Setup(
        name=check_event_name(data.get("name")),
        format=_one_of(data, "format", defaults.format, FORMATS),  # type: ignore[arg-type]
        entry=_one_of(data, "entry", defaults.entry, ENTRIES),  # type: ignore[arg-type]
        rounds=_whole(data, "rounds", defaults.rounds, 1, MAX_ROUNDS),
        length=_one_of(data, "length", defaults.length, LENGTHS),
        grace_seconds=_whole(data, "grace_seconds", defaults.grace_seconds, *GRACE_SECONDS_RANGE),
        bot=_one_of(data, "bot", defaults.bot, bots),
    )
    return setup


@dataclass(frozen=True)
class Event:
    id: str
    club_id: str
    setup: Setup
    status: Status
    #: The round being played (0: not started).
    round: int
    seed: int
    created_by: str
    created_at: int
    #: The entrants in the event's draw order (pairing.seeded_order), once it started.
    seeds: tuple[str, ...] = ()


@dataclass(frozen=True)
class Player:
    """A registered player: ``team`` is the pair's entrant (fixed pairs; the same for both
    partners) or the player's own id (individuals)."""

    profile_id: str
    team: str
    name: str
    registered_at: int
    #: The profile was deleted (it stays a nameless entrant; bots take its seats).
    gone: bool = False


@dataclass(frozen=True)
class Game:
    """One table of one round (or one entrant's bye: ``status`` "bye", nobody ``east``)."""

    round: int
    number: int
    north: tuple[str, ...]
    east: tuple[str, ...]
    code: str = ""
    #: The private table's invite (tables/invites.py): its link is for the club's members.
    invite: str = ""
    status: GameStatus = "new"
    winner: Side | None = None
    #: North's level minus east's (level indices) when the table was decided.
    level_difference: int = 0
    created_at: int = 0
