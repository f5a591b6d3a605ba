"""A round analysed decision by decision, and a match split into its rounds."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from fouronefour.engine import PASS, Decision, Match, Round, Rules

from .decision import DecisionAnalysis, analyse_decision
from .graph import fill_graph, seats_mean
from .opening import first_play, opening_chances
from .rollouts import RolloutPolicy, greedy_policy
from .styles import sensible_chances

#: Called after each decision with (decisions done, decisions in all).
Progress = Callable[[int, int], None]


def analyse_round_details(
    start: Round,
    moves: Sequence[str],
    *,
    worlds: int = 64,
    seed: int | str = 0,
    policy: RolloutPolicy = greedy_policy,
    candidates: int = 4,
    progress: Progress | None = None,
    first: int = 0,
) -> list[DecisionAnalysis]:
    """:func:`analyse_round` with the full records (loss errors, rollouts played).

    ``first``: analyse only the decisions from that index on (those before it only lead to
    the position): each decision's analysis depends on the round before it alone, so a
    round analysed in parts, as it is played, gives what it gives whole once the parts'
    graph is filled again (:func:`~fouronefour.analysis.graph.fill_graph`)."""
    if not isinstance(start, Round):
        raise TypeError(f"start must be a Round, not {type(start).__name__}")
    if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 2:
        raise ValueError(f"worlds must be an integer of at least 2, not {worlds!r}")
    if isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 2:
        raise ValueError(f"candidates must be an integer of at least 2, not {candidates!r}")
    moves = list(moves)
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first <= len(moves):
        raise ValueError(f"first must be a decision's index from 0 to {len(moves)}, not {first!r}")
    # Check the whole round before spending anything on it.
    rounds = [start]
    for index, move in enumerate(moves):
        if rounds[-1].is_over:
            raise ValueError(f"move {index} ({move!r}) comes after the round ended")
        rounds.append(rounds[-1].apply(move))
    styles = sensible_chances(rounds, moves)
    tricks = trick_so_far(rounds, moves)
    out = []
    for index in range(first, len(moves)):
        move = moves[index]
        out.append(
            analyse_decision(
                rounds[index],
                move,
                worlds=worlds,
                seed=f"fouronefour/analysis/{seed}/{index}",
                policy=policy,
                candidates=candidates,
                sensible=styles[index],
            )
        )
        if progress is not None:
            progress(index + 1 - first, len(moves) - first)
    lead = first_play(rounds[: len(moves)])
    if lead is not None and lead >= first:
        opening = opening_chances(
            rounds[lead], worlds=worlds, seed=f"fouronefour/analysis/{seed}/opening", policy=policy
        )
        out[lead - first] = dataclasses.replace(out[lead - first], opening=opening)
    steps = [(d.seat, d.decision, d.win_chance) for d in out]
    graph = seats_mean(steps, {i: d.opening for i, d in enumerate(out) if d.opening is not None})
    return [
        dataclasses.replace(decision, graph_chance=chance, trick=trick)
        for decision, chance, trick in zip(out, graph, tricks[first:], strict=True)
    ]


def trick_so_far(
    rounds: Sequence[Round], moves: Sequence[str]
) -> list[tuple[tuple[int, str], ...]]:
    """For each decision (``rounds[i]`` the position, ``moves[i]`` the move), the public
    moves of its trick before it, as (seat, move): plays and passes, and hooks and unhooks
    made (a declined offer is private, and tribute returns come before any trick)."""
    out: list[tuple[tuple[int, str], ...]] = []
    trick: list[tuple[int, str]] = []
    for r, move, after in zip(rounds, moves, rounds[1:], strict=False):
        out.append(tuple(trick))
        seat, played = r.to_act, r.resolve(move)
        assert seat is not None
        if r.decision is Decision.PLAY or (
            r.decision in (Decision.HOOK, Decision.UNHOOK) and played != PASS
        ):
            trick.append((seat, played))
        if after.top is None:  # the trick is over: the next play leads a new one
            trick = []
    return out


def analyse_round(
    start: Round,
    moves: Sequence[str],
    *,
    worlds: int = 64,
    seed: int | str = 0,
    policy: RolloutPolicy = greedy_policy,
    candidates: int = 4,
    progress: Progress | None = None,
    first: int = 0,
) -> list[dict[str, Any]]:
    """Every decision of a round, judged as its seat could judge it before moving.

    ``start`` is the round as dealt (tribute paid), ``moves`` its decisions in order
    (declined hook and unhook offers included, as ``Match.moves`` records them; a
    prefix of the round is fine). Returns one JSON-able dict per decision with ``seat``,
    ``move`` (canonical), ``decision``, ``win_chance``, ``best_move``,
    ``best_win_chance``, ``played_win_chance``, ``label``
    (:data:`~fouronefour.analysis.labels.LABELS`) and ``graph_chance``, Team A's chance
    before the decision as the round's graph shows it (the mean of each seat's latest own
    estimate: :mod:`~fouronefour.analysis.graph`). The same arguments give the same
    result. Raises IllegalMove (a ValueError) for a move that is not legal where it is
    played, ValueError for bad arguments.
    """
    details = analyse_round_details(
        start,
        moves,
        worlds=worlds,
        seed=seed,
        policy=policy,
        candidates=candidates,
        progress=progress,
        first=first,
    )
    return fill_graph([d.to_dict() for d in details])


def match_rounds(
    rules: Rules | Mapping[str, Any], seed: int | str, moves: Sequence[str]
) -> Iterator[tuple[Round, list[str]]]:
    """Each round of a match as ``(start, moves)``: the round as dealt (tribute paid)
    and its decisions. ``rules``, ``seed`` and ``moves`` are a match as stored (a
    ``Rules`` or its dict, ``Match.seed``, ``Match.moves``); a match not yet over ends
    with its round in progress. Raises IllegalMove for a move that is not legal."""
    if not isinstance(rules, Rules):
        rules = Rules.from_dict(rules)
    match = Match(rules, seed)
    start = match.round
    current: list[str] = []
    for move in moves:
        finished = len(match.results)
        match = match.apply(move)
        current.append(move)
        if len(match.results) > finished:
            yield start, current
            start, current = match.round, []
    if current:
        yield start, current


def analyse_match_round(
    rules: Rules | Mapping[str, Any],
    match_seed: int | str,
    moves: Sequence[str],
    round_number: int,
    *,
    worlds: int = 64,
    seed: int | str = 0,
    first: int = 0,
) -> list[dict[str, Any]]:
    """:func:`analyse_round` of round ``round_number`` (from 1) of a stored match, from
    plain data: what a worker process is handed (``moves`` may run past that round, or stop
    inside it: the decisions played so far; ``first``: from that decision of the round)."""
    if isinstance(round_number, bool) or not isinstance(round_number, int) or round_number < 1:
        raise ValueError(f"round_number must be a positive integer, not {round_number!r}")
    for number, (start, round_moves) in enumerate(match_rounds(rules, match_seed, moves), 1):
        if number == round_number:
            return analyse_round(start, round_moves, worlds=worlds, seed=seed, first=first)
    raise ValueError(f"the match has no round {round_number}")


__all__ = [
    "Progress",
    "analyse_match_round",
    "analyse_round",
    "analyse_round_details",
    "match_rounds",
]
