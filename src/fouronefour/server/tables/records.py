"""A finished match as the players' store records it (docs/players.md, "Ratings"): who sat
where with which profile or bot level, how each team and seat finished. Written with the
match's result (storage ``ChangeExtra.record``), so that a rating change is never lost with
a process that stops between the two, and recorded once (by table code and match number).
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from ...engine import Match, Round
from ...engine.cards import level_index
from ...engine.moves import BombKind, Kind, classify_text
from .model import SeatState, TableOptions, ms


def match_record(
    code: str,
    number: int,
    options: TableOptions,
    seats: Sequence[SeatState],
    over: Match,
    now: float,
) -> str | None:
    """The record of match ``number`` of table ``code``, ``over`` now, as JSON; None if no
    seat has a profile (nobody's history or rating to keep). Team ranks: the winners 1, the
    others 2; a seat's place: its finishing place in the last round."""
    if not any(seat.profile for seat in seats if seat.kind == "human"):
        return None
    assert over.winning_team is not None
    finished = list(over.results[-1].finished) if over.results else []
    counted = tallies(over)
    record = {
        "code": code,
        "number": number,
        "finished_at": ms(now),
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
                **counted[seat.seat],
                "levels_climbed": level_index(over.levels[seat.seat % 2]),
            }
            for seat in seats
        ],
    }
    return orjson.dumps(record).decode()


#: What each seat's record counts over the match (docs/players.md, "History and stats").
TALLIES = ("bombs", "four_four_a", "hooks_made", "hooks_suffered", "tribute_paid",
           "tribute_received")  # fmt: skip


def tallies(over: Match) -> list[dict[str, int]]:
    """Each seat's bombs (44A apart) played, hooks made and suffered (a hook takes the
    single card of the seat that played it), and tribute cards paid and received, over
    every round of ``over`` (replayed from its moves)."""
    counts = [dict.fromkeys(TALLIES, 0) for _ in range(over.rules.players)]
    for ended in _rounds(over):
        top_seat: int | None = None
        for event in ended.log:
            kind, seat = event["type"], event["seat"]
            if kind == "play":
                combination = classify_text(event["move"])
                if combination is not None and combination.kind is Kind.BOMB:
                    four_four_a = combination.bomb is BombKind.FOUR_FOUR_ACE
                    counts[seat]["four_four_a" if four_four_a else "bombs"] += 1
                top_seat = seat
            elif kind in ("hook", "unhook"):
                if kind == "hook":
                    counts[seat]["hooks_made"] += 1
                    if top_seat is not None:
                        counts[top_seat]["hooks_suffered"] += 1
                top_seat = seat
            elif kind == "tribute":
                counts[seat]["tribute_paid"] += 1
                counts[event["to"]]["tribute_received"] += 1
    return counts


def _rounds(over: Match) -> list[Round]:
    """Every round of ``over`` as it ended."""
    ended = []
    match = Match(over.rules, over.seed)
    for move in over.moves:
        before = match
        match = match.apply(move)
        if match.is_over or match.round_number != before.round_number:
            ended.append(before.round.apply(move))
    return ended
