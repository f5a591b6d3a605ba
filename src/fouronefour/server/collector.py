"""Short garbage-collector pauses for a server holding thousands of sockets.

CPython's full collection walks every tracked object. Behind 4,000 sockets that took
300-640 ms on this machine, several times a minute at human pace (measured with
``bench/server_load.py``; PERFORMANCE.md saw the same): the p99 of acknowledgements was
0.5-1 s. Freezing every object alive now and then (``gc.freeze()``: the collector leaves
them alone) keeps each collection to what was allocated since; cyclic garbage frozen by
mistake is reclaimed by an unfrozen full collection every ``full_seconds``, so memory stays
bounded as players come and go, at the price of one long pause that rarely.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger(__name__)


async def keep_collections_short(freeze_seconds: float, full_seconds: float) -> None:
    """Run forever (cancel to stop): freeze every ``freeze_seconds``, collect everything
    every ``full_seconds``."""
    last_full = time.monotonic()
    while True:
        await asyncio.sleep(freeze_seconds)
        if time.monotonic() - last_full >= full_seconds:
            began = time.perf_counter()
            gc.unfreeze()
            found = gc.collect()
            last_full = time.monotonic()
            log.info(
                "full collection: %d unreachable objects in %.0f ms",
                found,
                (time.perf_counter() - began) * 1000,
            )
        gc.freeze()
