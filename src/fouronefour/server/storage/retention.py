"""What SQLite's and PostgreSQL's retention of old tables share (docs/hosting.md, "Old
tables"): the terms (how long a table and an archived match are kept, how often a pass
runs), what goes when a table is deleted or an archived match expires, and how archived
seats are read. Each database's module keeps only what differs: how it notes tables, takes
its turn and archives (:mod:`.sqlite_retention`, :mod:`.postgres_retention`).

The statements name their parameters ``:code`` and ``:number`` (SQLite's style);
:func:`positional` gives them PostgreSQL's ``$1``, ``$2``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import orjson

DAY = 86_400.0
#: Tables deleted per hand-off to the database (each in a transaction of its own), and
#: archived matches expired per call.
BATCH = 20

_UNFINISHED = "SELECT number FROM matches WHERE code = :code AND NOT over"

#: What goes with a deleted table, after its finished matches are archived: (the table the
#: statement deletes from, the statement). Its finished matches' moves, chat and analyses
#: stay with them.
TABLE_ROWS: tuple[tuple[str, str], ...] = (
    ("moves", f"DELETE FROM moves WHERE code = :code AND number IN ({_UNFINISHED})"),
    # lines said in the lobby or in no finished match
    (
        "chat",
        "DELETE FROM chat WHERE code = :code AND match_number NOT IN"
        " (SELECT number FROM matches WHERE code = :code AND over)",
    ),
    ("analyses", f"DELETE FROM analyses WHERE code = :code AND match_number IN ({_UNFINISHED})"),
    ("matches", "DELETE FROM matches WHERE code = :code AND NOT over"),
    *(
        (name, f"DELETE FROM {name} WHERE code = :code")
        for name in ("handoffs", "claims", "seats", "tables", "retention_seen")
    ),
)

#: What goes with an expired archived match.
MATCH_ROWS: tuple[tuple[str, str], ...] = (
    *(
        (name, f"DELETE FROM {name} WHERE code = :code AND number = :number")
        for name in ("moves", "matches", "archived_matches")
    ),
    *(
        (name, f"DELETE FROM {name} WHERE code = :code AND match_number = :number")
        for name in ("chat", "analyses")
    ),
)


def positional(statement: str) -> str:
    """``statement`` with PostgreSQL's parameters: ``$1`` for ``:code``, ``$2`` for
    ``:number``."""
    return statement.replace(":code", "$1").replace(":number", "$2")


def pass_interval(keep_days: float) -> float:
    """Seconds between passes: a tenth of the keeping time, at most an hour."""
    return min(3600.0, keep_days * DAY / 10)


class Terms:
    """How long tables and archived matches are kept, by ``clock`` (seconds)."""

    def __init__(
        self,
        keep_days: float,
        keep_replay_days: float = 0.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.keep_days = keep_days
        self.keep_replay_days = keep_replay_days
        self._clock = clock

    @property
    def interval(self) -> float:
        return pass_interval(self.keep_days)

    def table_cutoff(self, now: float) -> float:
        """A table noted before this (and unchanged since) is due."""
        return now - self.keep_days * DAY

    def replay_cutoff(self) -> float | None:
        """Archived matches from before this expire (None: kept for good)."""
        if self.keep_replay_days <= 0:
            return None
        return self._clock() - self.keep_replay_days * DAY


def archived_seats(rows: Iterable[Any]) -> str:
    """A table's seats (seat, name, kind rows) as its archived matches keep them."""
    return orjson.dumps(
        [{"seat": seat, "name": name, "kind": kind} for seat, name, kind in rows]
    ).decode()


def read_archive(
    rows: Iterable[Any],
) -> tuple[dict[int, list[dict[str, Any]]], str | None]:
    """A deleted table's archived matches, from (number, seats, invite hash) rows in order:
    number -> its seats (seat, name, kind); and its invite's hash if it was private."""
    matches: dict[int, list[dict[str, Any]]] = {}
    invite_hash = None
    for number, seats, hashed in rows:
        matches[number] = orjson.loads(seats)
        invite_hash = hashed  # (the same in every match of one table)
    return matches, invite_hash


def invite_hash_of(options: str) -> str | None:
    """A table's invite hash, from its stored options: a private table's replays stay
    private, so it goes with them."""
    hashed = orjson.loads(options).get("invite_hash")
    return hashed if isinstance(hashed, str) else None
