"""Old tables leave the database now and then (docs/hosting.md, "Old tables"): the loop that
asks the storage's retention for a pass and lets the registry unload what it deletes."""

from __future__ import annotations

import asyncio
import logging

from .registry import TableRegistry
from .storage import OldTables
from .storage.retention import BATCH

log = logging.getLogger(__name__)


async def keep_tidy(retention: OldTables, registry: TableRegistry) -> None:
    """Run a pass every ``retention.interval`` seconds, for good (cancel to stop)."""
    while True:
        await asyncio.sleep(retention.interval)
        try:
            await tidy(retention, registry)
        except Exception as error:  # (a full disk, a lock held too long, no database): next
            log.warning("deleting old tables failed: %s", error)


async def tidy(retention: OldTables, registry: TableRegistry) -> int:
    """One pass, if it is this process's turn; returns how many tables were deleted."""
    async with retention.turn() as mine:
        if not mine:
            return 0  # another process of the cluster runs one now
        due = await retention.survey()
        deleted = 0
        for start in range(0, len(due), BATCH):
            # A table used lately or connected stays in memory and is left for a later pass.
            # From here to the end of the deletion none of the batch is read back
            # (registry._load); those just let go of are no longer owned here (a cluster).
            batch = [(code, v) for code, v in due[start : start + BATCH] if registry.unload(code)]
            await registry.settled()
            codes = {code for code, _ in batch}
            registry.retiring |= codes
            try:
                deleted += len(await retention.retire(batch))
            finally:
                registry.retiring -= codes
        while await retention.expire_replays() == BATCH:
            pass
    if deleted:
        log.info("deleted %d tables unchanged for %g days", deleted, retention.keep_days)
    return deleted
