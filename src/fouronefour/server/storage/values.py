"""What storage keeps and returns: stored tables, matches, chat, claims and analyses, the
changes written to them, and the one error type every implementation raises.

A table is its options, settings, seats, chat, pending handoffs, and per match the rules,
the seed and every decision; :meth:`fouronefour.Match.replay` rebuilds any position from
those. Beside them, each ended round's analysis (background/analyst.py): due from the change
that ended the round, stored once made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class StoredSeat:
    seat: int
    name: str | None
    kind: str  # "empty" | "human" | "bot"
    token_hash: str | None
    #: The player's profile (players/), if they came with one.
    profile: str | None = None


@dataclass(frozen=True, slots=True)
class StoredMatch:
    number: int
    seed: int
    rules: dict[str, Any]
    moves: list[str]
    over: bool


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """A finished match for the replay list; ``winning_team`` and ``rounds`` are None for a
    match finished before they were kept (read them from its replay)."""

    number: int
    moves: int
    winning_team: int | None
    rounds: int | None


@dataclass(frozen=True, slots=True)
class TableRow:
    """The columns of a table's row that change seldom: written whenever one of them does."""

    host_seat: int
    settings: dict[str, Any]
    #: The host paused the table.
    paused: bool = False
    #: The round whose end the table is pausing after (0: none).
    round_end: int = 0


@dataclass(frozen=True, slots=True)
class StoredChat:
    version: int
    match_number: int
    #: Decisions taken in the match when it was said.
    step: int
    at: int  # ms
    seat: int | None
    name: str
    spectator: bool
    text: str | None
    phrase: str | None


@dataclass(frozen=True, slots=True)
class StoredHandoff:
    seat: int
    #: None: the seat's pending handoff is void (deleted).
    secret_hash: str | None
    expires_at: int = 0  # ms


@dataclass(frozen=True, slots=True)
class StoredClaim:
    """A player's answer to the claim window open before move ``idx`` of match
    ``match_number``: acknowledged, so kept until the window closes (its moves are then)."""

    match_number: int
    idx: int
    seat: int
    answer: str


@dataclass(frozen=True, slots=True)
class StoredAnalysis:
    """The analysis of round ``round_number`` of match ``match_number`` (analysis.py): due
    while ``decisions`` and ``error`` are both None; ``decisions`` as
    :func:`fouronefour.analysis.analyse_round` returns them, ``error`` if it could not be
    made."""

    match_number: int
    round_number: int
    worlds: int | None = None
    decisions: list[dict[str, Any]] | None = None
    error: str | None = None

    @property
    def due(self) -> bool:
        return self.decisions is None and self.error is None


@dataclass(slots=True)
class StoredTable:
    code: str
    options: dict[str, Any]
    host_seat: int
    status: str
    version: int
    match_number: int
    seats: list[StoredSeat]
    match: StoredMatch | None = None  # the current (or last) match
    finished_matches: list[int] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    paused: bool = False
    round_end: int = 0
    #: The last chat lines, oldest first.
    chat: list[StoredChat] = field(default_factory=list)
    handoffs: list[StoredHandoff] = field(default_factory=list)
    #: Answers to the open claim window (and stale ones of windows since closed).
    claims: list[StoredClaim] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class NewMatch:
    number: int
    seed: int
    rules: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ChangeExtra:
    """What a change writes besides moves, seats and matches (rare: not on a move's path)."""

    row: TableRow | None = None
    chat: StoredChat | None = None
    handoffs: tuple[StoredHandoff, ...] = ()
    #: Answers given to the open claim window.
    claims: tuple[StoredClaim, ...] = ()
    #: A window closed: its answers are moves now, and those kept of windows before
    #: (match number, move index) go.
    claims_done: tuple[int, int] | None = None
    #: The match that ends with this change: (winning team, rounds played).
    result: tuple[int, int] | None = None
    #: The round that ends with this change is due to be analysed: (match, round number).
    analysis: tuple[int, int] | None = None
    #: The match that ends with this change, as the players' record of it (JSON: who sat
    #: where with which profile, and how they finished), kept until the players' store has
    #: recorded it (:meth:`~.interface.Storage.pending_records`).
    record: str | None = None


@dataclass(frozen=True, slots=True)
class Change:
    """Everything one table update writes, atomically."""

    code: str
    version: int
    status: str
    match_number: int
    seats: tuple[StoredSeat, ...] = ()
    new_match: NewMatch | None = None
    moves: tuple[str, ...] = ()
    first_move_index: int = 0
    match_over: bool = False
    #: The tables row (status, match number) changed; otherwise a change with moves only
    #: writes the moves, which carry the version (one statement: the common case is cheap).
    table_row: bool = True
    extra: ChangeExtra | None = None


class StorageError(Exception):
    """The storage could not do what was asked (unreachable, read-only, full): the call
    that raised it changed nothing. Every implementation raises this one type."""


class CodeTaken(StorageError):
    """A new table's code is another table's already."""
