"""Public events derived from two successive matches (docs/protocol.md, "Events").

Built from the engine's public API only, so nothing private can slip in: declines of hook
offers are not events, hands never appear.
"""

from __future__ import annotations

from typing import Any

from ...engine import PASS, Match, Round


def move_event(before: Round, decision: str, seat: int, move: str) -> dict[str, Any]:
    """The public event of ``seat``'s ``move`` on ``before`` (not for declined offers)."""
    if decision == "return":
        payer = next(t["from"] for t in before.tributes if t["returned"] is None)
        return {"type": "return", "seat": seat, "to": payer, "card": move}
    if decision in ("hook", "unhook"):
        return {"type": decision, "seat": seat, "move": move}
    if move == PASS:
        return {"type": "pass", "seat": seat}
    return {"type": "play", "seat": seat, "move": move}


def round_start_event(match: Match) -> dict[str, Any]:
    r = match.round
    return {
        "type": "round_start",
        "round_number": match.round_number,
        "level": r.level,
        "levels": list(match.levels),
        "leader": r.leader,
        "counts": r.card_counts(),
        "tributes": [{"from": t["from"], "to": t["to"], "card": t["card"]} for t in r.tributes],
    }


def round_ended(before: Match, after: Match) -> bool:
    """Whether the moves from ``before`` (a round in play) to ``after`` ended that round."""
    return after.is_over or after.round_number != before.round_number


def progress_events(
    before: Match, after: Match, match_number: int, ended: bool | None = None
) -> list[dict[str, Any]]:
    """Finishes, round and match ends, and the next round's start between two matches
    (``ended``: :func:`round_ended`, if the caller knows it already)."""
    events: list[dict[str, Any]] = []
    if ended is None:
        ended = round_ended(before, after)
    finished = list(after.results[-1].finished) if ended else after.round.finished
    already = len(before.round.finished)
    for place, seat in enumerate(finished[already:], start=already + 1):
        events.append({"type": "finish", "seat": seat, "place": place})
    if ended:
        result = after.results[-1]
        events.append(
            {"type": "round_over", "round_number": len(after.results), **result.to_dict()}
        )
        if after.is_over:
            events.append(
                {
                    "type": "match_over",
                    "match_number": match_number,
                    "winning_team": after.winning_team,
                    "levels": list(after.levels),
                }
            )
        else:
            events.append(round_start_event(after))
    return events
