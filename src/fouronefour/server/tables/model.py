"""What a table is made of: options, seats, updates and acks (values the
:class:`~fouronefour.server.tables.table.Table` authority holds and sends)."""

from __future__ import annotations

import hashlib
import struct
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import orjson

from ...engine import Round, Rules
from ...engine.rules import MIN_PLAYERS, RULE_FIELDS
from ..background.botrunner import available_bots
from ..config import HOOK_SECONDS_RANGE as HOOK_SECONDS_RANGE
from ..config import TURN_SECONDS_RANGE as TURN_SECONDS_RANGE
from ..errors import ErrorCode, TableError
from ..storage import StoredSeat

HookMode = Literal["fast", "fair"]
#: The hook windows a table may have: fair (a window after every single) or fast.
HOOK_MODES: tuple[HookMode, ...] = ("fair", "fast")
Status = Literal["lobby", "playing", "finished"]

#: What an online table may seat and deal, within what the rules allow (engine.rules): the
#: limits of a table a server hosts, kept to what a screen shows and a process serves well.
ONLINE_MAX_PLAYERS = 12
ONLINE_MAX_DECKS = 8
NAME_LENGTH = 24
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
        "rated",
        "private",
    }
)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


#: The joiners that emoji sequences ("👨‍👩‍👧") and Indic conjuncts ("क्‍ष") need: format
#: characters, which ``str.isprintable`` refuses, but harmless alone.
JOINERS = frozenset("\u200c\u200d")


#: Letters and symbols by their Unicode class that show nothing: the Hangul fillers (a
#: line of U+3164 showed as an empty message) and the braille blank.
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
#: Combining marks on one character: Vietnamese and Indic text need two or three; "a" with
#: 199 marks ("Zalgo") draws over the lines around it.
MAX_MARKS = 4


def unshown(text: str) -> str | None:
    """Why ``text`` cannot be shown as one line as it is, or None: a line break, a control
    character, or a format character other than a joiner (the bidi overrides and isolates
    that make a line read as another: "\u202egnp.exe"); nothing visible (joiners, blank
    letters, spaces, marks only); more than :data:`MAX_MARKS` marks on one character."""
    marks = 0
    shown = False
    for char in text:
        kind = unicodedata.category(char)
        if kind[0] == "M":
            marks += 1
            if marks > MAX_MARKS:
                return f"at most {MAX_MARKS} combining marks on a character"
            continue
        marks = 0
        if char.isprintable() or char in JOINERS:
            # Letters, numbers, punctuation and symbols show; spaces, joiners, blanks not.
            shown = shown or (kind[0] in "LNPS" and char not in BLANKS)
            continue
        if char in "\r\n\u2028\u2029":
            return "no line breaks"
        kind = "control" if kind == "Cc" else "invisible or direction"
        return f"no {kind} characters (U+{ord(char):04X})"
    if not text.strip("".join(JOINERS)):
        return "visible characters, not joiners only"
    if not shown:
        return "visible characters, not blank ones only"
    return None


def check_name(name: object) -> str:
    if not isinstance(name, str):
        raise TableError(ErrorCode.BAD_NAME, "a name must be text")
    cleaned = name.strip()
    if not cleaned or len(cleaned) > NAME_LENGTH:
        raise TableError(ErrorCode.BAD_NAME, f"a name has 1 to {NAME_LENGTH} characters")
    refused = unshown(cleaned)
    if refused is not None:
        raise TableError(ErrorCode.BAD_NAME, f"a name has {refused}")
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
    #: A private table's invite, hashed (invites.py); None: open to anyone with the code.
    invite_hash: str | None = None
    #: Its matches change the players' ratings (docs/players.md); it plays the standard
    #: rules for its player count.
    rated: bool = False
    #: A club event's table: the event seats, starts and follows it, whatever its length
    #: (its rules' ``goal``, which is "match" for an event of whole matches).
    event: bool = False

    def to_dict(self) -> dict[str, Any]:
        """As stored: with the invite's hash (never sent: :meth:`public`)."""
        stored = self.public()
        del stored["private"]
        if self.invite_hash is not None:
            stored["invite_hash"] = self.invite_hash
        return stored

    def public(self) -> dict[str, Any]:
        """As every client sees them (TABLE.options)."""
        return {
            **self.rules.to_dict(),
            "turn_seconds": self.turn_seconds,
            "hook_seconds": self.hook_seconds,
            "hook_mode": self.hook_mode,
            "bot": self.bot,
            "rated": self.rated,
            "private": self.invite_hash is not None,
            # (only at an event's table, as ``goal``: other tables' options are as before)
            **({"event": True} if self.event else {}),
        }

    @classmethod
    def from_request(cls, data: dict[str, Any], defaults: TableOptions) -> TableOptions:
        """Options from a create request, checked; missing fields take ``defaults``."""
        # the defaults' decks are left out: unless the request names them, they follow its players
        if "goal" in data:  # (a club event's tables only: TableRegistry.create's ``goal``)
            raise TableError(ErrorCode.BAD_OPTION, "a table made here plays the whole match")
        rule_options = defaults.rules.to_dict()
        del rule_options["decks"]
        rule_options.update((key, data[key]) for key in RULE_FIELDS if key in data)
        try:
            rules = Rules.from_dict(rule_options)
        except ValueError as error:
            raise TableError(ErrorCode.BAD_OPTION, str(error)) from None
        if rules.players > ONLINE_MAX_PLAYERS:
            raise TableError(
                ErrorCode.BAD_OPTION,
                f"an online table seats {MIN_PLAYERS} to {ONLINE_MAX_PLAYERS} players, "
                f"not {rules.players}",
            )
        if rules.deck_count > ONLINE_MAX_DECKS:
            raise TableError(
                ErrorCode.BAD_OPTION,
                f"an online table deals 1 to {ONLINE_MAX_DECKS} decks, not {rules.deck_count}",
            )
        mode = data.get("hook_mode", defaults.hook_mode)
        if mode not in HOOK_MODES:
            raise TableError(ErrorCode.BAD_OPTION, "hook_mode must be 'fast' or 'fair'")
        bot = data.get("bot", defaults.bot)
        if not isinstance(bot, str) or bot not in available_bots():
            raise TableError(
                ErrorCode.BAD_OPTION, f"bot must be one of {', '.join(available_bots())}"
            )
        rated = data.get("rated", defaults.rated)
        if not isinstance(rated, bool):
            raise TableError(ErrorCode.BAD_OPTION, "rated must be true or false")
        if rated and rules != Rules(rules.players):
            raise TableError(
                ErrorCode.BAD_OPTION,
                f"a rated table plays the standard rules for {rules.players} players "
                "(docs/rules.md): leave the rules as they are, or make the table casual",
            )
        return cls(
            rules=rules,
            rated=rated,
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
        return cls(
            Rules.from_dict({key: data[key] for key in RULE_FIELDS if key in data}),
            float(data["turn_seconds"]),
            float(data["hook_seconds"]),
            data["hook_mode"],
            data["bot"],
            data.get("invite_hash"),
            bool(data.get("rated", False)),
            bool(data.get("event", False)),
        )


@dataclass(frozen=True, slots=True)
class SeatState:
    """One seat and who holds it. Frozen: each change is a new value, made by the small
    functions below (the table's steps say what happened; the table keeps the result)."""

    seat: int
    name: str | None = None
    kind: str = "empty"  # "empty" | "human" | "bot"
    token_hash: str | None = None
    connections: int = 0
    away: bool = False
    #: The player's profile (players/), if they came signed in; public, as a link to it.
    profile: str | None = None

    def public(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "team": self.seat % 2,
            "name": self.name,
            "kind": self.kind,
            "online": self.kind == "bot" or self.connections > 0,
            "away": self.away,
            "profile": self.profile,
        }

    def stored(self) -> StoredSeat:
        return StoredSeat(self.seat, self.name, self.kind, self.token_hash, self.profile)

    @classmethod
    def restored(cls, record: StoredSeat) -> SeatState:
        """The seat as :meth:`stored` wrote it (nobody connected yet)."""
        return cls(record.seat, record.name, record.kind, record.token_hash, profile=record.profile)

    @property
    def bot_controlled(self) -> bool:
        """The table's bot decides for the seat: a bot's, or an away player's."""
        return self.kind == "bot" or self.away

    def with_player(
        self, name: str | None, kind: str, token_hash: str | None, profile: str | None = None
    ) -> SeatState:
        """A new occupant: a player with their token's hash and profile, a bot, or nobody."""
        return replace(self, name=name, kind=kind, token_hash=token_hash, profile=profile)

    def with_bot(self) -> SeatState:
        return self.with_player(f"Bot {self.seat + 1}", "bot", None)

    def emptied(self) -> SeatState:
        return SeatState(self.seat)

    def handed_to(self, name: str, token_hash: str, profile: str | None = None) -> SeatState:
        """A handoff: a new player (no connection yet) keeps the seat's cards and turn."""
        return replace(self.with_player(name, "human", token_hash, profile), connections=0)

    def connected(self) -> tuple[SeatState, bool]:
        """A connection arrived; True if that changes what others see (online, or back)."""
        changed = self.connections == 0 or self.away
        return replace(self, connections=self.connections + 1, away=False), changed

    def disconnected(self) -> tuple[SeatState, bool]:
        """A connection left; True if the seat is now offline."""
        connections = max(0, self.connections - 1)
        return replace(self, connections=connections), connections == 0

    def with_away(self, away: bool) -> SeatState:
        return self if self.away == away else replace(self, away=away)

    def moved_to(self, seat: int) -> SeatState:
        """This seat's occupant (token, connections and all) in ``seat``; a bot takes that
        seat's bot name."""
        moved = replace(self, seat=seat)
        return moved.with_bot() if moved.kind == "bot" else moved


@dataclass(frozen=True, slots=True)
class SeatChanges:
    """What an update changes about whose connections are whose: seats whose token stopped
    working (their connections are told why, with an error code, and closed) and two seats
    whose occupants swapped (their connections now act for the other seat)."""

    revoked: dict[int, ErrorCode] = field(default_factory=dict)
    swapped: tuple[int, int] | None = None


#: An encoded update: version, public length, number of seats with a message of their own,
#: number of acks; then per such seat: seat, length; then per ack: connection id, length.
_UPDATE_HEAD = struct.Struct("!QIHH")
_PRIVATE_HEAD = struct.Struct("!HI")
_ACK_HEAD = struct.Struct("!QI")


class Update:
    """One table version: the public message, encoded at once, and for each seat whose
    private part changed, that seat's message (the public one with its ``you`` spliced in),
    encoded the first time it is asked for: the mover's at once, the other seats' when they
    are sent, after the mover has been answered.

    It also carries the acknowledgement of the request that made it, for the connection that
    sent the request (by connection id): that connection gets the ack inside the update, one
    message instead of two (docs/protocol.md section 3), wherever its socket is.

    Once encoded only bytes are kept, so a table's recent history costs little memory."""

    __slots__ = ("_encoded", "_you", "acks", "private", "public", "seat_changes", "v", "written")

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
        #: Connection id -> the encoded ack of its request that made this update.
        self.acks: dict[int, bytes] | None = None
        #: The change it follows is written (it came through the broker, published after).
        self.written = False
        self._encoded: bytes | None = None

    def attach_ack(self, connection: int, ack: bytes) -> bool:
        """Carry ``connection``'s ack; False if too late (the update has crossed to the other
        processes already): then the ack is sent on its own."""
        if self._encoded is not None:
            return False
        if self.acks is None:
            self.acks = {}
        self.acks[connection] = ack
        return True

    def encode(self) -> bytes:
        """The update as one value that crosses a process boundary (the broker): its public
        message, each seat's own and the acks it carries, byte for byte as this process would
        send them. No ack can be attached after."""
        if self._encoded is not None:
            return self._encoded
        for seat in tuple(self._you):
            self.message(seat)
        acks = self.acks or {}
        parts = [
            _UPDATE_HEAD.pack(self.v, len(self.public), len(self.private), len(acks)),
            self.public,
        ]
        for seat, data in self.private.items():
            parts.append(_PRIVATE_HEAD.pack(seat, len(data)))
            parts.append(data)
        for connection, data in acks.items():
            parts.append(_ACK_HEAD.pack(connection, len(data)))
            parts.append(data)
        self._encoded = b"".join(parts)
        return self._encoded

    @classmethod
    def decode(cls, data: bytes) -> Update:
        """The update :meth:`encode` made (raises ValueError on anything else)."""
        try:
            v, length, count, acks = _UPDATE_HEAD.unpack_from(data)
            at = _UPDATE_HEAD.size
            update = cls.__new__(cls)
            update.v = v
            update.seat_changes = None
            update.public = data[at : at + length]
            at += length
            update._you = {}
            update.private = {}
            for _ in range(count):
                seat, length = _PRIVATE_HEAD.unpack_from(data, at)
                at += _PRIVATE_HEAD.size
                update.private[seat] = data[at : at + length]
                at += length
            update.acks = {} if acks else None
            for _ in range(acks):
                connection, length = _ACK_HEAD.unpack_from(data, at)
                at += _ACK_HEAD.size
                update.acks[connection] = data[at : at + length]  # type: ignore[index]
                at += length
        except struct.error as error:
            raise ValueError(f"not an encoded update ({error})") from None
        if at != len(data) or len(update.public) == 0:
            raise ValueError("not an encoded update (length)")
        update.written = True
        update._encoded = data
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

    def message_for(self, seat: int | None, connection: int) -> bytes:
        """What connection ``connection`` of ``seat`` is sent: with its ack, if it carries
        one."""
        data = self.message(seat)
        acks = self.acks
        if acks is None:
            return data
        ack = acks.get(connection)
        if ack is None:
            return data
        return b"".join((memoryview(data)[:-1], b',"ack":', ack, b"}"))


@dataclass(frozen=True, slots=True)
class Ack:
    """A request carried out: the version it made (or the table's, if it made none)."""

    v: int
    move: str | None = None
    claim: bool = False
    #: A handoff's secret, for the connection that asked only (docs/protocol.md section 8).
    handoff: dict[str, Any] | None = None
    #: The update the request made, which carries this ack to the mover (None: it made no
    #: version, or it was a resend answered again: the ack goes on its own).
    update: Update | None = field(default=None, compare=False)

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


#: A seat's pending decision: (decision, legal moves).
Prompt = tuple[str, list[str]]


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """A round that ended and the pause after it (frozen: each change a new value)."""

    round_number: int
    #: The round as it ended (its last position; the engine's match is in the next round).
    ended: Round
    result: dict[str, Any]
    last_trick: list[dict[str, Any]]
    #: Who pays whom at the next round's start (the cards come with its ``round_start``).
    tributes: list[dict[str, int]]
    #: When the next round starts at the latest; None while the table is paused.
    until: float | None
    #: Seats whose players said ready (bots and away seats count as ready without it).
    ready: frozenset[int] = frozenset()

    def public(self, counted_ready: list[int]) -> dict[str, Any]:
        r = self.ended
        hands: list[str | None] = [
            r.hand(seat) if sum(r.hand_counts(seat)) else None for seat in range(r.rules.players)
        ]
        return {
            "round_number": self.round_number,
            "until": None if self.until is None else ms(self.until),
            "ready": counted_ready,
            "result": self.result,
            "last_trick": self.last_trick,
            "hands": hands,
            "tributes": self.tributes,
        }

    def with_ready(self, seat: int) -> RoundEnd:
        return replace(self, ready=self.ready | {seat})

    def unready(self, seat: int) -> RoundEnd:
        """``seat`` has a new player, who has not read the results yet."""
        return replace(self, ready=self.ready - {seat}) if seat in self.ready else self

    def held(self) -> RoundEnd:
        """The table is paused: the pause waits."""
        return replace(self, until=None)

    def running(self, now: float, seconds: float) -> RoundEnd:
        """The table goes on: a pause that waited runs again from its full length."""
        return self if self.until is not None else replace(self, until=now + seconds)
