"""Short garbage-collector pauses for a server holding thousands of sockets.

CPython's full collection walks every tracked object. Behind 4,000 sockets that took
300-640 ms on this machine, several times a minute at human pace (measured with
``bench/server_load.py``; PERFORMANCE.md saw the same): the p99 of acknowledgements was
0.5-1 s. Freezing every object alive now and then (``gc.freeze()``: the collector leaves
them alone) keeps each collection to what was allocated since; cyclic garbage frozen by
mistake is reclaimed by an unfrozen full collection every ``full_seconds``, so memory stays
bounded as players come and go, at the price of one long pause that rarely.

The middle generation is collected 10x less often than CPython's default. Between two
messages every socket holds a chain of suspended coroutines and futures (the reader's and
the writer's awaits): ~46,000 live young objects behind 4,000 sockets, all walked by each
middle-generation collection, 40-60 ms every ~2 s at 700 decisions/s; a p99 of 43 ms. Once
every ~20 s the same walk leaves the p99 at 7-14 ms (same run, same machine).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger(__name__)

#: Young-generation collections between two middle-generation ones (CPython's default: 10).
YOUNG_PER_MIDDLE = 100


async def keep_collections_short(freeze_seconds: float, full_seconds: float) -> None:
    """Run until cancelled: freeze every ``freeze_seconds``, collect everything every
    ``full_seconds``, the middle generation :data:`YOUNG_PER_MIDDLE` times less often than
    the young one (the thresholds are restored when cancelled)."""
    thresholds = gc.get_threshold()
    gc.set_threshold(thresholds[0], YOUNG_PER_MIDDLE, *thresholds[2:])
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
