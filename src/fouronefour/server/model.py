"""What a table is made of: options, seats, updates and acks (values the
:class:`~fouronefour.server.table.Table` authority holds and sends)."""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from ..engine import Rules
from .botrunner import available_bots
from .errors import ErrorCode, TableError
from .storage import StoredSeat

HookMode = Literal["fast", "fair"]
Status = Literal["lobby", "playing", "finished"]

MIN_PLAYERS = 2
MAX_PLAYERS = 12
MAX_DECKS = 8
NAME_LENGTH = 24
TURN_SECONDS_RANGE = (0.05, 3600.0)
HOOK_SECONDS_RANGE = (0.05, 60.0)
#: The options a create request may give (besides the host's ``name`` and ``seat`` and
#: the first settings).
OPTION_KEYS = frozenset(
    {
        "players",
        "decks",
        "hooking",
        "tribute",
        "bomb_ladder",
        "turn_seconds",
        "hook_seconds",
        "hook_mode",
        "bot",
    }
)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_name(name: object) -> str:
    if not isinstance(name, str):
        raise TableError(ErrorCode.BAD_NAME, "a name must be text")
    cleaned = name.strip()
    if not cleaned or len(cleaned) > NAME_LENGTH or not cleaned.isprintable():
        raise TableError(ErrorCode.BAD_NAME, f"a name has 1 to {NAME_LENGTH} printable characters")
    return cleaned


def _number(value: object, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TableError(ErrorCode.BAD_OPTION, f"{name} must be a number")
    if not low <= value <= high:
        raise TableError(ErrorCode.BAD_OPTION, f"{name} must be between {low} and {high}")
    return float(value)


@dataclass(frozen=True, slots=True)
class TableOptions:
    """A table's rules and timing, fixed when it is created."""

    rules: Rules
    turn_seconds: float = 30.0
    hook_seconds: float = 3.0
    hook_mode: HookMode = "fair"
    bot: str = "greedy"

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.rules.to_dict(),
            "turn_seconds": self.turn_seconds,
            "hook_seconds": self.hook_seconds,
            "hook_mode": self.hook_mode,
            "bot": self.bot,
        }

    @classmethod
    def from_request(cls, data: dict[str, Any], defaults: TableOptions) -> TableOptions:
        """Options from a create request, checked; missing fields take ``defaults``."""
        players = data.get("players", defaults.rules.players)
        if isinstance(players, bool) or not isinstance(players, int):
            raise TableError(ErrorCode.BAD_OPTION, "players must be an integer")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise TableError(
                ErrorCode.BAD_OPTION, f"players must be between {MIN_PLAYERS} and {MAX_PLAYERS}"
            )
        decks = data.get("decks")
        if decks is not None and (
            isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= MAX_DECKS
        ):
            raise TableError(ErrorCode.BAD_OPTION, f"decks must be 1 to {MAX_DECKS} or null")
        flags = {}
        for flag in ("hooking", "tribute"):
            value = data.get(flag, getattr(defaults.rules, flag))
            if not isinstance(value, bool):
                raise TableError(ErrorCode.BAD_OPTION, f"{flag} must be true or false")
            flags[flag] = value
        ladder = data.get("bomb_ladder", defaults.rules.bomb_ladder)
        if ladder not in ("listed", "size"):
            raise TableError(ErrorCode.BAD_OPTION, "bomb_ladder must be 'listed' or 'size'")
        try:
            rules = Rules(players=players, decks=decks, bomb_ladder=ladder, **flags)
        except ValueError as error:
            raise TableError(ErrorCode.BAD_OPTION, str(error)) from None
        mode = data.get("hook_mode", defaults.hook_mode)
        if mode not in ("fast", "fair"):
            raise TableError(ErrorCode.BAD_OPTION, "hook_mode must be 'fast' or 'fair'")
        bot = data.get("bot", defaults.bot)
        if not isinstance(bot, str) or bot not in available_bots():
            raise TableError(
                ErrorCode.BAD_OPTION, f"bot must be one of {', '.join(available_bots())}"
            )
        return cls(
            rules=rules,
            turn_seconds=_number(
                data.get("turn_seconds", defaults.turn_seconds), "turn_seconds", *TURN_SECONDS_RANGE
            ),
            hook_seconds=_number(
                data.get("hook_seconds", defaults.hook_seconds), "hook_seconds", *HOOK_SECONDS_RANGE
            ),
            hook_mode=mode,
            bot=bot,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableOptions:
        """Options as stored (trusted: written by :meth:`to_dict`)."""
        rules = Rules(
            players=data["players"],
            decks=data["decks"],
            hooking=data["hooking"],
            tribute=data["tribute"],
            bomb_ladder=data["bomb_ladder"],
        )
        return cls(
            rules,
            float(data["turn_seconds"]),
            float(data["hook_seconds"]),
            data["hook_mode"],
            data["bot"],
        )


@dataclass(slots=True)
class SeatState:
    seat: int
    name: str | None = None
    kind: str = "empty"  # "empty" | "human" | "bot"
    token_hash: str | None = None
    connections: int = 0
    away: bool = False

    def public(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "team": self.seat % 2,
            "name": self.name,
            "kind": self.kind,
            "online": self.kind == "bot" or self.connections > 0,
            "away": self.away,
        }

    def stored(self) -> StoredSeat:
        return StoredSeat(self.seat, self.name, self.kind, self.token_hash)


@dataclass(frozen=True, slots=True)
class SeatChanges:
    """What an update changes about whose connections are whose: seats whose token stopped
    working (their connections are told why, with an error code, and closed) and two seats
    whose occupants swapped (their connections now act for the other seat)."""

    revoked: dict[int, ErrorCode] = field(default_factory=dict)
    swapped: tuple[int, int] | None = None


#: An encoded update: version, public length, number of seats with a message of their own;
#: then per such seat: seat, length.
_UPDATE_HEAD = struct.Struct("!QIH")
_PRIVATE_HEAD = struct.Struct("!HI")


class Update:
    """One table version: the public message, encoded at once, and for each seat whose
    private part changed, that seat's message (the public one with its ``you`` spliced in),
    encoded the first time it is asked for: the mover's at once, the other seats' when they
    are sent, after the mover has been answered.

    Once encoded only bytes are kept, so a table's recent history costs little memory."""

    __slots__ = ("_you", "private", "public", "seat_changes", "v")

    def __init__(
        self,
        v: int,
        server_time: int,
        events: list[dict[str, Any]],
        state: dict[str, Any] | None,
        private: dict[int, dict[str, Any]],
        seat_changes: SeatChanges | None = None,
    ) -> None:
        self.v = v
        self.seat_changes = seat_changes
        encoded = orjson.dumps(
            {"type": "update", "v": v, "server_time": server_time, "events": events, "state": state}
        )
        # A slice is a right-sized copy: orjson's own buffer is several times larger and
        # would stay allocated for as long as the update is kept in the history.
        self.public = encoded[:-1] + b"}"
        self._you = private  # seat -> its ``you``, until encoded (the dict is the update's own)
        self.private: dict[int, bytes] = {}

    def encode(self) -> bytes:
        """The update as one value that crosses a process boundary (the broker): its public
        message and each seat's own, byte for byte as this process would send them."""
        for seat in tuple(self._you):
            self.message(seat)
        parts = [_UPDATE_HEAD.pack(self.v, len(self.public), len(self.private)), self.public]
        for seat, data in self.private.items():
            parts.append(_PRIVATE_HEAD.pack(seat, len(data)))
            parts.append(data)
        return b"".join(parts)

    @classmethod
    def decode(cls, data: bytes) -> Update:
        """The update :meth:`encode` made (raises ValueError on anything else)."""
        try:
            v, length, count = _UPDATE_HEAD.unpack_from(data)
            at = _UPDATE_HEAD.size
            update = cls.__new__(cls)
            update.v = v
            update.public = data[at : at + length]
            at += length
            update._you = {}
            update.private = {}
            for _ in range(count):
                seat, length = _PRIVATE_HEAD.unpack_from(data, at)
                at += _PRIVATE_HEAD.size
                update.private[seat] = data[at : at + length]
                at += length
        except struct.error as error:
            raise ValueError(f"not an encoded update ({error})") from None
        if at != len(data) or len(update.public) == 0:
            raise ValueError("not an encoded update (length)")
        return update

    def message(self, seat: int | None) -> bytes:
        """What a connection of ``seat`` (None: a spectator) is sent."""
        if seat is None:
            return self.public
        encoded = self.private.get(seat)
        if encoded is None:
            you = self._you.pop(seat, None)
            if you is None:
                return self.public
            head = memoryview(self.public)[:-1]  # the object without its closing brace
            encoded = b"".join((head, b',"you":', orjson.dumps(you), b"}"))
            self.private[seat] = encoded
        return encoded


@dataclass(frozen=True, slots=True)
class Ack:
    v: int
    move: str | None = None
    claim: bool = False
    #: A handoff's secret, for the connection that asked only (docs/protocol.md section 8).
    handoff: dict[str, Any] | None = None

    def to_dict(self, request_id: object) -> dict[str, Any]:
        body = {
            "type": "ack",
            "id": request_id,
            "v": self.v,
            "move": self.move,
            "claim": self.claim,
        }
        if self.handoff is not None:
            body["handoff"] = self.handoff
        return body


def ms(seconds: float) -> int:
    return int(seconds * 1000)
