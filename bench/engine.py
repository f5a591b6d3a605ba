"""Engine speed against RLCard's Dou Dizhu game, measured in one run.

    python bench/engine.py [--seconds 3] [--repeats 5]

Reports our decisions/s over complete random-vs-random rounds (4 players, 2 decks), the
median time of ``legal_moves()`` on a fresh 27-card hand when leading and when following,
and the same figures for RLCard's raw game (``rlcard.games.doudizhu.Game``, the ``bench``
extra), with the ratios.

The runs alternate (ours, RLCard, ours, ...) ``--repeats`` times so that load from other
processes hits both alike, and rates are decisions per second of this process's CPU time
(``time.process_time``), which time spent waiting for a shared core does not inflate. Each
repeat gives a same-run ratio; the figure is the median of those ratios, with their spread.
Targets (issue 26): >= 10x RLCard's decisions/s; a fresh 27-card lead at most 10
microseconds median.

``--actor-seconds N`` also measures what the engine is for in training: one rollout actor of
``fouronefour train`` (``play_rounds`` with the shipped weights and the trainer's default
episode settings, in tasks of 8 rounds as ``--rounds-per-task``) for N CPU-seconds, in Deep
Monte-Carlo samples per CPU-second. Run it with ``OMP_NUM_THREADS=1``, as Ray runs a 1-CPU
actor, or numpy's BLAS threads count too.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import fouronefour as ff


def our_decisions_per_second(seconds: float, seed: int) -> tuple[float, int]:
    """Decisions per CPU-second over complete random rounds, dealt ahead, until time is up."""
    rules = ff.Rules(players=4)
    rng = random.Random(seed)
    decisions = 0
    number = 0
    spent = 0.0
    while spent < seconds:
        deals = [ff.deal(rules, seed, number + n) for n in range(1, 101)]
        starts = [ff.Round.from_hands(h, leader=leader, rules=rules) for h, leader in deals]
        number += 100
        begin = time.process_time()
        for game_round in starts:
            while not game_round.is_over:
                moves = game_round.legal_moves()
                game_round = game_round.apply(moves[rng.randrange(len(moves))])
                decisions += 1
        spent += time.process_time() - begin
    return decisions / spent, decisions


def our_legal_move_times(samples: int, seed: int) -> tuple[float, float, float]:
    """Median microseconds of a first legal_moves() call: fresh lead, fresh follow; leads' count."""
    rules = ff.Rules(players=4)
    rng = random.Random(seed)
    leads: list[ff.Round] = []
    follows: list[ff.Round] = []
    for n in range(samples):
        hands, _ = ff.deal(rules, f"legal/{seed}", n)
        lead = ff.Round.from_hands(hands, leader=0, rules=ff.Rules(players=4, hooking=False))
        leads.append(lead)
        opener = ff.Round.from_hands(hands, leader=0, rules=ff.Rules(players=4, hooking=False))
        follows.append(opener.apply(rng.choice(opener.legal_moves())))
    lead_counts = []
    lead_times = []
    for r in leads:
        t = time.perf_counter_ns()
        moves = r.legal_moves()
        lead_times.append(time.perf_counter_ns() - t)
        lead_counts.append(len(moves))
    follow_times = []
    for r in follows:
        t = time.perf_counter_ns()
        r.legal_moves()
        follow_times.append(time.perf_counter_ns() - t)
    return (
        statistics.median(lead_times) / 1000,
        statistics.median(follow_times) / 1000,
        statistics.median(lead_counts),
    )


def rlcard_decisions_per_second(seconds: float, seed: int) -> tuple[float, int] | None:
    """RLCard's raw game, random legal actions, decisions per CPU-second."""
    try:
        import numpy as np
        from rlcard.games.doudizhu import Game
    except ImportError:
        return None
    rng = random.Random(seed)
    game = Game()
    game.np_random = np.random.RandomState(seed)
    decisions = 0
    begin = time.process_time()
    while time.process_time() - begin < seconds:
        state, _ = game.init_game()
        while not game.is_over():
            actions = state["actions"]
            state, _ = game.step(actions[rng.randrange(len(actions))])
            decisions += 1
    return decisions / (time.process_time() - begin), decisions


def rlcard_lead_time(seed: int) -> float:
    """Median microseconds of RLCard generating a fresh 20-card lead from scratch."""
    import numpy as np
    from rlcard.games.doudizhu import Game
    from rlcard.games.doudizhu.judger import DoudizhuJudger
    from rlcard.games.doudizhu.utils import cards2str

    game = Game()
    game.np_random = np.random.RandomState(seed)
    lead_times = []
    for _ in range(300):
        game.init_game()
        hand = cards2str(game.players[game.round.current_player].current_hand)  # 20 cards
        t = time.perf_counter_ns()
        DoudizhuJudger.playable_cards_from_hand(hand)  # RLCard's lead generation from scratch
        lead_times.append(time.perf_counter_ns() - t)
    return statistics.median(lead_times) / 1000


def actor_samples_per_second(seconds: float, seed: int) -> tuple[float, float, int]:
    """One rollout actor: samples and decisions per CPU-second, and the samples made."""
    import numpy as np

    from fouronefour.bots.learned import WEIGHTS
    from fouronefour.train.selfplay import EpisodeConfig, play_rounds

    with np.load(WEIGHTS) as weights:
        arrays = dict(weights)
    config = EpisodeConfig()
    samples = decisions = 0
    spent = 0.0
    while spent < seconds:
        batch = play_rounds(arrays, config, 8, seed)
        seed += 1
        samples += len(batch)
        decisions += batch.decisions
        spent += batch.cpu_seconds
    return samples / spent, decisions / spent, samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds of each run")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each engine")
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--actor-seconds", type=float, default=0.0, help="CPU seconds of a training actor"
    )
    args = parser.parse_args()

    ours: list[float] = []
    theirs: list[float] = []
    ratios: list[float] = []
    decisions = 0
    for repeat in range(args.repeats):
        seed = args.seed + repeat
        rate, count = our_decisions_per_second(args.seconds, seed)
        ours.append(rate)
        decisions += count
        reference = rlcard_decisions_per_second(args.seconds, seed)
        if reference is not None:
            theirs.append(reference[0])
            ratios.append(rate / reference[0])
    lead_us, follow_us, lead_count = our_legal_move_times(args.samples, args.seed)

    def spread(rates: list[float], unit: str = "") -> str:
        return ", ".join(f"{r:,.1f}{unit}" if unit else f"{r:,.0f}" for r in rates)

    print(
        f"{args.repeats} runs of {args.seconds:.0f} CPU-s each, 4 players, random legal moves; "
        "rates per CPU-second"
    )
    print(
        f"fouronefour: {statistics.median(ours):,.0f} decisions/s median "
        f"({spread(ours)}; {decisions:,} decisions)"
    )
    print(
        f"fouronefour legal_moves() on a fresh 27-card hand: lead {lead_us:.1f} us median "
        f"({lead_count:.0f} moves median), follow {follow_us:.1f} us median"
    )
    print(f"lead legal_moves target <= 10 us: {'met' if lead_us <= 10 else 'NOT met'}")
    if args.actor_seconds > 0:
        per_second, decisions_per_second, made = actor_samples_per_second(
            args.actor_seconds, args.seed
        )
        print(
            f"training actor: {per_second:,.0f} samples/CPU-s ({decisions_per_second:,.0f} "
            f"decisions/CPU-s; {made:,} samples)"
        )
    if not ratios:
        print("RLCard not installed (pip install -e '.[bench]'): no reference ratio")
        return
    rl_lead_us = rlcard_lead_time(args.seed)
    print(
        f"RLCard doudizhu Game: {statistics.median(theirs):,.0f} decisions/s median "
        f"({spread(theirs)}); fresh 20-card lead {rl_lead_us:.1f} us"
    )
    ratio = statistics.median(ratios)
    print(
        f"ratio decisions/s fouronefour / RLCard, median of same-run ratios: {ratio:.1f}x "
        f"({spread(ratios, 'x')}; target >= 10x: {'met' if ratio >= 10 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
