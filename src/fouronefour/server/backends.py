"""Which storage and fan-out a server's settings name: SQLite and in-process by default,
PostgreSQL (``--db postgresql://...``) and Redis (``--broker redis://...``) for a cluster.

The drivers of the latter come with the ``cluster`` extra and are imported only when named.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .config import ServerConfig
from .fanout import Fanout, FanoutError, InProcessFanout
from .storage import GroupCommitStorage, Storage, StorageError

if TYPE_CHECKING:
    from .redisfanout import RedisFanout

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
_PASSWORD = re.compile(r"(\w+://[^:/@\s]*:)[^@\s]*@")
MISSING_DRIVERS = "the cluster drivers are not installed: pip install 'fouronefour[cluster]'"


def redacted(text: str) -> str:
    """``text`` with the password of any URL in it replaced (for output and logs)."""
    return _PASSWORD.sub(r"\1***@", text)


def is_postgres(db: str) -> bool:
    return db.startswith(POSTGRES_SCHEMES)


def check_settings(config: ServerConfig) -> str | None:
    """What is wrong with the storage and broker settings, or None."""
    if config.broker is not None and not config.broker.startswith(REDIS_SCHEMES):
        return f"--broker must be a redis:// URL, not {config.broker!r}"
    if config.broker is not None and not is_postgres(config.db):
        return "--broker needs --db postgresql://...: the processes of a cluster share it"
    return None


def make_storage(config: ServerConfig) -> Storage:
    if not is_postgres(config.db):
        return GroupCommitStorage(config.db)
    try:
        from .postgres import PostgresStorage
    except ImportError:
        raise StorageError(MISSING_DRIVERS) from None
    return PostgresStorage(config.db)


def make_fanout(config: ServerConfig, storage: Storage) -> tuple[Fanout, RedisFanout | None]:
    """The fan-out; the same again if it is a cluster's (through Redis), else None."""
    if config.broker is None:
        return InProcessFanout(), None
    try:
        from .broker import Broker
        from .redisfanout import RedisFanout
    except ImportError:
        raise FanoutError(MISSING_DRIVERS) from None
    fanout = RedisFanout(Broker(config.broker, storage))
    return fanout, fanout


async def check(config: ServerConfig) -> list[tuple[bool, str]]:
    """Whether the database and the broker answer: (ok, what was found) for each."""
    found: list[tuple[bool, str]] = []
    if is_postgres(config.db):
        try:
            from . import postgres

            found.append((True, await postgres.check(config.db)))
        except ImportError:
            found.append((False, MISSING_DRIVERS))
        except StorageError as error:
            found.append((False, str(error)))
    else:
        storage = GroupCommitStorage(config.db)
        try:
            writable = storage.writable()
        finally:
            storage.close()
        found.append(
            (writable, f"SQLite file {config.db} is {'writable' if writable else 'read-only'}")
        )
    if config.broker is not None:
        try:
            from . import broker

            found.append((True, await broker.check(config.broker)))
        except ImportError:
            found.append((False, MISSING_DRIVERS))
        except FanoutError as error:
            found.append((False, str(error)))
    return found
