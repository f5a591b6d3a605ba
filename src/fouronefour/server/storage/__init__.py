"""Where tables live between restarts: the interface and its value types (this package's
names), SQLite (:mod:`.sqlite`, the default), PostgreSQL (:mod:`.postgres`, a cluster's), and
their retention of old tables."""

from .interface import (
    DurableWaiters,
    OldTables,
    Ownership,
    Storage,
    WrittenLater,
    ownership_of,
    wait_durable,
    written_unless_failing,
)
from .values import (
    Change,
    ChangeExtra,
    CodeTaken,
    MatchSummary,
    NewMatch,
    StorageError,
    StoredAnalysis,
    StoredChat,
    StoredClaim,
    StoredHandoff,
    StoredMatch,
    StoredSeat,
    StoredTable,
    TableRow,
)

__all__ = [
    "Change",
    "ChangeExtra",
    "CodeTaken",
    "DurableWaiters",
    "MatchSummary",
    "NewMatch",
    "OldTables",
    "Ownership",
    "Storage",
    "StorageError",
    "StoredAnalysis",
    "StoredChat",
    "StoredClaim",
    "StoredHandoff",
    "StoredMatch",
    "StoredSeat",
    "StoredTable",
    "TableRow",
    "WrittenLater",
    "ownership_of",
    "wait_durable",
    "written_unless_failing",
]
