"""The clubs' background pass: chat wall lines older than a week deleted, and what the
clubs keep of profiles deleted meanwhile forgotten (turns.py: one process of a cluster a
pass, quiet while the database is away)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..outage import Outage
from ..storage import Storage
from ..turns import keep_taking_turns
from .service import Clubs

if TYPE_CHECKING:
    from ..cluster.broker import Broker

log = logging.getLogger(__name__)

#: How often the pass runs: a line is deleted at most this long after its week.
TIDY_SECONDS = 600.0


async def keep_clubs_tidy(clubs: Clubs, storage: Storage, broker: Broker | None) -> None:
    """The clubs' pass, for good (cancel to stop)."""
    outage = Outage(log, "tidying the clubs' chat walls")
    await keep_taking_turns(
        "clubs",
        TIDY_SECONDS,
        clubs.tidy,
        storage=storage,
        broker=broker,
        outage=outage,
        consequence="tried again in ten minutes",
    )
