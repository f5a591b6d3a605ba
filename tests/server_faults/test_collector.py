"""The server's collector schedule keeps memory bounded: frozen cyclic garbage comes back."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import weakref

from fouronefour.server.collector import YOUNG_PER_MIDDLE, keep_collections_short


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_frozen_cyclic_garbage_is_reclaimed_by_the_periodic_full_collection() -> None:
    async def scenario() -> None:
        collector = asyncio.create_task(keep_collections_short(0.01, 0.3))
        node = _Node()
        alive = weakref.ref(node)
        await asyncio.sleep(0.05)  # frozen by now
        del node
        gc.collect()
        assert alive() is not None  # an ordinary collection leaves frozen objects alone
        for _ in range(100):
            await asyncio.sleep(0.02)
            if alive() is None:
                break
        assert alive() is None  # the periodic full collection unfroze and freed it
        assert gc.get_freeze_count() > 0  # and froze what is alive again
        assert gc.get_threshold()[1] == YOUNG_PER_MIDDLE
        collector.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await collector
        assert gc.get_threshold() == thresholds

    thresholds = gc.get_threshold()
    try:
        asyncio.run(scenario())
    finally:
        gc.unfreeze()
