"""Short garbage-collector pauses for a server holding thousands of sockets.

CPython's full collection walks every tracked object: behind thousands of sockets it
pauses the server for hundreds of milliseconds (docs/operations.md, "Collector pauses").
Freezing every object alive now and then (``gc.freeze()``: the collector leaves them alone)
keeps each collection to what was allocated since; cyclic garbage frozen by mistake is
reclaimed by an unfrozen full collection every ``full_seconds``, so memory stays bounded as
players come and go, at the price of one long pause that rarely.

Between two messages every socket holds a chain of suspended coroutines and futures (the
reader's and the writer's awaits), made anew by each message: they outlive the young
generation's collection, so each one walks thousands of them however seldom it runs
(CPython counts allocations net of frees, and these replace the chains they free). So the
young generation is collected after :data:`YOUNG_THRESHOLD` allocations instead of 700:
more often, each walk short, the same work in all. The middle generation is never
collected on its own: :func:`gc.freeze` empties it every ``freeze_seconds``, and the
periodic full collection reclaims what was frozen.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger(__name__)

#: Net allocations between two young-generation collections (CPython's default: 700).
YOUNG_THRESHOLD = 100
#: Young collections between two middle ones (CPython's: 10): never, the freezes empty it.
YOUNG_PER_MIDDLE = 1_000_000_000


async def keep_collections_short(freeze_seconds: float, full_seconds: float) -> None:
    """Run until cancelled: freeze every ``freeze_seconds``, collect everything every
    ``full_seconds``, the young generation after :data:`YOUNG_THRESHOLD` allocations and
    the middle one only then (the thresholds are restored when cancelled)."""
    thresholds = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, YOUNG_PER_MIDDLE, *thresholds[2:])
    last_full = time.monotonic()
    try:
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
    finally:
        gc.set_threshold(*thresholds)
