"""Chat and quick phrases at a table (docs/protocol.md section 3, "Chat").

A line is a table change like a move, a pure step (:func:`said`): checked, written, then
sent to every connection as a ``chat`` event, kept for snapshots and replays. Each speaker
has a token bucket (a seat: all its player's connections together; a spectator: its
connection), and spectators together have one more per table, so that a crowd of watchers
cannot drown the players.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ErrorCode, TableError
from ..ratelimit import TokenBucket
from ..storage import ChangeExtra, StoredChat
from ..storage.reads import RECENT_CHAT
from .model import Ack, ms, unshown
from .state import Step, TableState

if TYPE_CHECKING:
    from .core import TableCore as Table

#: Quick phrases and emotes: keys the clients translate (docs/protocol.md, /api/config).
PHRASES = (
    "good_luck",
    "well_played",
    "thanks",
    "hurry_up",
    "oops",
    "wow",
    "sorry",
    "good_game",
    "emote_smile",
    "emote_laugh",
    "emote_clap",
    "emote_think",
    "emote_sad",
    "emote_angry",
)
_PHRASES = frozenset(PHRASES)
CHAT_LENGTH = 200
#: Lines per speaker: a burst of ``CHAT_LINES``, then one every ``CHAT_SECONDS / CHAT_LINES``.
CHAT_LINES = 5
CHAT_SECONDS = 10.0
#: Lines of all spectators of a table together, in ``CHAT_SECONDS``.
SPECTATOR_LINES = 10


class Speaker:
    """A spectator connection's name and chat bucket (a seat's live in its table's chat)."""

    __slots__ = ("bucket", "name")

    def __init__(self, name: str, now: float) -> None:
        self.name = name
        self.bucket = TokenBucket(CHAT_LINES / CHAT_SECONDS, CHAT_LINES, now)


def chat_event(line: StoredChat) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "chat",
        "seat": line.seat,
        "name": line.name,
        "spectator": line.spectator,
    }
    if line.phrase is not None:
        event["phrase"] = line.phrase
    else:
        event["text"] = line.text
    event["at"] = line.at
    return event


def check_line(data: dict[str, Any]) -> tuple[str | None, str | None]:
    """(text, phrase) of a chat message, checked (``bad_message``)."""
    text, phrase = data.get("text"), data.get("phrase")
    if (text is None) == (phrase is None):
        raise TableError(ErrorCode.BAD_MESSAGE, "a chat line has either text or a phrase")
    if phrase is not None:
        if not isinstance(phrase, str) or phrase not in _PHRASES:
            raise TableError(ErrorCode.BAD_MESSAGE, f"phrase must be one of {', '.join(PHRASES)}")
        return None, phrase
    if not isinstance(text, str):
        raise TableError(ErrorCode.BAD_MESSAGE, "chat text must be text")
    cleaned = text.strip()
    if not cleaned or len(cleaned) > CHAT_LENGTH:
        raise TableError(
            ErrorCode.BAD_MESSAGE,
            f"chat text has 1 to {CHAT_LENGTH} characters, not {len(cleaned)}",
        )
    refused = unshown(cleaned)
    if refused is not None:
        raise TableError(ErrorCode.BAD_MESSAGE, f"chat text has {refused}")
    return cleaned, None


def speaker_name(state: TableState, seat: int | None, spectator: Speaker | None) -> str:
    """The name a line of ``seat``'s player, or of ``spectator`` (seat None), goes under, if
    they may chat here."""
    if seat is not None:
        return state.seats[seat].name or f"Seat {seat + 1}"
    if spectator is None:  # a connection whose seat was just taken from it
        raise TableError(ErrorCode.NOT_SEATED, "this connection no longer has a seat")
    if not state.settings.spectator_chat:
        raise TableError(ErrorCode.CHAT_CLOSED, "spectators may not chat at this table")
    return spectator.name


def said(
    state: TableState, seat: int | None, name: str, text: str | None, phrase: str | None
) -> Step:
    """A line (``check_line``'s) said at ``state.now``: a ``chat`` event, written."""
    line = StoredChat(
        state.version + 1,
        state.match_number,
        state.move_count,
        ms(state.now),
        seat,
        name,
        seat is None,
        text,
        phrase,
    )
    return Step(state, (chat_event(line),), extra=ChangeExtra(chat=line))


@dataclass(slots=True)
class _Limits:
    seats: dict[int, TokenBucket]
    spectators: TokenBucket


class TableChat:
    """The chat of one table: its last lines (for snapshots) and its speakers' limits."""

    __slots__ = ("_limits", "_table", "recent")

    def __init__(self, table: Table, recent: list[StoredChat]) -> None:
        self._table = table
        self.recent: deque[dict[str, Any]] = deque(
            (chat_event(line) for line in recent), maxlen=RECENT_CHAT
        )
        now = table.scheduler.now()
        self._limits = _Limits(
            {}, TokenBucket(SPECTATOR_LINES / CHAT_SECONDS, SPECTATOR_LINES, now)
        )

    def say(self, seat: int | None, spectator: Speaker | None, data: dict[str, Any]) -> Ack:
        """A line from ``seat``'s player, or from ``spectator`` (seat None)."""
        table = self._table
        table.check_writable()
        text, phrase = check_line(data)
        state = table.state()
        name = speaker_name(state, seat, spectator)
        self._take_turn(seat, spectator, state.now)
        step = said(state, seat, name, text, phrase)
        self.recent.extend(step.events)
        table.take(step)
        return Ack(table.version)

    def _take_turn(self, seat: int | None, spectator: Speaker | None, now: float) -> None:
        """Count a line against its speaker's limits, or refuse it (``rate_limited``)."""
        if seat is None:
            assert spectator is not None
            buckets = [spectator.bucket, self._limits.spectators]
        else:
            bucket = self._limits.seats.get(seat)
            if bucket is None:
                bucket = self._limits.seats[seat] = TokenBucket(
                    CHAT_LINES / CHAT_SECONDS, CHAT_LINES, now
                )
            buckets = [bucket]
        wait = max(b.wait(now) for b in buckets)
        if wait > 0:
            raise TableError(
                ErrorCode.RATE_LIMITED,
                f"too many chat lines: try again in {wait:.1f} s",
                {"retry_after_ms": max(1, int(wait * 1000 + 0.999))},
            )
        for b in buckets:
            b.take(now)

    def forget_seat(self, seat: int) -> None:
        """A new player has the seat: they start with a fresh limit."""
        self._limits.seats.pop(seat, None)
