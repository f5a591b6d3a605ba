"""414, the team card game from Northeast China.

>>> import fouronefour as ff
>>> ff.kind("334455")
<Kind.DOUBLE_DRAGON: 'double_dragon'>
"""

from .engine import (
    PASS,
    Decision,
    IllegalMove,
    Kind,
    Match,
    Round,
    RoundResult,
    Rules,
    beats,
    canonical,
    deal,
    kind,
)

__all__ = [
    "PASS",
    "Decision",
    "IllegalMove",
    "Kind",
    "Match",
    "Round",
    "RoundResult",
    "Rules",
    "beats",
    "canonical",
    "deal",
    "kind",
]
__version__ = "0.1.0"
