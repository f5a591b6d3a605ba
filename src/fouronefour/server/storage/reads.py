"""The reads that rebuild a stored table, shared by SQLite and PostgreSQL: the same queries
(in PostgreSQL's notation) and the same rule for a table's version."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from .values import StoredChat, StoredClaim, StoredHandoff, StoredSeat, StoredTable

RECENT_CHAT = 50
CHAT_COLUMNS = "version, match_number, step, at, seat, name, spectator, text, phrase"
#: A table's own row, as both databases read it (then :data:`TABLE_READS` and
#: :func:`stored_table`).
TABLE_COLUMNS = (
    "SELECT code, options, host_seat, status, version, match_number, settings, paused,"
    " round_end FROM tables"
)


@dataclass(frozen=True, slots=True)
class TableReads:
    """The reads that rebuild a stored table besides its row, each taking the table's code
    (``chat`` also how many lines), in PostgreSQL's notation (``$1``);
    :func:`sqlite_query` gives SQLite's."""

    seats: str = (
        "SELECT seat, name, kind, token_hash, profile FROM seats WHERE code = $1 ORDER BY seat"
    )
    finished: str = "SELECT number FROM matches WHERE code = $1 AND over ORDER BY number"
    moved: str = "SELECT MAX(version) FROM moves WHERE code = $1"
    chat: str = f"SELECT {CHAT_COLUMNS} FROM chat WHERE code = $1 ORDER BY version DESC LIMIT $2"
    claims: str = "SELECT match_number, idx, seat, answer FROM claims WHERE code = $1 ORDER BY seat"
    handoffs: str = (
        "SELECT seat, secret_hash, expires_at FROM handoffs WHERE code = $1 ORDER BY seat"
    )


TABLE_READS = TableReads()


def sqlite_query(query: str) -> str:
    """A query in PostgreSQL's notation with SQLite's parameters (``$1`` becomes ``?``)."""
    return re.sub(r"\$\d+", "?", query)


def chat_line(row: Sequence[Any]) -> StoredChat:
    version, match_number, step, at, seat, name, spectator, text, phrase = row
    return StoredChat(version, match_number, step, at, seat, name, bool(spectator), text, phrase)


def stored_table(
    row: Sequence[Any],
    seats: Iterable[Sequence[Any]],
    finished: Iterable[Sequence[Any]],
    moved: int | None,
    newest_chat: Iterable[Sequence[Any]],
    claims: Iterable[Sequence[Any]],
    handoffs: Iterable[Sequence[Any]],
) -> StoredTable:
    """A table from its row (:data:`TABLE_COLUMNS`) and what :data:`TABLE_READS` read of
    it (its match is read apart). Its version is the last a change gave it: the row's, or a
    later move's or chat line's (those are written without the row)."""
    code, options, host_seat, status, version, match_number, settings, paused, round_end = row
    chat = [chat_line(line) for line in newest_chat]
    chat.reverse()
    return StoredTable(
        code,
        orjson.loads(options),
        host_seat,
        status,
        max(version, moved or 0, chat[-1].version if chat else 0),
        match_number,
        [StoredSeat(*seat) for seat in seats],
        None,
        [number for (number,) in finished],
        orjson.loads(settings),
        bool(paused),
        round_end,
        chat,
        [StoredHandoff(*handoff) for handoff in handoffs],
        [StoredClaim(*claim) for claim in claims],
    )
