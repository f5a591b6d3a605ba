"""What the players' room keeps and answers with: frozen values, each with the one dict it
is sent as (``to_dict``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...engine.cards import ACE, RANKS

#: The avatars a profile picks from (the client draws them; a profile holds the name only).
AVATARS: tuple[str, ...] = (
    "fox", "owl", "cat", "panda", "tiger", "crane", "dragon", "rabbit",
    "bear", "koi", "turtle", "horse", "monkey", "rooster", "dog", "ox",
)  # fmt: skip
#: The languages a profile may choose: the client's translations (web/static/i18n).
LANGUAGES: tuple[str, ...] = ("en", "de", "it", "hi", "zh")
#: A rating is provisional (shown as such, and off the global leaderboard) until it has seen
#: this many rated matches: by then its sigma has fallen from 8.3 to about half.
PROVISIONAL_MATCHES = 10
#: What a deleted profile is shown as in other players' histories.
FORMER_PLAYER = "a former player"


@dataclass(frozen=True, slots=True)
class Rating:
    """An OpenSkill rating (Plackett-Luce scale: a new player is mu 25, sigma 25/3) and how
    many rated matches it has seen."""

    mu: float
    sigma: float
    matches: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative estimate shown and ranked by: mu - 3 sigma."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class Profile:
    id: str
    name: str
    avatar: str
    language: str
    created_at: int  # ms since the epoch
    last_seen: int
    #: The username once claimed (None: a guest).
    username: str | None
    rating: Rating
    #: Gone (deleted by its player or by retention): what remains is a "former player".
    deleted: bool = False

    @property
    def claimed(self) -> bool:
        return self.username is not None


@dataclass(frozen=True, slots=True)
class Credentials:
    """A claimed profile's sign-in: its id and its argon2id hash."""

    profile_id: str
    password_hash: str


@dataclass(frozen=True, slots=True)
class Passkey:
    """A passkey (WebAuthn credential) of a profile: its public key, never a secret."""

    credential_id: str  # base64url
    profile_id: str
    public_key: str  # base64url of the COSE key
    sign_count: int
    created_at: int
    last_used: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.credential_id,
            "created_at": self.created_at,
            "last_used": self.last_used,
        }


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A session as its player may see it (never its token, nor the token's hash)."""

    id: str  # a short public id: the first 12 hex digits of the token's hash
    profile_id: str
    created_at: int
    last_used: int
    expires_at: int
    #: How it began: "guest", "claim", "password", "device", "rotated" (password change).
    how: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created_at": self.created_at,
            "last_used": self.last_used,
            "expires_at": self.expires_at,
            "how": self.how,
        }


@dataclass(frozen=True, slots=True)
class MatchSeat:
    """One seat of a finished match: a profile's, a bot's (its level) or a player without a
    profile (a protocol client without cookies: rated as a newcomer, never updated)."""

    seat: int
    team: int
    name: str
    #: The team's finishing rank in the match: 1 for the winners (ties share a rank).
    rank: int
    #: The seat's finishing place in the match's last round (1 = out first), if known.
    place: int | None = None
    profile_id: str | None = None
    bot_level: str | None = None
    #: What the seat did over the match (tables/records.py's ``TALLIES``) and where its
    #: team's level got to (0: still at 2).
    bombs: int = 0
    four_four_a: int = 0
    hooks_made: int = 0
    hooks_suffered: int = 0
    tribute_paid: int = 0
    tribute_received: int = 0
    levels_climbed: int = 0


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A finished match to record: once per (table code, match number)."""

    code: str
    number: int
    finished_at: int  # ms
    rated: bool
    seats: tuple[MatchSeat, ...]
    rounds: int = 0


@dataclass(frozen=True, slots=True)
class RatingChange:
    profile_id: str
    before: Rating
    after: Rating


@dataclass(frozen=True, slots=True)
class Recorded:
    """What recording a match did: ``new`` False when it had been recorded already (and
    ``changes`` are then those recorded the first time)."""

    new: bool
    changes: tuple[RatingChange, ...]


@dataclass(frozen=True, slots=True)
class SeatSummary:
    seat: int
    team: int
    name: str
    rank: int
    place: int | None
    profile_id: str | None
    bot_level: str | None
    #: The seat's player deleted their profile since (its name is :data:`FORMER_PLAYER`).
    former: bool = False
    #: How far the seat's team's level got from 2 in the match (12: to A).
    levels_climbed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "team": self.team,
            "name": self.name,
            "rank": self.rank,
            "place": self.place,
            "player": self.profile_id,
            "bot_level": self.bot_level,
            "former": self.former,
        }


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One finished match in a player's history."""

    code: str
    number: int
    finished_at: int
    rated: bool
    rounds: int
    seat: int
    won: bool
    place: int | None
    before: Rating | None  # None: not rated for this player
    after: Rating | None
    seats: tuple[SeatSummary, ...] = ()
    #: This player's accuracy in the match (None: its rounds not analysed).
    accuracy: float | None = None

    @property
    def cursor(self) -> str:
        """Where the next page starts (keyset: finished_at, code, number)."""
        return f"{self.finished_at}.{self.code}.{self.number}"

    def to_dict(self) -> dict[str, Any]:
        change = None
        if self.before is not None and self.after is not None:
            change = {
                "mu": self.after.mu - self.before.mu,
                "ordinal": self.after.ordinal - self.before.ordinal,
                "after": {"mu": self.after.mu, "sigma": self.after.sigma},
            }
        return {
            "code": self.code,
            "match": self.number,
            "finished_at": self.finished_at,
            "rated": self.rated,
            "rounds": self.rounds,
            "seat": self.seat,
            "won": self.won,
            "place": self.place,
            "rating_change": change,
            "accuracy": self.accuracy,
            # each team's level at the match's end (the levels' ladder: docs/rules.md)
            "levels": {str(s.team): RANKS[min(s.levels_climbed, ACE)] for s in self.seats},
            "seats": [s.to_dict() for s in self.seats],
        }


@dataclass(frozen=True, slots=True)
class Tally:
    """Matches and wins with or against someone."""

    profile_id: str
    name: str
    matches: int
    wins: int
    former: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.profile_id,
            "name": self.name,
            "former": self.former,
            "matches": self.matches,
            "wins": self.wins,
            "win_rate": self.wins / self.matches if self.matches else None,
        }


@dataclass(frozen=True, slots=True)
class Stats:
    matches: int
    wins: int
    rated_matches: int
    rounds: int
    average_place: float | None
    partners: tuple[Tally, ...] = ()
    opponents: tuple[Tally, ...] = ()
    #: Sums over every match: bombs, four_four_a, hooks_made, hooks_suffered, tribute_paid,
    #: tribute_received, levels_climbed.
    totals: dict[str, int] | None = None
    #: The mean accuracy of the matches whose rounds were analysed (None: none were), and
    #: how many those were.
    accuracy: float | None = None
    analysed_matches: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "matches": self.matches,
            "wins": self.wins,
            "win_rate": self.wins / self.matches if self.matches else None,
            "rated_matches": self.rated_matches,
            "rounds": self.rounds,
            "average_place": self.average_place,
            **(self.totals or {}),
            "accuracy": self.accuracy,
            "analysed_matches": self.analysed_matches,
            "partners": [t.to_dict() for t in self.partners],
            "opponents": [t.to_dict() for t in self.opponents],
        }


@dataclass(frozen=True, slots=True)
class RatingRow:
    """A leaderboard's line."""

    rank: int
    profile_id: str
    name: str
    avatar: str
    rating: Rating

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "player": self.profile_id,
            "name": self.name,
            "avatar": self.avatar,
            "rating": rating_dict(self.rating),
        }


@dataclass(frozen=True, slots=True)
class Export:
    """Everything kept about one profile (GET /api/me/export)."""

    profile: Profile
    sessions: tuple[SessionInfo, ...]
    history: tuple[HistoryEntry, ...]
    extra: dict[str, Any] = field(default_factory=dict)


def rating_dict(rating: Rating) -> dict[str, Any]:
    return {
        "mu": rating.mu,
        "sigma": rating.sigma,
        "ordinal": rating.ordinal,
        "matches": rating.matches,
        "provisional": rating.matches < PROVISIONAL_MATCHES,
    }
