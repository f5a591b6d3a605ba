"""The players' database of a test, on SQLite and on PostgreSQL: the ``make_store`` fixture
(tests/server/conftest.py offers it) that the players' contract and the rooms keeping their
tables beside the players' (clubs, friends, push, events) run their stores over."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from fouronefour.server.players.sqlite import sqlite_players
from fouronefour.server.players.sqlstore import SqlPlayerStore
from tests import sandbox

StoreFactory = Callable[[], SqlPlayerStore]


@pytest.fixture(params=["sqlite", "postgres"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """Stores over one fresh place (a file, a database), not yet opened."""
    if request.param == "sqlite":
        path = str(tmp_path / "players.db")
        yield lambda: sqlite_players(path)
        return
    postgres: sandbox.LocalPostgres = request.getfixturevalue("postgres")
    url = postgres.new_database()
    from fouronefour.server.players.postgres import postgres_players

    yield lambda: postgres_players(url)
