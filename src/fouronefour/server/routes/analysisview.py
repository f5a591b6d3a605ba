"""Who may see which round analysis (docs/protocol.md, section 2, "analysis").

An analysis entry reveals its seat's hand (its better move) and its private offers (a
declined hook is an entry), so until the match is over a player sees only their own seat's
entries, and only once the round has ended; spectators see none. Once the match is over
everything is public, as in its replay.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...engine import Match, Rules
from ..errors import ErrorCode, TableError
from ..storage import StoredAnalysis, StoredMatch
from ..tables.model import hash_token


@dataclass(frozen=True, slots=True)
class Asked:
    """Round ``round_number`` of match ``match_number`` (None: the table's current)."""

    round_number: int
    match_number: int | None


def parse_query(round_text: str | None, match_text: str | None) -> Asked:
    """The round and match a request names; ``bad_message`` if they are not numbers."""

    def number(text: str | None, name: str) -> int:
        if text is None or not (text.isascii() and text.isdigit() and 0 < len(text) < 10):
            raise TableError(ErrorCode.BAD_MESSAGE, f"{name} must be a positive whole number")
        if int(text) < 1:
            raise TableError(ErrorCode.BAD_MESSAGE, f"{name} must be a positive whole number")
        return int(text)

    return Asked(
        number(round_text, "round"), None if match_text is None else number(match_text, "match")
    )


def token_seat(token: str | None, token_hashes: Sequence[str | None]) -> int | None:
    """The seat whose token ``token`` is; ``bad_token`` for a token of no seat."""
    if token is None:
        return None
    if token and len(token) <= 200:
        digest = hash_token(token)
        for seat, hashed in enumerate(token_hashes):
            if hashed is not None and hmac.compare_digest(hashed, digest):
                return seat
    raise TableError(ErrorCode.BAD_TOKEN, "the token is not one of this table's seats")


def audience(
    asked_match: int, current: int, finished: Sequence[int], seat: int | None
) -> int | None:
    """Whose entries the asker may see: None for everyone's (the match is over), else
    their seat's; refuses a match that is not the table's and a spectator's asking while
    the match is being played."""
    if asked_match in finished:
        return None
    if current == 0:
        raise TableError(ErrorCode.REPLAY_NOT_FOUND, "no match has been played at this table")
    if not 1 <= asked_match <= current:
        raise TableError(ErrorCode.REPLAY_NOT_FOUND, f"no match {asked_match} at this table")
    if seat is None:
        raise TableError(
            ErrorCode.MATCH_IN_PROGRESS,
            f"match {asked_match} is being played: only its players see their own decisions "
            "(give your seat's token as X-Token), everyone once it is over",
        )
    return seat


def rounds_ended(stored: StoredMatch) -> int:
    """How many rounds of a stored match have ended (CPU: the match is replayed)."""
    return len(Match.replay(Rules.from_dict(stored.rules), stored.seed, stored.moves).results)


def check_round(round_number: int, ended: int, over: bool) -> None:
    """Refuse a round that has not ended (``not_finished``) or that the match never had."""
    if round_number <= ended:
        return
    if over:
        raise TableError(ErrorCode.REPLAY_NOT_FOUND, f"the match had {ended} rounds")
    raise TableError(
        ErrorCode.NOT_FINISHED,
        f"round {round_number} has not ended: it is analysed once it has",
    )


def round_view(code: str, analysis: StoredAnalysis, seat: int | None) -> dict[str, Any]:
    """The answer: every entry (``seat`` None) or ``seat``'s own."""
    assert analysis.decisions is not None
    decisions = analysis.decisions
    if seat is not None:
        decisions = [d for d in decisions if d.get("seat") == seat]
    return {
        "code": code,
        "match": analysis.match_number,
        "round_number": analysis.round_number,
        "worlds": analysis.worlds,
        "seat": seat,
        "decisions": decisions,
    }


__all__ = [
    "Asked",
    "audience",
    "check_round",
    "parse_query",
    "round_view",
    "rounds_ended",
    "token_seat",
]
