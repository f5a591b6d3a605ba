"""A database the release before player profiles wrote (tests/server/releases/README.md)
opened by today's server in place, on SQLite and on PostgreSQL: its tables and replays as
they were, and the players' rooms added beside them (a first visit's guest profile)."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

import httpx
import pytest

from fouronefour.engine import Match, Rules
from fouronefour.server.config import ServerConfig
from tests import sandbox

from .conftest import ThreadServer

RELEASES = Path(__file__).parent / "releases"
SQLITE_DUMP = RELEASES / "before-profiles-sqlite.sql"
POSTGRES_DUMP = RELEASES / "before-profiles-postgres.sql"
#: The dumps' tables: the finished 2-player match, then the 6-seat lobby.
FINISHED = {"sqlite": "BRUAUK", "postgres": "EXW6EN"}
LOBBY = {"sqlite": "DXSBGJ", "postgres": "7WW8BG"}


def _dumped_moves(kind: str, code: str) -> list[str]:
    """The finished match's moves, in order, as the dump holds them."""
    if kind == "sqlite":
        pattern = rf"INSERT INTO \"moves\" VALUES\('{code}',1,(\d+),'([^']*)',\d+\);"
    else:
        pattern = rf"INSERT INTO public\.moves VALUES \('{code}', 1, (\d+), '([^']*)', \d+\);"
    dump = (SQLITE_DUMP if kind == "sqlite" else POSTGRES_DUMP).read_text()
    found = sorted((int(idx), move) for idx, move in re.findall(pattern, dump))
    assert [idx for idx, _ in found] == list(range(len(found)))
    return [move for _, move in found]


def _sqlite_database(tmp_path: Path) -> str:
    path = tmp_path / "release.db"
    with sqlite3.connect(path) as db:
        db.executescript(SQLITE_DUMP.read_text())
    return str(path)


def _postgres_database(postgres: sandbox.LocalPostgres) -> str:
    import asyncpg

    url = postgres.new_database()

    async def load() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(POSTGRES_DUMP.read_text())
        finally:
            await conn.close()

    asyncio.run(load())
    return url


@pytest.fixture(params=["sqlite", "postgres"])
def release(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """(which database, its location) holding what the release wrote."""
    if request.param == "sqlite":
        return "sqlite", _sqlite_database(tmp_path)
    return "postgres", _postgres_database(request.getfixturevalue("postgres"))


def test_a_database_of_the_release_before_profiles_opens_with_its_tables_and_replays(
    release: tuple[str, str],
) -> None:
    kind, db = release
    finished, lobby = FINISHED[kind], LOBBY[kind]
    moves = _dumped_moves(kind, finished)
    config = ServerConfig(db=db, bot_delay=0.0, bot_processes=0)
    for _opening in range(2):  # the steps up run once; the second opening finds them done
        with ThreadServer(config) as server, httpx.Client(base_url=server.url) as client:
            table = client.get(f"/api/tables/{finished}").json()
            assert (table["status"], table["match_number"]) == ("finished", 1)
            assert [seat["kind"] for seat in table["seats"]] == ["human", "bot"]
            listed = client.get(f"/api/tables/{finished}/replays").json()["matches"]
            assert [(m["match"], m["moves"]) for m in listed] == [(1, len(moves))]
            replay = client.get(f"/api/tables/{finished}/replays/1").json()
            assert [step["move"] for step in replay["steps"]] == moves
            match = Match.replay(Rules.from_dict(replay["rules"]), replay["seed"], moves)
            assert match.is_over and replay["winning_team"] == match.winning_team
            waiting = client.get(f"/api/tables/{lobby}").json()
            assert waiting["status"] == "lobby" and len(waiting["seats"]) == 6
            assert waiting["seats"][0]["name"] == "Lobby Lu"
            # The players' rooms were added beside the tables: a first visit is a guest.
            me = client.get("/api/me")
            assert me.status_code == 201 and me.json()["profile"]["claimed"] is False
