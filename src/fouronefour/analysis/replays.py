"""A match read from its replay JSON (docs/protocol.md, section 2, "replays"): what the
replay viewer downloads, and what ``fouronefour analyse`` reads.

Only ``rules``, ``seed`` and the steps' moves are needed: with them the engine rebuilds
every round. The rest is checked where present (each round's deal must be the one the seed
gives) or used for names (``seats``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fouronefour.engine import IllegalMove, Match, Round, Rules


@dataclass(frozen=True, slots=True)
class ReplayRound:
    number: int
    start: Round
    moves: list[str]
    #: index of the round's first decision among the match's steps
    first_step: int


@dataclass(frozen=True, slots=True)
class Replay:
    rules: Rules
    seed: int | str
    moves: list[str]
    #: a name per seat ("seat 2" where the replay has none)
    names: list[str]
    rounds: list[ReplayRound]
    winning_team: int | None


def read_replay(data: Any) -> Replay:
    """The match in a parsed replay; ValueError saying what is wrong with a bad one."""
    if not isinstance(data, Mapping):
        raise ValueError(f"a replay is a JSON object, not {type(data).__name__}")
    for key in ("rules", "seed", "steps"):
        if key not in data:
            raise ValueError(f"the replay has no {key!r}")
    try:
        rules = Rules.from_dict(data["rules"])
    except (TypeError, ValueError) as error:
        raise ValueError(f"the replay's rules: {error}") from None
    seed = data["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int | str):
        raise ValueError(f"the replay's seed must be a number or text, not {seed!r}")
    steps = data["steps"]
    if not isinstance(steps, list):
        raise ValueError("the replay's steps must be a list")
    moves = []
    for i, step in enumerate(steps):
        if not isinstance(step, Mapping) or not isinstance(step.get("move"), str):
            raise ValueError(f"step {i} has no move")
        moves.append(step["move"])
    rounds, end = _rounds(rules, seed, moves)
    _check_deals(data.get("rounds"), rounds)
    return Replay(
        rules=rules,
        seed=seed,
        moves=moves,
        names=_names(data.get("seats"), rules.players),
        rounds=rounds,
        winning_team=end.winning_team,
    )


def _rounds(rules: Rules, seed: int | str, moves: list[str]) -> tuple[list[ReplayRound], Match]:
    """The rounds the moves play, each with its canonical moves, and the match after them."""
    match = Match(rules, seed)
    rounds = [ReplayRound(1, match.round, [], 0)]
    for i, move in enumerate(moves):
        if match.is_over:
            raise ValueError(f"step {i} ({move!r}) comes after the match ended")
        try:
            canonical = match.round.resolve(move)
            after = match.apply(canonical)
        except IllegalMove as error:
            raise ValueError(f"step {i}: {error}") from None
        rounds[-1].moves.append(canonical)
        if len(after.results) > len(match.results) and not after.is_over:
            rounds.append(ReplayRound(len(after.results) + 1, after.round, [], i + 1))
        match = after
    return [r for r in rounds if r.moves], match


def _check_deals(listed: Any, rounds: list[ReplayRound]) -> None:
    """Each round's hands in the replay, where given, must be the ones the seed deals."""
    if not isinstance(listed, list):
        return
    ours = {r.number: r.start for r in rounds}
    for entry in listed:
        if not isinstance(entry, Mapping):
            continue
        number, shown = entry.get("round_number"), entry.get("start")
        start = ours.get(number) if isinstance(number, int) else None
        hands = shown.get("hands") if isinstance(shown, Mapping) else None
        if start is None or not isinstance(hands, list):
            continue
        players = start.rules.players
        if [start.hand(s) for s in range(players)] != hands:
            raise ValueError(
                f"round {entry['round_number']}'s hands in the replay are not the ones its "
                "seed deals: the replay comes from another version of the game"
            )


def _names(seats: Any, players: int) -> list[str]:
    names = [f"seat {s}" for s in range(players)]
    if isinstance(seats, list):
        for entry in seats:
            if isinstance(entry, Mapping):
                seat, name = entry.get("seat"), entry.get("name")
                if isinstance(seat, int) and 0 <= seat < players and isinstance(name, str):
                    names[seat] = name if name else names[seat]
    return names


__all__ = ["Replay", "ReplayRound", "read_replay"]
