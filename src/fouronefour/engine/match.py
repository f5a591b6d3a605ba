"""A match: rounds, levels and tribute until a team wins at A (docs/rules.md sections 1, 7, 8)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .cards import ACE, INDEX, RANKS, deck_counts
from .errors import IllegalMove
from .round import Round
from .rules import Rules

_MoveNode = tuple[str, "_MoveNode | None"] | None


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How a finished round of a match ended."""

    level: str
    finished: tuple[int, ...]
    caught: tuple[int, ...]
    winning_team: int
    levels_after: tuple[str, str]

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "finished": list(self.finished),
            "caught": list(self.caught),
            "winning_team": self.winning_team,
            "levels_after": list(self.levels_after),
        }


def deal(rules: Rules, seed: int | str, round_number: int) -> tuple[list[str], int]:
    """The hands of a match's round and, for round 1, its drawn leader.

    Each round has its own random stream derived from the match seed, so a round's deal
    does not depend on how earlier rounds were played.
    """
    rng = random.Random(f"fouronefour/{seed}/{round_number}")
    deck = [rank for rank, n in enumerate(deck_counts(rules.deck_count)) for _ in range(n)]
    rng.shuffle(deck)
    players = rules.players
    hands = ["".join(RANKS[r] for r in deck[seat::players]) for seat in range(players)]
    return hands, rng.randrange(players)


class Match:
    """Rounds until a team wins: an immutable value like :class:`Round`.

    >>> m = Match(Rules(players=4), seed=7)
    >>> m.levels, m.round.level, len(m.round.hand(0))
    (('2', '2'), '2', 27)
    >>> m2 = m.apply(m.round.legal_moves()[0])
    >>> len(m2.moves), len(m.moves)
    (1, 0)
    """

    __slots__ = (
        "_levels",
        "_moves",
        "_moves_size",
        "_results",
        "_round",
        "_winner",
        "rules",
        "seed",
    )

    rules: Rules
    seed: int | str
    _levels: tuple[int, int]
    _round: Round
    _results: tuple[RoundResult, ...]
    _winner: int | None
    _moves: _MoveNode
    _moves_size: int

    def __init__(self, rules: Rules | None = None, seed: int | str = 0) -> None:
        self.rules = rules or Rules()
        self.seed = seed
        hands, leader = deal(self.rules, seed, 1)
        self._levels = (0, 0)
        self._round = Round.from_hands(hands, leader=leader, level="2", rules=self.rules)
        self._results = ()
        self._winner = None
        self._moves = None
        self._moves_size = 0

    @classmethod
    def replay(cls, rules: Rules, seed: int | str, moves: Iterable[str]) -> Match:
        """The match reached by ``moves`` from the start (raises IllegalMove on a bad one)."""
        match = cls(rules, seed)
        for move in moves:
            match = match.apply(move)
        return match

    @property
    def round(self) -> Round:
        """The round being played (the last one once the match is over)."""
        return self._round

    @property
    def round_number(self) -> int:
        return len(self._results) + (0 if self._round.is_over else 1)

    @property
    def levels(self) -> tuple[str, str]:
        """Each team's level, team 0 first."""
        return RANKS[self._levels[0]], RANKS[self._levels[1]]

    @property
    def results(self) -> list[RoundResult]:
        return list(self._results)

    @property
    def is_over(self) -> bool:
        return self._winner is not None

    @property
    def winning_team(self) -> int | None:
        return self._winner

    @property
    def moves(self) -> list[str]:
        """Every decision taken, declines included; with rules and seed, the whole match."""
        out: list[str] = []
        node = self._moves
        while node is not None:
            out.append(node[0])
            node = node[1]
        out.reverse()
        return out

    def apply(self, move: str) -> Match:
        """The match after the current round's seat to act makes ``move``."""
        if self._winner is not None:
            raise IllegalMove(f"{move!r}: the match is over")
        current = self._round
        # Record the canonical form so that the move list replays exactly.
        recorded = current.resolve(move)
        next_round = current._apply_legal(recorded)
        new = object.__new__(Match)
        new.rules = self.rules
        new.seed = self.seed
        new._levels = self._levels
        new._results = self._results
        new._winner = None
        new._moves = (recorded, self._moves)
        new._moves_size = self._moves_size + 1
        new._round = next_round
        if next_round.is_over:
            new._finish_round(next_round)
        return new

    def _finish_round(self, finished_round: Round) -> None:
        team = finished_round.winning_team
        assert team is not None
        caught = finished_round.caught
        start_level = self._levels[team]
        levels = list(self._levels)
        levels[team] = min(ACE, start_level + len(caught))
        self._levels = (levels[0], levels[1])
        opponents = [s for s in range(self.rules.players) if s % 2 != team]
        self._results = (
            *self._results,
            RoundResult(
                finished_round.level,
                tuple(finished_round.finished),
                tuple(caught),
                team,
                self.levels,
            ),
        )
        if (start_level == ACE and len(caught) == len(opponents)) or self._goal_reached(team):
            self._winner = team
            return
        round_number = len(self._results) + 1
        hands, _ = deal(self.rules, self.seed, round_number)
        self._round = Round.from_hands(
            hands,
            level=RANKS[levels[team]],
            rules=self.rules,
            previous_finished=finished_round.finished,
            previous_caught=caught,
        )

    def _goal_reached(self, team: int) -> bool:
        """A shorter match (``rules.goal``, docs/rules.md section 10) is won by the team
        that wins its one round, or whose level first reaches the goal."""
        goal = self.rules.goal
        if goal == "match":
            return False
        return goal == "round" or self._levels[team] >= INDEX[goal]

    def view(self, seat: int) -> dict[str, Any]:
        """The round's view for ``seat`` plus the match's public facts."""
        view = self._round.view(seat)
        view["levels"] = list(self.levels)
        view["round_number"] = self.round_number
        view["results"] = [r.to_dict() for r in self._results]
        view["match_over"] = self.is_over
        view["match_winner"] = self._winner
        return view

    def public_view(self) -> dict[str, Any]:
        """A spectator's view: public facts only."""
        view = self._round.public_view()
        view["levels"] = list(self.levels)
        view["round_number"] = self.round_number
        view["results"] = [r.to_dict() for r in self._results]
        view["match_over"] = self.is_over
        view["match_winner"] = self._winner
        return view

    def __repr__(self) -> str:
        return (
            f"<Match seed={self.seed!r} round {self.round_number} levels={self.levels} "
            f"moves={self._moves_size}>"
        )


__all__ = ["Match", "RoundResult", "deal"]
