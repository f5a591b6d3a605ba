"""``fouronefour admin`` as an operator runs it, on the server's own SQLite file."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from fouronefour.cli import main
from fouronefour.server.players.passwords import Passwords
from fouronefour.server.players.service import Players
from fouronefour.server.players.sqlite import sqlite_players
from fouronefour.server.players.values import MatchRecord, MatchSeat


def seed_players(db: str) -> tuple[str, str]:
    """A claimed profile with a session and a rated match, and a guest: their ids."""

    async def scenario() -> tuple[str, str]:
        players = Players(sqlite_players(db), passwords=Passwords(1, 8, 1))
        await players.store.open()
        try:
            ann = await players.start_guest(None, name="Ann Lee")
            current = await players.current(ann.token)
            assert current is not None
            await players.claim(current, "annl", "old password 1", None)
            guest = (await players.start_guest(None, name="Bo")).profile
            seats = tuple(
                MatchSeat(s, s % 2, f"P{s}", 1 if s % 2 == 0 else 2,
                          profile_id=ann.profile.id if s == 0 else None,
                          bot_level=None if s == 0 else "strong")
                for s in range(4)
            )  # fmt: skip
            await players.record_match(MatchRecord("T1", 1, 5, True, seats, 3))
            return ann.profile.id, guest.id
        finally:
            await players.store.close()

    return asyncio.run(scenario())


def test_find_reset_delete_and_recompute(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "fouronefour.db")
    ann, guest = seed_players(db)
    assert main(["admin", "--db", db, "find", "ann"]) == 0
    out = capsys.readouterr().out
    assert ann in out and "annl" in out and "Ann Lee" in out and guest not in out
    assert main(["admin", "--db", db, "find", "zed"]) == 1
    assert "no player matches 'zed'" in capsys.readouterr().out

    assert main(["admin", "--db", db, "reset-password", guest]) == 1
    assert "guest" in capsys.readouterr().err
    assert main(["admin", "--db", db, "reset-password", "ANNL"]) == 0
    out = capsys.readouterr().out
    password = re.search(r"new password (\S+)", out)
    assert password is not None and "1 session(s) ended" in out

    async def sign_in(secret: str) -> bool:
        players = Players(sqlite_players(db))
        await players.store.open()
        try:
            credentials = await players.store.credentials("annl")
            assert credentials is not None
            return players.passwords.verify(credentials.password_hash, secret)
        finally:
            await players.store.close()

    assert asyncio.run(sign_in(password.group(1)))
    assert not asyncio.run(sign_in("old password 1"))

    assert main(["admin", "--db", db, "recompute-ratings"]) == 0
    assert "1 rated match(es)" in capsys.readouterr().out

    assert main(["admin", "--db", db, "delete", ann]) == 1  # (without --yes: nothing)
    assert "add --yes" in capsys.readouterr().out
    assert main(["admin", "--db", db, "find", ann]) == 0
    capsys.readouterr()
    assert main(["admin", "--db", db, "delete", ann, "--yes"]) == 0
    assert "former player" in capsys.readouterr().out
    assert main(["admin", "--db", db, "find", ann]) == 1
    assert main(["admin", "--db", db, "delete", "annl", "--yes"]) == 1


def test_a_database_that_cannot_be_opened_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["admin", "--db", str(tmp_path), "find", "x"]) == 2  # (a folder)
    err = capsys.readouterr().err
    assert err.startswith("fouronefour admin: no database at") and err[-1] == "\n"
    missing = tmp_path / "typo.db"
    assert main(["admin", "--db", str(missing), "find", "x"]) == 2
    assert not missing.exists()  # (a mistyped path makes no database)
    capsys.readouterr()
    (tmp_path / "not.db").write_text("not a database")
    assert main(["admin", "--db", str(tmp_path / "not.db"), "find", "x"]) == 2
    assert capsys.readouterr().err.startswith("fouronefour admin: cannot use the database")
    assert main(["admin", "--db", str(tmp_path / "a.db"), "find", "x", "--limit", "0"]) == 2
