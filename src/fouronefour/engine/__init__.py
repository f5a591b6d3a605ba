"""The rules of 414: pure, standard library only, no I/O."""

from .cards import RANKS, order_text, parse_ranks
from .errors import IllegalMove
from .match import Match, RoundResult, deal
from .moves import PASS, Combination, Kind, beats, canonical, classify_text, kind
from .round import Decision, Round
from .rules import Rules

__all__ = [
    "PASS",
    "RANKS",
    "Combination",
    "Decision",
    "IllegalMove",
    "Kind",
    "Match",
    "Round",
    "RoundResult",
    "Rules",
    "beats",
    "canonical",
    "classify_text",
    "deal",
    "kind",
    "order_text",
    "parse_ranks",
]
