"""The learned bot's decision time, with the greedy bot's in the same run as a reference.

    python bench/learned_bot.py [--rounds 40] [--players 4] [--seed 1] [--weights W.npz]

Plays ``--rounds`` rounds, learned at the even seats and greedy at the odd ones, and times
every decision with more than one legal move (a forced move costs nothing) in CPU time of
this thread (``time.thread_time``), so that waiting for a shared core does not count: the
cost on one core. Numpy is held to one thread, as a server worker would run it. Prints the
mean, median and p95 of each bot, and how the learned bot's time splits between its
features and its network.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before numpy loads: one core, as measured
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import random
import statistics
import time

from fouronefour import bots
from fouronefour.bots.features import Features
from fouronefour.engine import Round, Rules, deal


def measure(
    rounds: int, players: int, seed: int, weights: str | None = None
) -> dict[str, list[float]]:
    rules = Rules(players=players)
    learned = bots.get("learned") if weights is None else bots.get("learned", weights=weights)
    greedy = bots.get("greedy")
    network = learned.network  # type: ignore[attr-defined]  # loaded before timing
    times: dict[str, list[float]] = {"learned": [], "greedy": [], "features": [], "network": []}
    for index in range(rounds):
        hands, leader = deal(rules, f"bench/{seed}", index + 1)
        r = Round.from_hands(hands, leader=leader, rules=rules)
        rng = random.Random(index)
        while not r.is_over:
            seat = r.to_act
            assert seat is not None
            legal = r.legal_moves()
            if len(legal) == 1:
                r = r.apply(legal[0])
                continue
            view = r.view(seat)
            name = "learned" if seat % 2 == 0 else "greedy"
            bot = learned if name == "learned" else greedy
            start = time.thread_time()
            move = bot.choose(view, legal, rng)
            times[name].append(time.thread_time() - start)
            if name == "learned":
                start = time.thread_time()
                features = Features(view, legal)
                actions = features.actions(legal)
                middle = time.thread_time()
                network.scores(features.state, actions)
                times["features"].append(middle - start)
                times["network"].append(time.thread_time() - middle)
            r = r.apply(move)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--weights", help="a .npz of weights instead of the shipped ones")
    args = parser.parse_args()
    times = measure(args.rounds, args.players, args.seed, args.weights)
    print(f"{args.rounds} rounds at {args.players} players, CPU time of one thread per decision")
    print("| | decisions | mean | median | p95 |")
    print("|---|---|---|---|---|")
    for name, values in times.items():
        ms = sorted(v * 1000 for v in values)
        p95 = ms[int(0.95 * (len(ms) - 1))]
        print(
            f"| {name} | {len(ms)} | {statistics.fmean(ms):.3f} ms | "
            f"{statistics.median(ms):.3f} ms | {p95:.3f} ms |"
        )


if __name__ == "__main__":
    main()
