"""A finished match as the players' store records it (docs/players.md, "Ratings"): who sat
where with which profile or bot level, how each team and seat finished. Written with the
match's result (storage ``ChangeExtra.record``), so that a rating change is never lost with
a process that stops between the two, and recorded once (by table code and match number).
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from ...engine import Match
from ..clock import Scheduler
from .model import SeatState, TableOptions, ms


def match_record(
    code: str,
    number: int,
    options: TableOptions,
    seats: Sequence[SeatState],
    over: Match,
    clock: Scheduler,
) -> str | None:
    """The record of match ``number`` of table ``code``, ``over`` now, as JSON; None if no
    seat has a profile (nobody's history or rating to keep). Team ranks: the winners 1, the
    others 2; a seat's place: its finishing place in the last round."""
    if not any(seat.profile for seat in seats if seat.kind == "human"):
        return None
    assert over.winning_team is not None
    finished = list(over.results[-1].finished) if over.results else []
    record = {
        "code": code,
        "number": number,
        "finished_at": ms(clock.now()),
        "rated": options.rated,
        "rounds": len(over.results),
        "seats": [
            {
                "seat": seat.seat,
                "team": seat.seat % 2,
                "name": seat.name or "",
                "rank": 1 if seat.seat % 2 == over.winning_team else 2,
                "place": finished.index(seat.seat) + 1 if seat.seat in finished else None,
                "profile_id": seat.profile if seat.kind == "human" else None,
                "bot_level": options.bot if seat.kind == "bot" else None,
            }
            for seat in seats
        ],
    }
    return orjson.dumps(record).decode()
