"""How long after a round ends its analysis is ready, on a server at its defaults.

    python bench/analysis_latency.py [--tables 2] [--rounds 3] [--seed 1]

Starts a real ``fouronefour serve`` (SQLite, every default: one analysis worker at the
lowest CPU priority, 64 worlds, bots that wait 0.8 s, a 15 s pause after a round), and at
each of ``--tables`` tables one player (this script, a client written from
docs/protocol.md: examples/client.py) with three bots. At each round's end, when the
player's screen shows the round-end pause, it asks for the round's analysis ("Your
decisions") until it is there, as the page does. Prints the time from the round's end to
its analysis, median, p95 and max, against the pause (the analysis is in time if it
arrives within it), and the machine's load average meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
#: The server's default pause after a round (docs/protocol.md, table settings).
PAUSE_SECONDS = 15.0


def load_client() -> Any:
    spec = importlib.util.spec_from_file_location("client", ROOT / "examples" / "client.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["client"] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def wait_healthy(url: str, process: subprocess.Popen[bytes]) -> None:
    async with httpx.AsyncClient() as http:
        for _ in range(600):
            if process.poll() is not None:
                raise RuntimeError("fouronefour serve exited")
            with contextlib.suppress(httpx.HTTPError):
                if (await http.get(f"{url}/api/health")).status_code == 200:
                    return
            await asyncio.sleep(0.1)
    raise RuntimeError("fouronefour serve did not start")


async def analysis_ready(url: str, code: str, token: str, round_number: int) -> None:
    """Ask for a round's analysis with the seat's token until it is there."""
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        while True:
            answer = await http.get(
                f"/api/tables/{code}/analysis",
                params={"round": round_number},
                headers={"X-Token": token},
            )
            if answer.status_code == 200:
                return
            if answer.status_code not in (202, 409):  # 202: being made
                raise RuntimeError(f"analysis of round {round_number}: {answer.text}")
            await asyncio.sleep(0.2)


async def one_table(url: str, seed: int, rounds: int, latencies: list[float]) -> None:
    client = load_client()
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        created = (
            (await http.post("/api/tables", json={"name": "Bench", "players": 4}))
            .raise_for_status()
            .json()
        )
    code, token = created["code"], created["token"]
    import random

    player = client.Player(url, code, token, created["seat"], random.Random(seed), host=True)
    waits: list[asyncio.Task[None]] = []
    seen: set[int] = set()
    original = player._receive

    def receive(message: dict[str, Any]) -> bool:
        over = original(message)
        pause = (player.state or {}).get("round_end")
        if pause and pause["round_number"] not in seen:
            number = pause["round_number"]
            seen.add(number)
            ended = time.monotonic()

            async def timed() -> None:
                await analysis_ready(url, code, token, number)
                latencies.append(time.monotonic() - ended)

            waits.append(asyncio.create_task(timed()))
        return over or len(seen) >= rounds

    player._receive = receive
    await player.play(asyncio.Event())
    await asyncio.gather(*waits)


async def run(tables: int, rounds: int, seed: int) -> dict[str, Any]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        process = subprocess.Popen(
            [sys.executable, "-m", "fouronefour", "serve", "--port", str(port),
             "--db", str(Path(folder) / "bench.db")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            await wait_healthy(url, process)
            latencies: list[float] = []
            started = time.monotonic()
            await asyncio.gather(
                *(one_table(url, seed + i, rounds, latencies) for i in range(tables))
            )
            seconds = time.monotonic() - started
        finally:
            process.terminate()
            process.wait(timeout=30)
    ordered = sorted(latencies)
    return {
        "rounds": len(ordered),
        "median": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
        "max": ordered[-1],
        "in_pause": sum(1 for x in ordered if x <= PAUSE_SECONDS),
        "seconds": seconds,
        "load_average": os.getloadavg(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3, help="rounds per table")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = asyncio.run(run(args.tables, args.rounds, args.seed))
    load = ", ".join(f"{x:.1f}" for x in result["load_average"])
    print(
        f"{result['rounds']} rounds at {args.tables} tables in {result['seconds']:.0f} s "
        f"(load average {load} on {os.cpu_count()} cores)\n"
        f"from a round's end to its analysis: median {result['median']:.1f} s, "
        f"p95 {result['p95']:.1f} s, max {result['max']:.1f} s; "
        f"{result['in_pause']} of {result['rounds']} within the {PAUSE_SECONDS:.0f} s pause"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
