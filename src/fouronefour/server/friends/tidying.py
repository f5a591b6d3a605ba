"""Invites whose time is up leave the database (and the friends' rows of profiles deleted
without their player asking: guests forgotten), one process of a cluster a pass."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..outage import Outage
from ..turns import keep_taking_turns
from .service import Friends

if TYPE_CHECKING:
    from ..cluster.broker import Broker
    from ..storage import Storage

log = logging.getLogger(__name__)

#: How often expired invites are forgotten (an expired one is never shown meanwhile).
TIDY_SECONDS = 300.0


async def keep_invites_tidy(friends: Friends, storage: Storage, broker: Broker | None) -> None:
    """Forget expired invites, about every :data:`TIDY_SECONDS` (cancel to stop)."""
    await keep_taking_turns(
        "friends",
        TIDY_SECONDS,
        friends.tidy,
        storage=storage,
        broker=broker,
        outage=Outage(log, "forgetting expired invites"),
        consequence="tried again in five minutes",
    )
