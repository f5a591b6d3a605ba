"""Replays of finished matches: every hand, every step (docs/protocol.md, replays)."""

from __future__ import annotations

from typing import Any

from ...engine import PASS, Match, Round, Rules
from ..storage import MatchSummary, StoredMatch
from .events import move_event, progress_events, round_ended


def _reveal(r: Round) -> dict[str, Any]:
    revealed = r.reveal()
    revealed["counts"] = r.card_counts()
    return revealed


def build_replay(code: str, stored: StoredMatch, seats: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole of a finished match; only for matches that are over (hands are shown)."""
    if not stored.over:
        raise ValueError("replays are only for finished matches")
    rules = Rules.from_dict(stored.rules)
    match = Match(rules, stored.seed)
    rounds = [
        {
            "round_number": 1,
            "level": match.round.level,
            "start": _reveal(match.round),
            "first_step": 0,
        }
    ]
    steps = []
    for i, move in enumerate(stored.moves):
        before = match
        r = before.round
        seat = r.to_act
        decision = str(r.decision)
        assert seat is not None
        match = before.apply(move)
        events: list[dict[str, Any]] = []
        if decision in ("hook", "unhook") and move == PASS:
            events.append({"type": "decline", "seat": seat, "decision": decision})
        else:
            events.append(move_event(r, decision, seat, move))
        events.extend(progress_events(before, match, stored.number))
        ended = round_ended(before, match)
        after = r.apply(move) if ended else match.round
        steps.append(
            {
                "i": i,
                "round_number": before.round_number,
                "seat": seat,
                "decision": decision,
                "move": move,
                "events": events,
                "after": _reveal(after),
            }
        )
        if ended and not match.is_over:
            rounds.append(
                {
                    "round_number": match.round_number,
                    "level": match.round.level,
                    "start": _reveal(match.round),
                    "first_step": i + 1,
                }
            )
    return {
        "code": code,
        "match": stored.number,
        "rules": rules.to_dict(),
        "seed": stored.seed,
        "winning_team": match.winning_team,
        "seats": seats,
        "results": [
            {"round_number": n, **result.to_dict()}
            for n, result in enumerate(match.results, start=1)
        ],
        "rounds": rounds,
        "steps": steps,
    }


def match_summary(summary: MatchSummary, stored: StoredMatch | None) -> dict[str, Any]:
    """A finished match in the replay list; one finished before its winner and round count
    were kept has them read from its moves (``stored``)."""
    winning_team, rounds = summary.winning_team, summary.rounds
    if (winning_team is None or rounds is None) and stored is not None:
        match = Match.replay(Rules.from_dict(stored.rules), stored.seed, stored.moves)
        winning_team, rounds = match.winning_team, len(match.results)
    return {
        "match": summary.number,
        "moves": summary.moves,
        "winning_team": winning_team,
        "rounds": rounds,
    }
