"""Python calls a decision through the table, counted: a noise-free measure of its CPU.

    python bench/table_calls.py [--top 20]

One seeded match at a 4-seat table of bots (one seat a player whose turn timer hands it to
its bot), played in-process on a manual clock (tests/server/conftest.py's ``Harness``: the
real Table, its steps, views, fan-out and SQLite storage), under cProfile. Printed: the
decisions, the calls counted (Python and C functions) and the calls a decision. Unlike a
time, the count is the same on a loaded machine as on a quiet one, so two commits compare
exactly: run it in each (e.g. ``PYTHONPATH=../other/src python bench/table_calls.py``).
``--top N`` lists the N functions with the most calls.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.server.conftest: the table harness


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--top", type=int, default=0, help="list the N most called functions")
    args = parser.parse_args()

    from tests.server.conftest import Harness

    from fouronefour.server.clock import ManualScheduler
    from fouronefour.server.storage.sqlite import GroupCommitStorage
    from fouronefour.server.tables.fanout import InProcessFanout

    with tempfile.TemporaryDirectory(prefix="414-calls-") as folder:
        storage = GroupCommitStorage(str(Path(folder) / "tables.db"))
        harness = Harness(ManualScheduler(), storage, InProcessFanout(), [11, 22, 33, 44])
        profile = cProfile.Profile()
        profile.enable()
        table, _ = harness.table(
            humans=1, hook_mode="fair", bot="random", turn_seconds=0.001, hook_seconds=0.001
        )
        harness.scheduler.run_until_idle()
        profile.disable()
        storage.close()
    assert table.match is not None and table.match.is_over
    decisions = len(table.match.moves)
    stats = pstats.Stats(profile)
    calls: int = stats.total_calls  # type: ignore[attr-defined]
    print(f"{decisions:,} decisions, {calls:,} calls: {calls / decisions:.0f} calls a decision")
    if args.top:
        counted: dict[str, int] = {}
        for (file, _, name), (_, count, *_) in stats.stats.items():  # type: ignore[attr-defined]
            key = f"{Path(file).name}:{name}"
            counted[key] = counted.get(key, 0) + count
        for key, count in sorted(counted.items(), key=lambda kv: -kv[1])[: args.top]:
            print(f"{count / decisions:8.1f}  {key}")


if __name__ == "__main__":
    main()
