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
from typing import Any

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
    settle,
    shedding_policy,
    table_summary,
)

STORAGE_CODE = "storage_error"
#: Tables without claim windows and with long turn timers: only the test's moves change them.
QUIET = {"hooking": False, "turn_seconds": 120}
#: Moves that may still fit in the room SQLite's files hold when the disk fills up.
MAX_MOVES_IN_SLACK = 400


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


async def _refused(conn: Conn, body: dict[str, Any]) -> None:
    reply = await conn.request(body)
    assert reply["type"] == "error", reply
    assert reply["code"] == STORAGE_CODE, reply
    assert reply["message"]


async def _unanswered(conn: Conn, request_id: str, seconds: float) -> None:
    await asyncio.sleep(seconds)
    assert not any(m.get("id") == request_id for m in conn.messages if m["type"] == "ack")


def _next_change(conns: list[Conn], version: int, request_id: str) -> tuple[Conn, dict[str, Any]]:
    """The next change a player makes: a ready at a round's end, else the acting seat's move."""
    state = conns[0].state
    if state and state["round_end"]:
        for conn in conns:
            if conn.you is not None and conn.you["seat"] not in state["round_end"]["ready"]:
                return conn, {"type": "ready", "id": request_id}
    mover = acting(conns)
    you = mover.you
    assert you is not None
    move = shedding_policy(you["seat"], you, None)
    return mover, {"type": "move", "id": request_id, "v": version, "move": move}


@pytest.mark.skipif(not is_root(), reason="mounting a tmpfs needs root")
def test_full_disk_acknowledges_nothing_it_cannot_keep(tmp_path: Path) -> None:
    with tiny_disk() as disk, running(LiveServer(disk / "t.db", tmp_path / "server.log")) as server:

        async def scenario() -> None:
            code, _, conns = await seated_table(server, **QUIET)
            await play_moves(conns, 6)
            version = await settle(conns)
            counts = [len(c.messages) for c in conns]
            filler = fill(disk)
            # SQLite may still have room inside its own files (a WAL it writes over from the
            # start once copied back, free pages): changes are written and acknowledged until
            # one needs a new block. That one meets the full disk: not acknowledged, nothing
            # sent to anybody. It is a move, or a player's ready at a round's end.
            move: str | None = None
            for attempt in range(MAX_MOVES_IN_SLACK):
                # (At a person's pace: the socket's message limit closes a flood, and the
                # background passes' reads, which let SQLite start its WAL over, get their turn.)
                await asyncio.sleep(0.05)
                version = await settle(conns)
                request_id = f"full-{attempt}"
                mover, body = _next_change(conns, version, request_id)
                move = body.get("move")
                await mover.send(body)
                try:
                    await mover.wait_for(lambda m, r=request_id: m.get("id") == r, timeout=1.0)
                except TimeoutError:
                    break
                version = await settle(conns)
                counts = [len(c.messages) for c in conns]
            else:
                raise AssertionError(f"{MAX_MOVES_IN_SLACK} changes written on a full disk")
            await _unanswered(mover, request_id, 0.2)
            for c, count in zip(conns, counts, strict=True):
                assert not [m for m in c.messages[count:] if m["type"] in ("update", "ack")]
            # From then on every change is refused at once, with the storage code.
            for c in conns:
                await _refused(c, {"type": "move", "id": "next", "v": version, "move": "pass"})
            await _refused(conns[0], {"type": "play_again", "id": "again"})
            refused = httpx.post(f"{server.http}/api/tables", json={"name": "Late"}, timeout=10)
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == STORAGE_CODE
            # What needs no writing still works: pings, a spectator's snapshot.
            assert (await mover.ask({"type": "ping", "id": 1}))[0]["type"] == "pong"
            watcher = await Conn.open(server.ws, code)
            snapshot = next(m for m in watcher.messages if m["type"] == "snapshot")
            assert snapshot["v"] <= version + 1
            await _unanswered(mover, request_id, 0.2)
            # Space comes back: the refused change is written, then acknowledged; play goes on.
            filler.unlink()
            ack = await mover.wait_for(lambda m: m.get("id") == request_id, timeout=10)
            assert ack["type"] == "ack", ack
            if move is not None:
                assert ack["move"] == move and ack["v"] == version + 1
            await play_moves(conns, 3)
            for c in [*conns, watcher]:
                await c.close()
            assert table_summary(server, code)["version"] > version + 3

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
                version = await settle(conns)
                for c in conns:
                    body = {"type": "move", "id": "m", "v": version, "move": "pass"}
                    await _refused(c, body)
                mover = acting(conns)
                assert mover.you is not None
                move = shedding_policy(mover.you["seat"], mover.you, None)
                await _refused(mover, {"type": "move", "id": "x", "v": version, "move": move})
                await asyncio.sleep(0.3)
                assert await settle(conns) == version
                assert table_summary(server, code)["version"] == version
                refused = httpx.post(f"{server.http}/api/tables", json={"name": "X"}, timeout=10)
                assert refused.status_code == 503
                assert refused.json()["error"]["code"] == STORAGE_CODE
                for c in conns:
                    await c.close()

            asyncio.run(second_life())
    finally:
        _make_writable(db)
    assert "Traceback" not in server.log_text()
