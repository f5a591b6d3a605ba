"""Background passes a server makes now and then (taking over orphaned tables, recording
finished matches, forgetting old guests): in a cluster one process a pass, and quiet while
the database is away (the storage logs that outage once)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .outage import Outage
from .storage import Storage, StorageError

if TYPE_CHECKING:
    from .cluster.broker import Broker


async def keep_taking_turns(
    name: str,
    seconds: float,
    work: Callable[[], Awaitable[object]],
    *,
    storage: Storage,
    broker: Broker | None,
    outage: Outage,
    consequence: str,
    jitter: float = 0.5,
) -> None:
    """Run ``work`` about every ``seconds`` (a random share of it from ``jitter`` to 1, so
    that processes started together do not keep in step), for good (cancel to stop): in a
    cluster when this process takes the turn ``name`` (:meth:`Broker.take_turn`), never
    while ``storage`` cannot write. Other failures are ``outage``'s to tell, with
    ``consequence``."""
    while True:
        await asyncio.sleep(seconds * random.uniform(jitter, 1.0))
        if storage.failed:
            continue  # (the database away: its outage is logged once, by the storage)
        try:
            if broker is None or await broker.take_turn(name, seconds * 0.5):
                await work()
        except StorageError:
            pass  # (the same outage, met before the storage noticed it: tried again)
        except Exception as error:
            outage.failed(error, consequence)
        else:
            outage.back()
