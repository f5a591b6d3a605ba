"""Bot decisions off the event loop.

A Table asks a :class:`BotRunner` for a move and gets it back later through a callback on
the table's own thread. The default runs bots in a worker pool (threads, or processes for
slow bots), so a search bot never holds up other tables' messages.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ... import bots
from ...bots.levels import LEVELS
from .workers import worker_init

log = logging.getLogger(__name__)

#: The bot a Hint asks, and its stand-in while it is not installed.
HINT_BOT = "greedy"
FALLBACK_BOT = "random"

_instances: dict[str, bots.Bot] = {}


def available_bots() -> list[str]:
    return bots.names()


def resolve_bot(name: str) -> str:
    """``name`` if that bot is installed, else the random bot."""
    return name if name in bots.names() else FALLBACK_BOT


def decide(bot_name: str, view: dict[str, Any], legal_moves: Sequence[str], seed: int) -> str:
    """One bot decision: a move from ``legal_moves`` (a random one if the bot fails)."""
    rng = random.Random(seed)
    try:
        bot = _instances.get(bot_name)
        if bot is None:
            bot = _instances[bot_name] = bots.get(resolve_bot(bot_name))
        move = bot.choose(view, legal_moves, rng)
    except Exception:  # a broken bot must not stall a table: fall back to a legal move
        log.exception("bot %s failed; playing a random legal move", bot_name)
        return legal_moves[rng.randrange(len(legal_moves))]
    if move not in legal_moves:
        log.warning("bot %s chose %r, not a legal move; playing a random one", bot_name, move)
        return legal_moves[rng.randrange(len(legal_moves))]
    return move


class BotRunner(Protocol):
    def run(
        self,
        bot_name: str,
        view: dict[str, Any],
        legal_moves: list[str],
        seed: int,
        done: Callable[[str], None],
    ) -> None:
        """Decide in the background; call ``done(move)`` later on the table's thread."""
        ...

    def close(self) -> None: ...


#: The level a new table's bots play unless the host picks another (bots.levels).
DEFAULT_LEVEL = "strong"

#: Bots cheap enough to run in a thread: they never hold the GIL for long (and the levels
#: that play one of them).
CHEAP_BOTS = frozenset({"random", "greedy", "learned"})
CHEAP_BOTS |= {level.name for level in LEVELS if level.bot in CHEAP_BOTS}


class ExecutorBotRunner:
    """Cheap bots in a thread pool; the others (search) in ``processes`` spawned worker
    processes, created on first use, so a long think never holds the server's GIL."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, processes: int = 1, threads: int = 2
    ) -> None:
        self._loop = loop
        self._threads = concurrent.futures.ThreadPoolExecutor(threads, "bot")
        self._process_count = processes
        self._processes: concurrent.futures.ProcessPoolExecutor | None = None
        self._closed = False

    def _pool_for(self, bot_name: str) -> concurrent.futures.Executor:
        if bot_name in CHEAP_BOTS or self._process_count <= 0:
            return self._threads
        if self._processes is None:
            # They end with the server, even one killed with SIGKILL (workers.py).
            self._processes = concurrent.futures.ProcessPoolExecutor(
                self._process_count,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=worker_init,
                initargs=(os.getpid(),),
            )
        return self._processes

    def run(
        self,
        bot_name: str,
        view: dict[str, Any],
        legal_moves: list[str],
        seed: int,
        done: Callable[[str], None],
    ) -> None:
        if self._closed:
            return  # the server is stopping: its tables change nothing more
        future = self._loop.run_in_executor(
            self._pool_for(bot_name), decide, bot_name, view, legal_moves, seed
        )

        def finished(f: asyncio.Future[str]) -> None:
            if f.cancelled():
                return
            error = f.exception()
            if error is not None:
                log.error("bot worker failed: %r", error)
                done(legal_moves[random.Random(seed).randrange(len(legal_moves))])
                return
            done(f.result())

        future.add_done_callback(finished)

    def close(self) -> None:
        self._closed = True
        self._threads.shutdown(wait=False, cancel_futures=True)
        if self._processes is not None:
            self._processes.shutdown(wait=False, cancel_futures=True)


class InlineBotRunner:
    """Decides at once on the calling thread and reports through the scheduler, so the
    result arrives like a pool's would: later, not inside the call that asked."""

    def __init__(self, call_soon: Callable[[Callable[[], None]], object]) -> None:
        self._call_soon = call_soon

    def run(
        self,
        bot_name: str,
        view: dict[str, Any],
        legal_moves: list[str],
        seed: int,
        done: Callable[[str], None],
    ) -> None:
        move = decide(bot_name, view, legal_moves, seed)
        self._call_soon(lambda: done(move))

    def close(self) -> None:
        return None
