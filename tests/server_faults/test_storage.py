"""A database that cannot be written: the server refuses moves instead of acknowledging them.

Both cases go through the real server and SQLite's own error path: a disk that is really full
(a tiny tmpfs, filled up) and a database file that is really read-only (for root, which
ignores file modes, the file is made immutable)."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .live import (
    Conn,
    LiveServer,
    acting,
    is_root,
    play_moves,
    running,
    seated_table,
    shedding_policy,
    table_summary,
)

STORAGE_CODE = "storage_error"
#: Tables without claim windows and with long turn timers: only the test's moves change them.
QUIET = {"hooking": False, "turn_seconds": 120}


@contextlib.contextmanager
def tiny_disk(size: str = "4m") -> Iterator[Path]:
    where = Path(tempfile.mkdtemp(prefix="414-disk-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
        where.rmdir()


def fill(disk: Path) -> Path:
    """Take every free byte of ``disk``; returns the filler file."""
    filler = disk / "filler"
    block = b"\0" * 65536
    with filler.open("wb", buffering=0) as out:
        for size in (len(block), 4096, 1):
            with contextlib.suppress(OSError):
                while True:
                    out.write(block[:size])
    return filler


async def _refused_then_recovered(
    server: LiveServer, conns: list[Conn], code: str, recover: object
) -> None:
    conn = acting(conns)
    you = conn.you
    assert you is not None
    move = shedding_policy(you["seat"], you, None)
    before = table_summary(server, code)["version"]
    counts = [len(c.messages) for c in conns]
    reply = await conn.request({"type": "move", "id": "kept?", "v": conn.version, "move": move})
    assert reply["type"] == "error", reply
    assert reply["code"] == STORAGE_CODE, reply
    assert reply["message"]
    await asyncio.sleep(0.3)
    # Nothing happened: no ack, no update to anybody, the same version and the same prompt.
    assert not any(m["type"] == "ack" and m.get("id") == "kept?" for m in conn.messages)
    for c, count in zip(conns, counts, strict=True):
        assert not any(m["type"] == "update" for m in c.messages[count:])
    assert table_summary(server, code)["version"] == before
    assert conn.you == you
    # The server keeps serving what needs no writing.
    assert (await conn.ask({"type": "ping", "id": 1}))[0]["type"] == "pong"
    if callable(recover):
        recover()
        reply = await conn.request({"type": "move", "id": "again", "v": conn.version, "move": move})
        assert reply["type"] == "ack", reply


@pytest.mark.skipif(not is_root(), reason="mounting a tmpfs needs root")
def test_full_disk_refuses_moves_and_recovers_when_space_returns(tmp_path: Path) -> None:
    with tiny_disk() as disk, running(LiveServer(disk / "t.db", tmp_path / "server.log")) as server:

        async def scenario() -> None:
            code, _, conns = await seated_table(server, **QUIET)
            await play_moves(conns, 6)
            filler = fill(disk)
            refused = httpx.post(f"{server.http}/api/tables", json={"name": "Late"}, timeout=10)
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == STORAGE_CODE
            await _refused_then_recovered(server, conns, code, filler.unlink)
            await play_moves(conns, 3)
            for c in conns:
                await c.close()

        asyncio.run(scenario())
        assert "Traceback" not in server.log_text()


def _make_read_only(path: Path) -> None:
    if is_root():  # root ignores file modes; the immutable flag binds root too
        subprocess.run(["chattr", "+i", str(path)], check=True)
    else:
        path.chmod(0o444)


def _make_writable(path: Path) -> None:
    if is_root():
        subprocess.run(["chattr", "-i", str(path)], check=False)
    path.chmod(0o644)


def test_read_only_database_starts_serves_and_refuses_moves(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    server = LiveServer(db, tmp_path / "server.log")
    with running(server):

        async def first_life() -> tuple[str, list[str]]:
            code, tokens, conns = await seated_table(server, **QUIET)
            await play_moves(conns, 4)
            for c in conns:
                await c.close()
            return code, tokens

        code, tokens = asyncio.run(first_life())
    _make_read_only(db)
    try:
        with running(server):

            async def second_life() -> None:
                conns = [await Conn.open(server.ws, code, token) for token in tokens]
                for c in conns:
                    assert c.messages[0]["type"] == "welcome"
                    assert c.you is not None
                await _refused_then_recovered(server, conns, code, None)
                refused = httpx.post(f"{server.http}/api/tables", json={"name": "X"}, timeout=10)
                assert refused.status_code == 503
                assert refused.json()["error"]["code"] == STORAGE_CODE
                for c in conns:
                    await c.close()

            asyncio.run(second_life())
    finally:
        _make_writable(db)
    assert "Traceback" not in server.log_text()
