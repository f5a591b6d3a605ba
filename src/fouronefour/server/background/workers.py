"""Worker processes (analysis, search bots) that end with their server, however it ends.

A server stopped normally stops its pools; one killed (SIGKILL, the out-of-memory killer)
runs no code at all. Its ProcessPoolExecutor workers then live on with parent PID 1: one
busy analysing goes on for seconds or minutes, and an idle one waits for ever on its call
queue, since every worker holds the queue's write end itself and so never reads EOF (after
40 kills of a server, 46 were left). So each worker watches its parent itself:

- on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the worker the moment its
  parent goes, busy or blocked, with nothing to poll. (The signal follows the thread that
  started the worker, not the process: the pools are only ever grown from the event loop's
  thread, which lives as long as the server.)
- everywhere, a daemon thread that checks every :data:`WATCH_SECONDS` whether the parent
  PID changed (the worker was re-parented) and then exits: the fallback where there is no
  prctl (macOS) or it failed, and for the race of a parent that died before the prctl.

A pipe the workers read for EOF would need a file descriptor passed to each spawned worker
and a thread anyway; the parent PID needs neither.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time

#: How often a worker's watchdog thread looks at its parent (the fallback to prctl).
WATCH_SECONDS = 0.5
#: linux/prctl.h
_PR_SET_PDEATHSIG = 1


def worker_init(parent: int, niceness: int = 0) -> None:
    """The initializer of every worker process: end with process ``parent`` (the server,
    ``os.getpid()`` where the pool is made), and be ``niceness`` nicer."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it died before the prctl could see it
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="parent-watch", daemon=True).start()
    if niceness:
        os.nice(niceness)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(1)  # no cleanup: the server that would want the result is gone
