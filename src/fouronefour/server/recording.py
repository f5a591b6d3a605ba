"""Finished matches reach the players' store (docs/players.md, "Ratings"): each match's
record is written with its result (tables/records.py, storage's ``match_records``) and this
loop hands it to the players' store, which records it once by table code and match number,
then marks it done. A process that stops between the two leaves the record listed: the next
pass (here, or in any process of a cluster) records it; a record handed over twice changes
nothing the second time. So a rating changes once per match, never twice, never lost.

Beside it, the hourly pass that forgets guests who never came back.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import orjson

from .outage import Outage
from .players.service import Players
from .players.values import MatchRecord, MatchSeat
from .storage import Storage
from .turns import keep_taking_turns

if TYPE_CHECKING:
    from .cluster.broker import Broker

log = logging.getLogger(__name__)

#: How often the records waiting are looked for (a rating shows this long after a match).
RECORD_SECONDS = 1.0
#: Records handed over per pass.
BATCH = 50


def match_record(text: str) -> MatchRecord:
    """A record as tables/records.py wrote it."""
    data: dict[str, Any] = orjson.loads(text)
    seats = tuple(MatchSeat(**seat) for seat in data.pop("seats"))
    return MatchRecord(seats=seats, **data)


async def record_pending(storage: Storage, players: Players) -> int:
    """Hand every record waiting to the players' store; returns how many were recorded."""
    done = 0
    while True:
        pending = await storage.pending_records(BATCH)
        if not pending:
            return done
        keys = []
        for code, number, text in pending:
            try:
                record = match_record(text)
            except (ValueError, TypeError) as error:  # (written by this code: a bug)
                log.error("table %s match %s: its record cannot be read: %s", code, number, error)
            else:
                await players.record_match(record)
                done += 1
            keys.append((code, number))
        await storage.records_done(keys)
        if len(pending) < BATCH:
            return done


#: The labels of a decision that counts towards accuracy (analysis/labels.py): every label
#: but ``forced`` (no choice) counts, and ``best`` and ``good`` are accurate.
ACCURATE = frozenset({"best", "good"})


def accuracy_by_seat(decisions: list[dict[str, Any]]) -> dict[int, float | None]:
    """Each seat's share of its decisions with a choice that were labelled best or good
    (docs/players.md, "History and stats"); None for a seat that had no choice."""
    chosen: dict[int, list[bool]] = {}
    for decision in decisions:
        if decision.get("label") not in (None, "forced"):
            chosen.setdefault(int(decision["seat"]), []).append(decision["label"] in ACCURATE)
    return {seat: sum(marks) / len(marks) for seat, marks in chosen.items()}


async def fill_accuracy(storage: Storage, players: Players, limit: int = 20) -> int:
    """Work out the accuracy of recorded matches whose rounds are all analysed; a match
    with a round never to be analysed (the server does not analyse, or it was not kept)
    gets none. Returns the matches settled."""
    settled = 0
    for code, number, rounds in await players.store.accuracy_due(limit):
        analyses = [await storage.fetch_analysis(code, number, r) for r in range(1, rounds + 1)]
        if any(a is not None and a.due for a in analyses):
            continue  # (being analysed: the next pass)
        decisions = [d for a in analyses if a is not None for d in (a.decisions or [])]
        unmeasured = any(a is None or a.decisions is None for a in analyses)
        by_seat: dict[int, float | None] = {} if unmeasured else dict(accuracy_by_seat(decisions))
        await players.store.set_accuracy(code, number, by_seat)
        settled += 1
    return settled


async def keep_recording(storage: Storage, players: Players, broker: Broker | None) -> None:
    """Record what waits every :data:`RECORD_SECONDS`, for good (cancel to stop); in a
    cluster, one process a pass (:meth:`Broker.take_turn`)."""

    async def work() -> None:
        await record_pending(storage, players)
        await fill_accuracy(storage, players)

    outage = Outage(log, "recording finished matches for the players")
    await keep_taking_turns("records", RECORD_SECONDS, work, storage=storage, broker=broker,
                            outage=outage, consequence="tried again every second")  # fmt: skip


#: How often guests who never came back are looked for (players/service.py says how long
#: they are kept: docs/players.md, "Retention").
GUEST_TIDY_SECONDS = 3600.0


async def keep_guests_tidy(storage: Storage, players: Players, broker: Broker | None) -> None:
    """Forget guests who never came back, a batch an hour, for good (cancel to stop); in a
    cluster, one process a pass."""

    async def work() -> None:
        while await players.tidy() > 0:
            await asyncio.sleep(0)  # (a batch a transaction: the loop breathes)

    outage = Outage(log, "forgetting guests who never came back")
    await keep_taking_turns(
        "guests",
        GUEST_TIDY_SECONDS,
        work,
        storage=storage,
        broker=broker,
        outage=outage,
        consequence="tried again in an hour",
        jitter=0.9,
    )
