"""A club's Swiss event played end to end by bots through a real server.

    python bench/tournament.py                       # 16 pairs, 5 rounds, one round of 414
    python bench/tournament.py --pairs 8 --rounds 3 --length 5 --bot strong

The server is the real app (create_app) under uvicorn on a free port of this machine, on
a SQLite file in a temporary directory, with in-memory clubs (tournaments/access.py
``MemoryClubs``: the clubs' room is another part of the issue). ``2 * --pairs`` players
each get a guest profile and session over HTTP, join the club, and register with their
partner; the owner sets the event up and starts it over HTTP. No player ever opens a table:
each table waits out the grace time (``--grace``), starts with every seat away, and the
bots play it, as they would for absent players. The bench reads the event over HTTP until
it is finished, then checks every table of every round through ``GET /api/tables/CODE``
(with its invite: an event's tables are private):
started (a match was dealt), decided in the event, and (after it, ``--settle`` seconds at
most) finished: a decided table plays on to its match's end.

Claim windows wait for their time even at a table of bots (tables/windows.py): the bench
gives them ``--hook-seconds`` (default 0.05) and the bots ``--bot-delay`` (default 0), so
the figure is the server's work, not the clocks a table of people would wait for.

Reported: the wall time from the start to the event's end, each round's, the tables made,
started, decided and finished, and whether no two pairs met twice.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import uvicorn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from fouronefour.server.app import create_app  # noqa: E402
from fouronefour.server.config import ServerConfig  # noqa: E402
from fouronefour.server.tournaments.access import MemoryClubs  # noqa: E402

PORTS = range(8240, 8250)


class Player:
    def __init__(self, url: str) -> None:
        self.http = httpx.Client(base_url=url, timeout=30)
        answer = self.http.get("/api/me")
        answer.raise_for_status()
        self.id: str = answer.json()["profile"]["id"]
        self.csrf: str = answer.json()["csrf"]

    def post(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = self.http.post(path, json=body or {}, headers={"X-CSRF-Token": self.csrf})
        if answer.is_error:
            raise RuntimeError(f"{path}: {answer.status_code} {answer.text}")
        result: dict[str, Any] = answer.json()
        return result

    def get(self, path: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
        answer = self.http.get(path, headers=headers)
        answer.raise_for_status()
        result: dict[str, Any] = answer.json()
        return result


def free_port() -> int:
    import socket

    for port in PORTS:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise SystemExit(f"no free port in {PORTS.start}-{PORTS.stop - 1}")


def serve(config: ServerConfig, clubs: MemoryClubs) -> tuple[uvicorn.Server, str]:
    port = free_port()
    app = create_app(config, clubs=clubs)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            raise SystemExit("the server did not start")
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--length", default="round", help="round, a level 3..A, or match")
    parser.add_argument("--bot", default="greedy")
    parser.add_argument("--grace", type=int, default=1, help="seconds a table waits")
    parser.add_argument("--hook-seconds", type=float, default=0.05)
    parser.add_argument("--bot-delay", type=float, default=0.0)
    parser.add_argument("--settle", type=float, default=300.0)
    parser.add_argument("--timeout", type=float, default=1800.0)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        config = ServerConfig(
            db=str(Path(scratch) / "bench.db"),
            bot_delay=args.bot_delay,
            hook_seconds=args.hook_seconds,
            bot_processes=0,
        )
        clubs = MemoryClubs()
        server, url = serve(config, clubs)
        try:
            run(args, url, clubs)
        finally:
            server.should_exit = True


def run(args: argparse.Namespace, url: str, clubs: MemoryClubs) -> None:
    players = [Player(url) for _ in range(2 * args.pairs)]
    members = clubs.clubs.setdefault("bench", {})
    for i, player in enumerate(players):
        members[player.id] = "owner" if i == 0 else "member"
    owner = players[0]
    setup = {"name": "Bench Swiss", "format": "swiss", "entry": "pairs", "rounds": args.rounds,
             "length": args.length, "grace_seconds": args.grace, "bot": args.bot}  # fmt: skip
    event = owner.post("/api/clubs/bench/events", setup)
    path = f"/api/events/{event['id']}"
    for first, second in zip(players[::2], players[1::2], strict=True):
        first.post(f"{path}/register", {"partner": second.id})

    started = time.monotonic()
    owner.post(f"{path}/start")
    round_ends: dict[int, float] = {}
    while True:
        shown = owner.get(path)
        for round_ in shown["schedule"]:
            tables = round_["tables"]
            if tables and all(t["status"] == "decided" for t in tables):
                round_ends.setdefault(round_["round"], time.monotonic() - started)
        if shown["status"] == "finished":
            break
        if time.monotonic() - started > args.timeout:
            raise SystemExit(f"the event did not finish in {args.timeout} s")
        time.sleep(0.25)
    wall = time.monotonic() - started

    # (Private tables: the event's page gives its members each one's invite.)
    invites = {
        t["code"]: t["link"].split("#invite=")[1] for r in shown["schedule"] for t in r["tables"]
    }
    codes = list(invites)

    def table(code: str) -> dict[str, Any]:
        return owner.get(f"/api/tables/{code}", {"X-Invite": invites[code]})

    decided = sum(t["status"] == "decided" for r in shown["schedule"] for t in r["tables"])
    began = sum(table(code)["match_number"] >= 1 for code in codes)
    met = Counter(
        frozenset((t["north"][0]["entrant"], t["east"][0]["entrant"]))
        for r in shown["schedule"]
        for t in r["tables"]
    )
    settle_start = time.monotonic()
    left = set(codes)
    while left and time.monotonic() - settle_start < args.settle:
        left = {c for c in left if table(c)["status"] != "finished"}
        time.sleep(0.5)
    settled = time.monotonic() - settle_start

    print(f"event: {args.pairs} pairs, Swiss, {args.rounds} rounds, length {args.length}, "
          f"bots {args.bot}, grace {args.grace} s, hook windows {args.hook_seconds} s")  # fmt: skip
    print(f"wall time, start to finished: {wall:.1f} s")
    print("each round decided at (s): " + ", ".join(
        f"r{n} {t:.1f}" for n, t in sorted(round_ends.items())))  # fmt: skip
    done = len(codes) - len(left)
    print(f"tables: {len(codes)} made, {began} started, {decided} decided in the event, "
          f"{done} finished their match within {settled:.1f} s after")  # fmt: skip
    print(f"pairs that met twice: {sum(1 for n in met.values() if n > 1)}")
    top = shown["standings"][0]
    print(f"winner: {top['name']} ({top['points']} points, Buchholz {top['buchholz']})")
    if began != len(codes) or decided != len(codes) or left:
        raise SystemExit("not every table started, was decided and finished")


if __name__ == "__main__":
    main()
