"""A server killed with SIGKILL during play leaves no worker process behind: its analysis
and search-bot workers end within seconds (server/workers.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from fouronefour.server.background.workers import WATCH_SECONDS

from ..loopback import HTTP
from .live import FAST_TABLE, Conn, LiveServer, running

#: Seconds a worker may outlive its killed server.
GRACE = 5.0


def _stat(pid: int) -> list[str] | None:
    """/proc/<pid>/stat's fields from the state on (None: no such process)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def _children(parent: int) -> dict[int, str]:
    """The processes whose parent is ``parent``, with their command lines."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat(int(entry.name))
        if fields is not None and int(fields[1]) == parent:
            with contextlib.suppress(OSError):
                found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
    return {pid: cmd.decode(errors="replace") for pid, cmd in found.items()}


def _alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"  # (a zombie has ended: nobody reaped it)


def _nice(pid: int) -> int | None:
    fields = _stat(pid)
    return None if fields is None else int(fields[16])


def test_sigkill_leaves_no_analysis_or_bot_worker_running(tmp_path: Path) -> None:
    """Issue 27: after about 40 kills of ``serve`` during play, 46 workers were left with
    parent PID 1, some analysing at nice 19, the others blocked for ever on their queue."""
    server = LiveServer(
        tmp_path / "tables.db",
        tmp_path / "server.log",
        extra=("--analysis-processes", "2", "--bot-processes", "1"),
    )
    left: list[int] = []
    try:
        with running(server):
            assert server.process is not None
            pid = server.process.pid

            async def play() -> dict[int, str]:
                # One table of random bots whose rounds end (and are analysed); one of
                # search bots, which think in the bot processes. Each host times out.
                conns = []
                for bot in ("random", "search"):
                    created = HTTP.post(
                        f"{server.http}/api/tables", json={"name": "Host", **FAST_TABLE, "bot": bot}
                    ).json()
                    conn = await Conn.open(server.ws, created["code"], created["token"])
                    for step in ("fill_bots", "start"):
                        reply = await conn.request({"type": step, "id": step})
                        assert reply["type"] == "ack", reply
                    conns.append(conn)
                deadline = time.monotonic() + 120
                while True:
                    workers = {p: c for p, c in _children(pid).items() if "spawn_main" in c}
                    nice = {_nice(p) for p in workers}
                    if 19 in nice and 0 in nice:  # an analysis running and a bot worker
                        break
                    assert time.monotonic() < deadline, f"no workers: {_children(pid)}"
                    await asyncio.sleep(0.2)
                for conn in conns:
                    await conn.close()
                return _children(pid)

            children = asyncio.run(play())
            server.kill()
            left = list(children)
            deadline = time.monotonic() + GRACE
            while any(_alive(p) for p in left) and time.monotonic() < deadline:
                time.sleep(0.1)
            alive = {p: children[p] for p in left if _alive(p)}
            assert not alive, f"{len(alive)} of {len(children)} left running: {alive}"
    finally:
        for p in left:  # (only the processes this test's server started)
            if _alive(p):
                with contextlib.suppress(OSError):
                    os.kill(p, signal.SIGKILL)


#: A parent that starts a worker (platform made other than Linux: no prctl) and dies.
_ORPHAN = """
import os, sys, time
parent = os.getpid()
if os.fork() == 0:
    print(os.getpid(), flush=True)
    sys.platform = "darwin"
    from fouronefour.server.background.workers import worker_init
    worker_init(parent)
    time.sleep(60)
else:
    time.sleep(2.0)
    os._exit(0)
"""


def test_without_prctl_the_watchdog_ends_an_orphaned_worker() -> None:
    """The fallback where the kernel does not kill it: the worker's thread sees its parent
    gone. The run's output pipe closes only once the worker has exited too."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", _ORPHAN], capture_output=True, text=True, timeout=30
    )
    took = time.monotonic() - started
    worker = int(done.stdout.split()[0])
    assert took < 2.0 + 4 * WATCH_SECONDS + 2, took
    gone_by = time.monotonic() + 2  # (its pipe closes a moment before it is a zombie)
    while _alive(worker) and time.monotonic() < gone_by:
        time.sleep(0.02)
    assert not _alive(worker)
