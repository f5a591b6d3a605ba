"""Engine speed against RLCard's Dou Dizhu game, measured in one run.

    python bench/engine.py [--rounds 2000] [--seconds 5]

Reports our decisions/s over complete random-vs-random rounds (4 players, 2 decks), the
median time of ``legal_moves()`` on a fresh 27-card hand when leading and when following,
and the same figures for RLCard's raw game (``rlcard.games.doudizhu.Game``, the ``bench``
extra), with the ratios. Targets (issue 2): >= 5x RLCard's decisions/s; a fresh 27-card lead
under 100 microseconds median.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import fouronefour as ff


def our_decisions_per_second(rounds: int, seed: int) -> tuple[float, int]:
    rules = ff.Rules(players=4)
    rng = random.Random(seed)
    deals = [ff.deal(rules, seed, n) for n in range(1, rounds + 1)]
    starts = [ff.Round.from_hands(h, leader=leader, rules=rules) for h, leader in deals]
    decisions = 0
    begin = time.perf_counter()
    for game_round in starts:
        while not game_round.is_over:
            moves = game_round.legal_moves()
            game_round = game_round.apply(moves[rng.randrange(len(moves))])
            decisions += 1
    return decisions / (time.perf_counter() - begin), decisions


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


def rlcard_figures(seconds: float, seed: int) -> tuple[float, float] | None:
    try:
        import numpy as np
        from rlcard.games.doudizhu import Game
    except ImportError:
        return None
    rng = random.Random(seed)
    game = Game()
    game.np_random = np.random.RandomState(seed)
    decisions = 0
    begin = time.perf_counter()
    while time.perf_counter() - begin < seconds:
        state, _ = game.init_game()
        while not game.is_over():
            actions = state["actions"]
            state, _ = game.step(actions[rng.randrange(len(actions))])
            decisions += 1
    rate = decisions / (time.perf_counter() - begin)
    from rlcard.games.doudizhu.judger import DoudizhuJudger
    from rlcard.games.doudizhu.utils import cards2str

    lead_times = []
    for _ in range(300):
        game.init_game()
        hand = cards2str(game.players[game.round.current_player].current_hand)  # 20 cards
        t = time.perf_counter_ns()
        DoudizhuJudger.playable_cards_from_hand(hand)  # RLCard's lead generation from scratch
        lead_times.append(time.perf_counter_ns() - t)
    return rate, statistics.median(lead_times) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=5.0, help="RLCard run length")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    ours, decisions = our_decisions_per_second(args.rounds, args.seed)
    lead_us, follow_us, lead_count = our_legal_move_times(args.samples, args.seed)
    print(f"fouronefour: {args.rounds} rounds, {decisions} decisions: {ours:,.0f} decisions/s")
    print(
        f"fouronefour legal_moves() on a fresh 27-card hand: lead {lead_us:.1f} us median "
        f"({lead_count:.0f} moves median), follow {follow_us:.1f} us median"
    )
    theirs = rlcard_figures(args.seconds, args.seed)
    if theirs is None:
        print("RLCard not installed (pip install -e '.[bench]'): no reference ratio")
        return
    rate, rl_lead_us = theirs
    print(f"RLCard doudizhu Game: {rate:,.0f} decisions/s; fresh 20-card lead {rl_lead_us:.1f} us")
    ratio = ours / rate
    print(f"ratio decisions/s fouronefour / RLCard: {ratio:.1f}x (target >= 5x)")
    print(f"lead legal_moves target < 100 us: {'met' if lead_us < 100 else 'NOT met'}")


if __name__ == "__main__":
    main()
