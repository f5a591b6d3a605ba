"""Playing the paired games: one round or one match, each deal twice, in parallel."""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import multiprocessing.pool
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bots import Bot
from ..engine import Match, Round, Rules, deal
from .spec import BotSpec


@dataclass(slots=True)
class GameRecord:
    """One round (rounds mode) or one match (matches mode) between the two bots."""

    index: int
    swapped: bool  # False: bot A holds team 0 (even seats)
    winner: int  # 0: bot A's team won, 1: bot B's
    rounds_won: tuple[int, int] = (0, 0)
    levels_gained: tuple[int, int] = (0, 0)
    decisions: int = 0
    times_ms: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))


def _bot_of_seat(seat: int, swapped: bool) -> int:
    """Which bot (0: A, 1: B) plays ``seat``."""
    return (seat % 2) ^ int(swapped)


def _decide(
    bots: Sequence[Bot],
    rngs: Sequence[random.Random],
    view: dict[str, Any],
    legal: list[str],
    seat: int,
    swapped: bool,
    record: GameRecord,
) -> str:
    which = _bot_of_seat(seat, swapped)
    start = time.perf_counter()
    move = bots[which].choose(view, legal, rngs[seat])
    if len(legal) > 1:  # a forced move costs no thought; it would flatter the mean
        record.times_ms[which].append((time.perf_counter() - start) * 1000.0)
    if move not in legal:
        raise RuntimeError(f"bot {bots[which].name} chose {move!r}, not one of {legal}")
    record.decisions += 1
    return move


def play_round_game(
    specs: tuple[BotSpec, BotSpec], rules: Rules, seed: int, index: int, swapped: bool
) -> GameRecord:
    """Deal ``index`` of ``seed`` played once, bot A at the even seats unless ``swapped``."""
    hands, leader = deal(rules, f"arena/{seed}", index + 1)
    r = Round.from_hands(hands, leader=leader, level="2", rules=rules)
    bots = [specs[0].build(), specs[1].build()]
    rngs = [random.Random(f"arena/{seed}/{index}/{int(swapped)}/{s}") for s in range(rules.players)]
    record = GameRecord(index=index, swapped=swapped, winner=-1)
    while not r.is_over:
        seat = r.to_act
        assert seat is not None
        legal = r.legal_moves()
        r = r.apply(_decide(bots, rngs, r.view(seat), legal, seat, swapped, record))
    team = r.winning_team
    assert team is not None
    winner = _bot_of_seat(team, swapped)
    gained = [0, 0]
    gained[winner] = len(r.caught)
    won = [0, 0]
    won[winner] = 1
    record.winner = winner
    record.rounds_won = (won[0], won[1])
    record.levels_gained = (gained[0], gained[1])
    return record


def play_match_game(
    specs: tuple[BotSpec, BotSpec], rules: Rules, seed: int, index: int, swapped: bool
) -> GameRecord:
    """Match ``index`` of ``seed`` played to its end."""
    match = Match(rules, seed=f"arena/{seed}/{index}")
    bots = [specs[0].build(), specs[1].build()]
    rngs = [random.Random(f"arena/{seed}/{index}/{int(swapped)}/{s}") for s in range(rules.players)]
    record = GameRecord(index=index, swapped=swapped, winner=-1)
    while not match.is_over:
        r = match.round
        seat = r.to_act
        assert seat is not None
        legal = r.legal_moves()
        match = match.apply(_decide(bots, rngs, match.view(seat), legal, seat, swapped, record))
    won = [0, 0]
    gained = [0, 0]
    for result in match.results:
        which = _bot_of_seat(result.winning_team, swapped)
        won[which] += 1
        gained[which] += len(result.caught)
    team = match.winning_team
    assert team is not None
    record.winner = _bot_of_seat(team, swapped)
    record.rounds_won = (won[0], won[1])
    record.levels_gained = (gained[0], gained[1])
    return record


def play_pair(
    specs: tuple[BotSpec, BotSpec], rules: Rules, seed: int, index: int, matches: bool = False
) -> list[GameRecord]:
    """Deal (or match seed) ``index`` played twice, the teams swapped the second time."""
    game = play_match_game if matches else play_round_game
    return [game(specs, rules, seed, index, swapped) for swapped in (False, True)]


def run_arena(
    specs: tuple[BotSpec, BotSpec],
    rules: Rules,
    *,
    pairs: int,
    seed: int,
    jobs: int = 1,
    matches: bool = False,
    on_pair: Callable[[int], None] | None = None,
) -> list[GameRecord]:
    """Play ``pairs`` paired deals (or matches); ``on_pair`` is told after each pair."""
    records: list[GameRecord] = []
    if jobs <= 1:
        for index in range(pairs):
            records.extend(play_pair(specs, rules, seed, index, matches))
            if on_pair:
                on_pair(2)
    else:
        task = functools.partial(play_pair, specs, rules, seed, matches=matches)
        with worker_pool(jobs) as pool:
            for pair in pool.imap_unordered(task, range(pairs)):
                records.extend(pair)
                if on_pair:
                    on_pair(2)
    records.sort(key=lambda r: (r.index, r.swapped))
    return records


@contextlib.contextmanager
def worker_pool(jobs: int) -> Iterator[multiprocessing.pool.Pool]:
    """Worker processes that ignore Ctrl-C (the terminal sends it to them too); when the
    block ends with an exception (Ctrl-C in this process included) they are terminated at
    once, whatever they are playing, and waited for, so no process is left behind."""
    pool = multiprocessing.Pool(jobs, initializer=_ignore_interrupts)
    try:
        yield pool
    except BaseException:
        with _interrupts_ignored():  # a second Ctrl-C must not cut the clean-up short
            pool.terminate()
            pool.join()
        raise
    pool.close()
    pool.join()


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _interrupts_ignored() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread receives signals, and only it may change handlers
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
