"""What backends() hands a server: one object with the storage, its ownership of tables,
the fan-out, and the retention of old tables of the storage's own kind (backends.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fouronefour.server.backends import backends
from fouronefour.server.config import ServerConfig
from fouronefour.server.storage import Ownership
from fouronefour.server.storage.sqlite import GroupCommitStorage
from fouronefour.server.storage.sqlite_retention import ThreadedRetention
from fouronefour.server.tables.fanout import InProcessFanout
from tests import sandbox


def _retention_of(config: ServerConfig) -> object:
    async def opened() -> object:
        made = backends(config)
        await made.open()
        try:
            return made.start_retention()
        finally:
            await made.close()

    return asyncio.run(opened())


def test_a_sqlite_file_gets_its_ownership_and_its_threaded_retention(tmp_path: Path) -> None:
    config = ServerConfig(db=str(tmp_path / "tables.db"))
    made = backends(config)
    assert isinstance(made.storage, GroupCommitStorage)
    assert made.ownership is made.storage and isinstance(made.ownership, Ownership)
    assert isinstance(made.fanout, InProcessFanout) and made.cluster is None
    assert made.broker is None
    made.storage.close()
    assert isinstance(_retention_of(config), ThreadedRetention)


def test_a_database_in_memory_keeps_every_table() -> None:
    assert _retention_of(ServerConfig(db=":memory:")) is None


def test_postgres_gets_its_own_retention(postgres: sandbox.LocalPostgres) -> None:
    from fouronefour.server.storage.postgres_retention import PostgresRetention

    url = postgres.new_database()
    retention = _retention_of(ServerConfig(db=url))
    assert isinstance(retention, PostgresRetention) and retention.url == url
