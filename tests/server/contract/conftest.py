"""Every implementation of Storage (SQLite, PostgreSQL) behind one fixture, ``make_storage``:
the contract tests run once against each."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from fouronefour.server.storage import Storage
from fouronefour.server.storage.sqlite import GroupCommitStorage
from tests import sandbox

StorageFactory = Callable[[], Storage]


@pytest.fixture(scope="session")
def postgres_url(postgres: sandbox.LocalPostgres) -> str:
    """One database for the contract tests (each test uses codes of its own)."""
    return postgres.new_database()


@pytest.fixture(params=["sqlite", "postgres"])
def make_storage(request: pytest.FixtureRequest, tmp_path: Path) -> StorageFactory:
    """Storages over one place (a file, a database), not yet opened: a second one made
    reads what the first wrote, as a restarted server or another process would."""
    if request.param == "sqlite":
        path = str(tmp_path / "contract.db")
        return lambda: GroupCommitStorage(path)
    url = request.getfixturevalue("postgres_url")
    from fouronefour.server.storage.postgres import PostgresStorage

    return lambda: PostgresStorage(url)


@pytest.fixture
def code() -> Callable[[], str]:
    """Table codes no other test uses (the PostgreSQL database is shared)."""
    return lambda: uuid.uuid4().hex[:8].upper()
