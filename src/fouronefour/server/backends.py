"""Which storage and fan-out a server's settings name: SQLite and in-process by default,
PostgreSQL (``--db postgresql://...``) and Redis (``--broker redis://...``) for a cluster;
:func:`backends` hands them over as one :class:`Backends`, with the ownership of tables and
the retention of old ones that go with the storage.

The drivers of the latter come with the ``cluster`` extra and are imported only when named.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .config import ServerConfig
from .players.sqlstore import SqlPlayerStore
from .storage import OldTables, Ownership, Storage, StorageError, ownership_of
from .storage.sqlite import GroupCommitStorage, SqliteStorage
from .tables.fanout import Fanout, FanoutError, InProcessFanout

if TYPE_CHECKING:
    from .cluster.broker import Broker
    from .cluster.redisfanout import RedisFanout

log = logging.getLogger(__name__)

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_PASSWORD = re.compile(r"(\w+://[^:/@\s]*:)[^@\s]*@")
MISSING_DRIVERS = "the cluster drivers are not installed: pip install 'fouronefour[cluster]'"


def redacted(text: str) -> str:
    """``text`` with the password of any URL in it replaced (for output and logs)."""
    return _PASSWORD.sub(r"\1***@", text)


def is_postgres(db: str) -> bool:
    return db.startswith(POSTGRES_SCHEMES)


def check_settings(config: ServerConfig) -> str | None:
    """What is wrong with the storage and broker settings, or None."""
    if _SCHEME.match(config.db) and not is_postgres(config.db):
        return f"--db must be a SQLite file or a postgresql:// URL, not {redacted(config.db)!r}"
    if config.broker is not None and not config.broker.startswith(REDIS_SCHEMES):
        return f"--broker must be a redis:// URL, not {config.broker!r}"
    if config.broker is not None and not is_postgres(config.db):
        return "--broker needs --db postgresql://...: the processes of a cluster share it"
    return None


def make_storage(config: ServerConfig) -> Storage:
    if not is_postgres(config.db):
        return GroupCommitStorage(config.db)
    try:
        from .storage.postgres import PostgresStorage
    except ImportError:
        raise StorageError(MISSING_DRIVERS) from None
    return PostgresStorage(config.db)


def make_fanout(config: ServerConfig, storage: Storage) -> tuple[Fanout, RedisFanout | None]:
    """The fan-out; the same again if it is a cluster's (through Redis), else None."""
    if config.broker is None:
        return InProcessFanout(), None
    try:
        from .cluster.broker import Broker
        from .cluster.redisfanout import RedisFanout
    except ImportError:
        raise FanoutError(MISSING_DRIVERS) from None
    fanout = RedisFanout(Broker(config.broker, storage))
    return fanout, fanout


@dataclass(eq=False)
class Backends:
    """What a server keeps its tables in and tells their changes through: the storage,
    its ownership of tables, the fan-out (a cluster's, through Redis: ``cluster``) and,
    once open, the retention of old tables (None: a database in memory, or a read-only
    file, keeps them all)."""

    config: ServerConfig
    storage: Storage
    ownership: Ownership
    fanout: Fanout
    #: The fan-out again if it is a cluster's (its broker relays between the processes).
    cluster: RedisFanout | None
    #: The players' profiles, sessions and ratings, in the tables' database (players/).
    players: SqlPlayerStore
    retention: OldTables | None = None

    @property
    def broker(self) -> Broker | None:
        return None if self.cluster is None else self.cluster.broker

    async def open(self) -> None:
        """Connect the storage (its schema made) and the fan-out."""
        await self.storage.open()
        await self.fanout.open()
        try:
            await self.players.open()
        except StorageError as error:  # (a read-only file: the tables are still served)
            log.warning("profiles are unavailable: %s", error)

    def start_retention(self) -> OldTables | None:
        """Start the retention of old tables (once the storage is open: SQLite's looks at
        the tables its schema has); the storage's own kind."""
        self.retention = old_tables(self.storage, self.config)
        return self.retention

    async def close(self) -> None:
        """Close the retention, then write what is staged and close the rest."""
        if self.retention is not None:
            await self.retention.close()
        await self.players.close()
        await self.fanout.shutdown()
        await self.storage.shutdown()


def backends(
    config: ServerConfig, storage: Storage | None = None, fanout: Fanout | None = None
) -> Backends:
    """The backends ``config`` names (``storage`` and ``fanout``: those given instead)."""
    storage = storage or make_storage(config)
    cluster: RedisFanout | None = None
    if fanout is None:
        fanout, cluster = make_fanout(config, storage)
    players = player_store(storage)
    return Backends(config, storage, ownership_of(storage), fanout, cluster, players)


def player_store(storage: Storage) -> SqlPlayerStore:
    """The players' store in ``storage``'s own database: the same SQLite file, or the same
    PostgreSQL database (a storage of another kind, in tests: a database in memory)."""
    from .players.sqlite import sqlite_players

    if isinstance(storage, SqliteStorage):
        # (The tables' group commit checkpoints the whole file: one checkpointer is enough.)
        return sqlite_players(storage.path, checkpoints=not isinstance(storage, GroupCommitStorage))
    url = getattr(storage, "url", None)
    if isinstance(url, str) and is_postgres(url):
        from .players.postgres import postgres_players

        return postgres_players(url)
    return sqlite_players(":memory:")


def old_tables(storage: Storage, config: ServerConfig) -> OldTables | None:
    """The retention of old tables in ``storage``'s database (retention.py): SQLite's on a
    worker thread, or a cluster's PostgreSQL's (one pass at a time)."""
    if isinstance(storage, SqliteStorage):
        if storage.path == ":memory:":
            return None
        from .storage.sqlite_retention import Retention, ThreadedRetention

        try:
            return ThreadedRetention(
                Retention(storage.path, config.keep_days, config.keep_replay_days)
            )
        except sqlite3.Error as error:  # (a read-only file: nothing to delete anyway)
            log.warning("old tables are kept: %s", error)
            return None
    try:
        from .storage.postgres import PostgresStorage
        from .storage.postgres_retention import PostgresRetention
    except ImportError:  # (no drivers: no PostgreSQL storage either)
        return None
    if isinstance(storage, PostgresStorage):
        return PostgresRetention(storage.url, config.keep_days, config.keep_replay_days)
    return None


async def check(config: ServerConfig) -> list[tuple[bool, str]]:
    """Whether the database and the broker answer: (ok, what was found) for each."""
    found: list[tuple[bool, str]] = []
    if is_postgres(config.db):
        try:
            from .storage import postgres

            found.append((True, await postgres.check(config.db)))
        except ImportError:
            found.append((False, MISSING_DRIVERS))
        except StorageError as error:
            found.append((False, str(error)))
    else:
        problem = sqlite_problem(config.db)
        if problem is not None:
            found.append((False, problem))
        else:
            storage = GroupCommitStorage(config.db)
            try:
                writable = storage.writable()
            finally:
                storage.close()
            state = "writable" if writable else "read-only"
            found.append((writable, f"SQLite file {config.db} is {state}"))
    if config.broker is not None:
        try:
            from .cluster import broker

            found.append((True, await broker.check(config.broker)))
        except ImportError:
            found.append((False, MISSING_DRIVERS))
        except FanoutError as error:
            found.append((False, str(error)))
    return found


def sqlite_problem(path: str) -> str | None:
    """Why the SQLite file ``path`` cannot be opened (one line), or None. (A read-only one
    can: the server starts and refuses changes until it is writable.)"""
    if path == ":memory:":
        return None
    if os.path.isdir(path):
        return f"--db {path} is a directory: name a SQLite file"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"--db {path}: there is no directory {folder}"
    try:
        storage = GroupCommitStorage(path)
    except (sqlite3.Error, OSError) as error:
        return f"--db {path} cannot be opened as a SQLite database: {error}"
    storage.close()
    return None


async def usable(config: ServerConfig) -> str | None:
    """Why the server could not start on its database (one line), or None. A broker that
    does not answer is no reason to stay down: Redis keeps nothing that is not in the
    database, so the process serves its own tables, says so in one line (broker.py) and
    joins the cluster's relaying once Redis answers."""
    if not is_postgres(config.db):
        return sqlite_problem(config.db)
    return next((line for ok, line in await check(replace(config, broker=None)) if not ok), None)
