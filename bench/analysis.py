"""How honest the post-game analysis is, and what it costs (docs/analysis.md).

    python bench/analysis.py [--matches 50] [--seed 1] [--jobs 2] [--worlds 64] [--quick]

Plays matches between bots at several strengths (random, greedy and the search bot with 8
worlds a decision, at tables of one strength and of two), analyses their first two rounds
(the second starts with tribute) with ``analyse_round`` and reports:

- calibration: each decision's predicted win chance for the mover's team against whether
  that team won the round, by decile of prediction, as a table and a PNG;
- the Brier score over every decision and over the decisions of each round's second
  half, against the 0.25 of always saying 50%;
- how often each bot's decisions (those with a choice) are labelled, by label, and how
  much the marked moves lose when judged again in fresh worlds (are the marks real?);
- the round's graph (``graph_chance``, Team A's chance as the mean of each seat's latest
  own estimate): how much it moves between consecutive decisions inside a trick, against a
  line through each decider's own estimate, and its Brier score over the second half of
  rounds;
- CPU seconds per round analysed (CPU time of the worker process).

Targets: Brier at most 0.18 on second-half decisions, for the deciders' estimates and for
the graph; random's decisions blunder at least 2.5 times as often as greedy's. Writes
``analysis_seed<S>.json`` (figures, the command) with ``..._decisions.jsonl`` (one line
per decision) and ``..._calibration.png`` to ``--out``. ``--quick`` analyses 1 match per
table at 32 worlds (a minute or two).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from fouronefour import bots
from fouronefour.analysis import LABELS, MARKED, analyse_round_details, match_rounds
from fouronefour.analysis.graph import team_a_chance as graph_team_a_chance
from fouronefour.analysis.positions import sample_positions
from fouronefour.analysis.rollouts import greedy_policy, play_out
from fouronefour.analysis.styles import sensible_chances
from fouronefour.engine import Match, Round, Rules
from fouronefour.progress import progress_bar

#: Tables: the bot at the even seats (team 0) and at the odd ones; a table of two
#: strengths swaps them every other match, so each strength holds each deal's hands.
TABLES: tuple[tuple[str, str], ...] = (
    ("random", "random"),
    ("greedy", "greedy"),
    ("greedy", "random"),
    ("search", "greedy"),
    ("learned", "greedy"),
)
#: Bot parameters: a fixed amount of search keeps the games reproducible and affordable.
BOT_PARAMS: dict[str, dict[str, Any]] = {"search": {"worlds": 8}}
#: Rounds analysed per match: the first (no tribute) and the second (tribute and returns).
ROUNDS_PER_MATCH = 2


@dataclass(frozen=True, slots=True)
class DecisionRecord:
    table: str
    match: int
    round_number: int
    index: int
    decisions: int
    seat: int
    bot: str
    decision: str
    forced: bool
    win_chance: float
    won: bool
    label: str
    loss: float
    loss_error: float
    rollouts: int
    move: str
    best_move: str
    #: CPU seconds the analysis of the decision's round took
    round_seconds: float
    #: for a marked decision: best move's lead over the move played in fresh worlds
    recheck: float | None = None
    #: for a marked decision: best move's lead over the move played in the true deal,
    #: every seat playing the greedy rules afterwards (1, 0 or -1)
    true_lead: float | None = None
    #: the graph's value before the decision: Team A's chance, the mean of each seat's
    #: latest own estimate (fouronefour.analysis.graph)
    graph_chance: float | None = None
    #: the decision is the first of a trick (a lead)
    lead: bool = False


def table_name(table: tuple[str, str]) -> str:
    return table[0] if table[0] == table[1] else f"{table[0]}-{table[1]}"


def play_match(table: tuple[str, str], seed: int, index: int) -> tuple[list[str], list[str]]:
    """The moves of the first rounds of a match at ``table``, and the bot of each seat."""
    rules = Rules()
    swapped = table[0] != table[1] and index % 2 == 1
    names = [table[(seat % 2) ^ int(swapped)] for seat in range(rules.players)]
    players = [bots.get(name, **BOT_PARAMS.get(name, {})) for name in names]
    rngs = [random.Random(f"bench/analysis/{seed}/{index}/{seat}") for seat in range(4)]
    match = Match(rules, seed=match_seed(seed, index))
    while not match.is_over and len(match.results) < ROUNDS_PER_MATCH:
        r = match.round
        seat = r.to_act
        assert seat is not None
        move = players[seat].choose(match.view(seat), r.legal_moves(), rngs[seat])
        match = match.apply(move)
    return match.moves, names


def match_seed(seed: int, index: int) -> str:
    return f"bench/analysis/{seed}/{index}"


def recheck(
    r: Round, played: str, best: str, worlds: int, seed: str, sensible: list[float]
) -> float:
    """The best move's lead over the move played in ``worlds`` fresh worlds (not the ones
    that marked it, dealt the same way): whether a marked loss is real."""
    seat = r.to_act
    assert seat is not None
    rng = random.Random(seed)
    lead = 0.0
    for position in sample_positions(r.view(seat), worlds, rng, sensible):
        lead += play_out(position.apply(best), seat % 2, greedy_policy, rng)
        lead -= play_out(position.apply(played), seat % 2, greedy_policy, rng)
    return lead / worlds


def true_lead(r: Round, played: str, best: str) -> float:
    """The best move's lead over the move played in the true deal, the greedy rules
    playing on: checks the marks against the cards the analysis never saw."""
    seat = r.to_act
    assert seat is not None
    rng = random.Random(0)  # unused by the greedy rules
    return play_out(r.apply(best), seat % 2, greedy_policy, rng) - play_out(
        r.apply(played), seat % 2, greedy_policy, rng
    )


def analyse_match(
    table: tuple[str, str], seed: int, index: int, worlds: int
) -> list[DecisionRecord]:
    """Play a match's first rounds and analyse them, a record per decision."""
    moves, names = play_match(table, seed, index)
    records: list[DecisionRecord] = []
    for number, (start, round_moves) in enumerate(
        match_rounds(Rules(), match_seed(seed, index), moves), start=1
    ):
        if number > ROUNDS_PER_MATCH:
            break
        rounds = [start]
        for move in round_moves:
            rounds.append(rounds[-1].apply(move))
        end = rounds[-1]
        if not end.is_over:
            continue
        began = time.process_time()
        details = analyse_round_details(start, round_moves, worlds=worlds, seed=seed)
        spent = time.process_time() - began
        styles = sensible_chances(rounds, round_moves)
        for i, d in enumerate(details):
            r = rounds[i]
            records.append(
                DecisionRecord(
                    table=table_name(table),
                    match=index,
                    round_number=number,
                    index=i,
                    decisions=len(round_moves),
                    seat=d.seat,
                    bot=names[d.seat],
                    decision=d.decision,
                    forced=len(r.legal_moves()) == 1,
                    win_chance=d.win_chance,
                    won=end.winning_team == d.seat % 2,
                    label=d.label,
                    loss=d.loss,
                    loss_error=d.loss_error,
                    rollouts=d.rollouts,
                    move=d.move,
                    best_move=d.best_move,
                    round_seconds=spent,
                    recheck=(
                        recheck(
                            r,
                            d.move,
                            d.best_move,
                            worlds,
                            f"recheck/{seed}/{index}/{i}",
                            styles[i],
                        )
                        if d.label in MARKED
                        else None
                    ),
                    true_lead=true_lead(r, d.move, d.best_move) if d.label in MARKED else None,
                    graph_chance=d.graph_chance,
                    lead=d.decision == "play" and r.view(d.seat)["top"] is None,
                )
            )
    return records


# ----------------------------------------------------------------- figures


def brier(records: list[DecisionRecord]) -> float:
    return sum((r.win_chance - r.won) ** 2 for r in records) / max(1, len(records))


def team_a_chance(record: DecisionRecord, graph: bool) -> float:
    """Team A's chance before the decision: the graph's, or the decider's own estimate
    turned into Team A's."""
    if graph:
        assert record.graph_chance is not None
        return record.graph_chance
    return graph_team_a_chance(record.seat, record.win_chance)


def graph_steps(records: list[DecisionRecord], graph: bool) -> float:
    """Mean absolute change of Team A's chance between consecutive decisions inside a
    trick (a lead starts a trick): how much a graph moves while only the turn passes."""
    changes = [
        abs(team_a_chance(now, graph) - team_a_chance(before, graph))
        for before, now in itertools.pairwise(records)
        if (before.table, before.match, before.round_number)
        == (now.table, now.match, now.round_number)
        and not now.lead
    ]
    return sum(changes) / max(1, len(changes))


def graph_brier(records: list[DecisionRecord]) -> float:
    """The Brier score of the graph (Team A's chance against whether Team A won)."""
    return sum((team_a_chance(r, True) - (r.won == (r.seat % 2 == 0))) ** 2 for r in records) / max(
        1, len(records)
    )


def brier_parts(records: list[DecisionRecord]) -> dict[str, float]:
    """Murphy's decomposition over the deciles: Brier = reliability - resolution +
    uncertainty (up to the spread within a decile). Reliability is miscalibration;
    resolution is how far the deciles' outcomes stand from the average one, what the
    estimates tell apart."""
    n = max(1, len(records))
    base = sum(r.won for r in records) / n
    deciles: dict[int, list[DecisionRecord]] = {}
    for r in records:
        deciles.setdefault(min(9, int(r.win_chance * 10)), []).append(r)
    reliability = resolution = 0.0
    for inside in deciles.values():
        predicted = sum(r.win_chance for r in inside) / len(inside)
        actual = sum(r.won for r in inside) / len(inside)
        reliability += len(inside) * (predicted - actual) ** 2 / n
        resolution += len(inside) * (actual - base) ** 2 / n
    return {
        "reliability": reliability,
        "resolution": resolution,
        "uncertainty": base * (1 - base),
    }


def brier_interval(records: list[DecisionRecord], resamples: int = 1000) -> tuple[float, float]:
    """95% bootstrap interval of the Brier score, resampling whole rounds: a round's
    decisions share one result, so they are not independent samples."""
    by_round: dict[tuple[str, int, int], list[float]] = {}
    for r in records:
        by_round.setdefault((r.table, r.match, r.round_number), []).append(
            (r.win_chance - r.won) ** 2
        )
    rounds = [(sum(errors), len(errors)) for errors in by_round.values()]
    if not rounds:
        return (0.0, 0.0)
    rng = random.Random(0)
    scores = []
    for _ in range(resamples):
        picked = [rounds[rng.randrange(len(rounds))] for _ in rounds]
        scores.append(sum(e for e, _ in picked) / sum(n for _, n in picked))
    return (percentile(scores, 0.025), percentile(scores, 0.975))


def blunders_by_quarter(records: list[DecisionRecord]) -> dict[str, list[float]]:
    """Per bot, the share of its decisions with a choice labelled blunder in each quarter
    of the rounds (by the decision's place in its round)."""
    out: dict[str, list[float]] = {}
    for bot in sorted({r.bot for r in records}):
        rates = []
        for quarter in range(4):
            chosen = [
                r
                for r in records
                if r.bot == bot and not r.forced and int(4 * r.index / r.decisions) == quarter
            ]
            rates.append(sum(r.label == "blunder" for r in chosen) / max(1, len(chosen)))
        out[bot] = rates
    return out


def second_half(records: list[DecisionRecord]) -> list[DecisionRecord]:
    return [r for r in records if r.index >= r.decisions / 2]


def calibration(records: list[DecisionRecord]) -> list[dict[str, Any]]:
    """Predicted against actual, by decile of the prediction."""
    rows = []
    for decile in range(10):
        low, high = decile / 10, (decile + 1) / 10
        inside = [
            r
            for r in records
            if low <= r.win_chance < high or (decile == 9 and r.win_chance == 1.0)
        ]
        rows.append(
            {
                "decile": f"{low:.1f}-{high:.1f}",
                "decisions": len(inside),
                "predicted": sum(r.win_chance for r in inside) / len(inside) if inside else None,
                "actual": sum(r.won for r in inside) / len(inside) if inside else None,
            }
        )
    return rows


def label_rates(records: list[DecisionRecord]) -> dict[str, dict[str, Any]]:
    """Per bot: decisions with a choice, and the share of them with each label."""
    out: dict[str, dict[str, Any]] = {}
    for bot in sorted({r.bot for r in records}):
        chosen = [r for r in records if r.bot == bot and not r.forced]
        counts = Counter(r.label for r in chosen)
        out[bot] = {
            "decisions": len(chosen),
            **{name: counts[name] / max(1, len(chosen)) for name in LABELS if name != "forced"},
        }
    return out


def rechecked(records: list[DecisionRecord], name: str) -> dict[str, Any]:
    """How much the decisions labelled ``name`` lose when judged again in fresh worlds."""
    marked = [r for r in records if r.label == name and r.recheck is not None]
    leads = [r.recheck for r in marked if r.recheck is not None]
    true = [r.true_lead for r in marked if r.true_lead is not None]
    return {
        "decisions": len(marked),
        "mean_estimated_loss": sum(r.loss for r in marked) / max(1, len(marked)),
        "mean_loss": sum(leads) / max(1, len(leads)),
        "share_confirmed": sum(1 for lead in leads if lead > 0) / max(1, len(leads)),
        "mean_true_lead": sum(true) / max(1, len(true)),
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def cost(seconds: list[float]) -> dict[str, float]:
    return {
        "rounds": len(seconds),
        "mean": sum(seconds) / max(1, len(seconds)),
        "p50": percentile(seconds, 0.5),
        "p95": percentile(seconds, 0.95),
        "max": max(seconds, default=0.0),
    }


def round_seconds(records: list[DecisionRecord]) -> list[tuple[str, float]]:
    """(table, CPU seconds) of each round analysed."""
    rounds = {(r.table, r.match, r.round_number): r.round_seconds for r in records}
    return [(table, seconds) for (table, _, _), seconds in rounds.items()]


def summarize(records: list[DecisionRecord]) -> dict[str, Any]:
    timed = round_seconds(records)
    seconds = [s for _, s in timed]
    late = second_half(records)
    rates = label_rates(records)
    random_blunders = rates.get("random", {}).get("blunder", 0.0)
    greedy_blunders = rates.get("greedy", {}).get("blunder", 0.0)
    return {
        "rounds": len(seconds),
        "decisions": len(records),
        "cpu_seconds_per_round": cost(seconds),
        "cpu_seconds_per_round_by_table": {
            table: cost([s for t, s in timed if t == table])
            for table in sorted({t for t, _ in timed})
        },
        "rollouts_per_decision": sum(r.rollouts for r in records) / max(1, len(records)),
        "brier": brier(records),
        "brier_second_half": brier(late),
        "brier_second_half_interval": brier_interval(late),
        "brier_by_table": {
            table: {
                "all": brier([r for r in records if r.table == table]),
                "second_half": brier([r for r in late if r.table == table]),
                "second_half_parts": brier_parts([r for r in late if r.table == table]),
            }
            for table in sorted({r.table for r in records})
        },
        "calibration": calibration(records),
        "calibration_second_half": calibration(late),
        "labels_by_bot": rates,
        "blunders_by_quarter": blunders_by_quarter(records),
        "recheck_by_label": {name: rechecked(records, name) for name in MARKED},
        "recheck_by_bot": {
            bot: {name: rechecked([r for r in records if r.bot == bot], name) for name in MARKED}
            for bot in sorted({r.bot for r in records})
        },
        "blunder_ratio_random_to_greedy": (
            random_blunders / greedy_blunders if greedy_blunders and "random" in rates else None
        ),
        **graph_figures(records, late),
    }


def graph_figures(records: list[DecisionRecord], late: list[DecisionRecord]) -> dict[str, Any]:
    """The graph's smoothness (before: the deciders' own estimates) and Brier score, for the
    records that have it (runs before the graph was kept lack it)."""
    if not records or any(r.graph_chance is None for r in records):
        return {}
    return {
        "graph_step_before": graph_steps(records, graph=False),
        "graph_step": graph_steps(records, graph=True),
        "graph_brier": graph_brier(records),
        "graph_brier_second_half": graph_brier(late),
    }


def write_chart(summary: dict[str, Any], path: Path, title: str) -> None:
    """Calibration (predicted against actual by decile) and how many decisions per decile."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4))
    for key, name, colour in (
        ("calibration", "every decision", "#3b7dd8"),
        ("calibration_second_half", "second half of rounds", "#d8703b"),
    ):
        rows = [row for row in summary[key] if row["decisions"]]
        left.plot(
            [row["predicted"] for row in rows],
            [row["actual"] for row in rows],
            marker="o",
            color=colour,
            label=name,
        )
        right.bar(
            [i + (0.2 if key.endswith("half") else -0.2) for i in range(len(summary[key]))],
            [row["decisions"] for row in summary[key]],
            0.4,
            color=colour,
            label=name,
        )
    left.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle="--", label="perfect")
    left.set_xlim(0, 1)
    left.set_ylim(0, 1)
    left.set_xlabel("predicted win chance (mean of the decile)")
    left.set_ylabel("share of those decisions whose team won")
    left.set_title(
        f"Brier {summary['brier']:.3f}, second half {summary['brier_second_half']:.3f} (50%: 0.25)"
    )
    left.legend()
    right.set_xticks(range(10), [row["decile"] for row in summary["calibration"]], rotation=45)
    right.set_title("decisions per decile")
    right.legend()
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def print_report(summary: dict[str, Any], console: Any) -> None:
    from rich.table import Table

    table = Table(title="Calibration by decile of the predicted win chance")
    for column in (
        "decile",
        "decisions",
        "predicted",
        "actual",
        "2nd half: n",
        "predicted",
        "actual",
    ):
        table.add_column(column, justify="right")
    for row, late in zip(summary["calibration"], summary["calibration_second_half"], strict=True):

        def show(value: float | None) -> str:
            return "-" if value is None else f"{value:.1%}"

        table.add_row(
            row["decile"],
            str(row["decisions"]),
            show(row["predicted"]),
            show(row["actual"]),
            str(late["decisions"]),
            show(late["predicted"]),
            show(late["actual"]),
        )
    console.print(table)
    low, high = summary["brier_second_half_interval"]
    console.print(
        f"Brier score: {summary['brier']:.3f} over {summary['decisions']} decisions, "
        f"{summary['brier_second_half']:.3f} in the second half of rounds (95% interval over "
        f"rounds: {low:.3f}-{high:.3f}; always 50%: 0.250; target <= 0.18 in the second half)"
    )
    if "graph_step" in summary:
        console.print(
            "The graph (the mean of each seat's latest own estimate): it moves "
            f"{summary['graph_step']:.3f} a decision inside a trick (the deciders' own estimates: "
            f"{summary['graph_step_before']:.3f}); Brier {summary['graph_brier']:.3f}, "
            f"{summary['graph_brier_second_half']:.3f} in the second half of rounds"
        )
    by_table = Table(title="Brier score by table")
    by_table.add_column("table")
    by_table.add_column("all", justify="right")
    by_table.add_column("second half", justify="right")
    for column in ("reliability", "resolution", "uncertainty"):
        by_table.add_column(f"2nd half: {column}", justify="right")
    for name, scores in summary["brier_by_table"].items():
        parts = scores["second_half_parts"]
        by_table.add_row(
            name,
            f"{scores['all']:.3f}",
            f"{scores['second_half']:.3f}",
            *(f"{parts[k]:.3f}" for k in ("reliability", "resolution", "uncertainty")),
        )
    console.print(by_table)
    labels = Table(title="Labels of decisions with a choice, by bot")
    labels.add_column("bot")
    labels.add_column("decisions", justify="right")
    for name in LABELS[1:]:
        labels.add_column(name, justify="right")
    for bot, rates in summary["labels_by_bot"].items():
        labels.add_row(bot, str(rates["decisions"]), *(f"{rates[n]:.1%}" for n in LABELS[1:]))
    console.print(labels)
    console.print(
        "blunders by quarter of the round: "
        + "; ".join(
            f"{bot} " + " ".join(f"{rate:.1%}" for rate in rates)
            for bot, rates in summary["blunders_by_quarter"].items()
        )
    )
    ratio = summary["blunder_ratio_random_to_greedy"]
    console.print(
        "random blunders "
        + ("(no random or no greedy blunder)" if ratio is None else f"{ratio:.1f}x as greedy's")
        + " (target >= 2.5x, issue 23); marked: "
        + ", ".join(MARKED)
    )
    rechecked = Table(
        title="Marked moves judged again: in fresh worlds, and in the true deal (greedy on)"
    )
    for column in (
        "bot",
        "label",
        "decisions",
        "estimated loss",
        "fresh worlds: loss",
        "share still losing",
        "true deal: loss",
    ):
        rechecked.add_column(column, justify="left" if column in ("bot", "label") else "right")
    for bot, checks in summary["recheck_by_bot"].items():
        for name, check in checks.items():
            if check["decisions"]:
                rechecked.add_row(
                    bot,
                    name,
                    str(check["decisions"]),
                    f"{check['mean_estimated_loss']:.1%}",
                    f"{check['mean_loss']:.1%}",
                    f"{check['share_confirmed']:.0%}",
                    f"{check['mean_true_lead']:.1%}",
                )
    console.print(rechecked)
    cost = summary["cpu_seconds_per_round"]
    console.print(
        f"CPU seconds per round: mean {cost['mean']:.2f}, median {cost['p50']:.2f}, "
        f"p95 {cost['p95']:.2f}, max {cost['max']:.2f} over {summary['rounds']} rounds "
        f"({summary['rollouts_per_decision']:.0f} rollouts a decision)"
    )


def read_records(path: Path) -> list[DecisionRecord]:
    """The records of whole matches in a decisions file (the file is rewritten without a
    match cut short by an interruption, so that more can be appended)."""
    records: list[DecisionRecord] = []
    with path.open() as lines:
        for line in lines:
            try:
                records.append(DecisionRecord(**json.loads(line)))
            except (ValueError, TypeError):
                break  # the line being written when the run stopped
    by_match: dict[tuple[str, int], list[DecisionRecord]] = {}
    for record in records:
        by_match.setdefault((record.table, record.match), []).append(record)
    complete = [
        record
        for mine in by_match.values()
        # every decision of each analysed round is there
        if len(mine) == sum(n for _, n in {(r.round_number, r.decisions) for r in mine})
        for record in mine
    ]
    with path.open("w") as lines:
        for record in complete:
            lines.write(json.dumps(asdict(record)) + "\n")
    return complete


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=50, help="matches per table (default 50)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games (default 1)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--worlds", type=int, default=64, help="worlds per decision (default 64)")
    parser.add_argument("--quick", action="store_true", help="1 match per table, 32 worlds")
    names = ", ".join(table_name(table) for table in TABLES)
    parser.add_argument(
        "--tables",
        help=f"comma-separated tables to play (default: all of {names})",
    )
    parser.add_argument("--out", type=Path, default=Path("bench-results"), help="output folder")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the matches already in the output's decisions file and play the rest "
        "(an interrupted run goes on; figures cover the first --matches of each table)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.matches, args.worlds = 1, 32
    if args.matches < 1 or args.jobs < 1 or args.worlds < 2:
        parser.error("--matches and --jobs must be at least 1, --worlds at least 2")
    tables = TABLES
    if args.tables is not None:
        wanted = [name.strip() for name in args.tables.split(",") if name.strip()]
        unknown = sorted(set(wanted) - {table_name(table) for table in TABLES})
        if unknown or not wanted:
            parser.error(f"--tables: unknown {', '.join(unknown) or '(none given)'}; {names}")
        tables = tuple(table for table in TABLES if table_name(table) in wanted)
    console = Console()
    if not console.is_terminal:
        console = Console(width=120)
    args.out.mkdir(parents=True, exist_ok=True)
    only = "" if args.tables is None else "_" + "_".join(table_name(t) for t in tables)
    stem = f"analysis_seed{args.seed}{'_quick' if args.quick else ''}{only}"
    decisions_file = args.out / f"{stem}_decisions.jsonl"
    records: list[DecisionRecord] = []
    if args.resume and decisions_file.exists():
        records = read_records(decisions_file)
        # --matches says how many matches a table the figures cover.
        records = [r for r in records if r.match < args.matches]
    done = {(r.table, r.match) for r in records}
    tasks = [
        (table, args.seed, index)
        for index in range(args.matches)
        for table in tables
        if (table_name(table), index) not in done
    ]
    started = time.perf_counter()
    with (
        progress_bar(console) as progress,
        ProcessPoolExecutor(max_workers=args.jobs) as pool,
        # Each match's records are kept as it finishes: an interrupted run goes on with
        # --resume.
        decisions_file.open("a" if args.resume else "w") as lines,
    ):
        task = progress.add_task("matches analysed", total=len(tasks))
        futures = [pool.submit(analyse_match, t, s, i, args.worlds) for t, s, i in tasks]
        for finished, future in enumerate(as_completed(futures), 1):
            match_records = future.result()
            records.extend(match_records)
            for record in match_records:
                lines.write(json.dumps(asdict(record)) + "\n")
            lines.flush()
            progress.advance(task)
            if not console.is_terminal:
                elapsed = time.perf_counter() - started
                print(f"{finished}/{len(tasks)} matches in {elapsed:.0f} s", flush=True)
    records.sort(key=lambda r: (r.table, r.match, r.round_number, r.index))
    summary = summarize(records)
    command = "python bench/analysis.py " + " ".join(sys.argv[1:] if argv is None else argv)
    summary.update(
        command=command.strip(),
        seconds=round(time.perf_counter() - started, 1),
        jobs=args.jobs,
        worlds=args.worlds,
        load_average=[round(x, 2) for x in os.getloadavg()],
    )
    print_report(summary, console)
    (args.out / f"{stem}.json").write_text(json.dumps(summary, indent=2) + "\n")
    chart = args.out / f"{stem}_calibration.png"
    try:
        write_chart(
            summary, chart, f"Post-game analysis: {summary['rounds']} rounds, {args.worlds} worlds"
        )
    except ImportError:
        console.print("no chart: matplotlib is missing (pip install 'fouronefour[charts]')")
    written = f"{args.out / stem}.json, _decisions.jsonl, _calibration.png"
    console.print(f"wrote {written} in {summary['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
