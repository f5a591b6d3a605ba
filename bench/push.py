"""Web Push's sender (server/push/webpush.py) at load: how many notices a second it posts,
what a ``notify`` call costs the event loop, and how late the loop runs meanwhile.

    python bench/push.py                        # 100 profiles x 10 devices, 3 notices each
    python bench/push.py --profiles 300 --notices 5

The push service is the tests' own (tests/server/push/pushservice.py: TLS on loopback; it
checks every VAPID signature and decrypts every payload), in a process of its own so that
its work is not the sender's. The sender runs as the server runs it: the players' SQLite
store, its queue and its posts at once (``--senders``, default the server's). Reported:
deliveries accepted and their rate; ``notify`` p50/p99 (the database reads and the
queueing: what a route or a table waits); the loop's lateness p99/max on a 5 ms ticker
while everything is sent, and for 3 s before with nothing sent (the machine's own).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fouronefour.server.notify import Notice
from fouronefour.server.players.service import Players
from fouronefour.server.players.sqlite import sqlite_players
from fouronefour.server.push.store import PushStore
from fouronefour.server.push.subscriptions import check_subscription
from fouronefour.server.push.webpush import QUEUE, SENDERS, WebPush


def push_service(devices: int, folder: str, pipe: Connection) -> None:
    """The push service's process: makes the devices, answers posts, reports what it got."""
    from tests.server.push.pushservice import RunningPushService

    running = RunningPushService(Path(folder))
    service = running.service
    pipe.send((str(service.cert), [service.device()[1] for _ in range(devices)]))
    pipe.recv()  # (the sender is done)
    pipe.send((len(service.received), len(service.refused)))
    running.close()


async def send(args: argparse.Namespace, cert: str, subscriptions: list[Any], folder: str) -> None:
    os.environ["SSL_CERT_FILE"] = cert
    players = Players(sqlite_players(str(Path(folder) / "players.db")))
    await players.store.open()
    store = PushStore(players.store.db)  # type: ignore[attr-defined]

    async def language_of(profile_id: str) -> str:
        return "en"

    room = max(QUEUE, len(subscriptions) * args.notices)
    sender = WebPush(store, await store.keys(), "mailto:bench@example.org", language_of,
                     queue=room, senders=args.senders)  # fmt: skip
    sender.start()
    profiles = []
    for n in range(args.profiles):
        profile = (await players.start_guest(None)).profile
        for body in subscriptions[n * 10 : n * 10 + 10]:
            await store.subscribe(profile.id, check_subscription(body, private_hosts=True), 1)
        profiles.append(profile.id)
    lateness: list[float] = []
    done = False

    async def ticker() -> None:
        while not done:
            before = time.perf_counter()
            await asyncio.sleep(0.005)
            lateness.append(time.perf_counter() - before - 0.005)

    # The loop's lateness on this machine with nothing being sent: the baseline.
    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(3)
    idle = sorted(lateness)
    lateness.clear()
    started = time.perf_counter()
    calls = []
    notice = Notice("invite", "/t/ABCD", {"from": "Ann", "table": "ABCD"}, "invite-ABCD")
    for _ in range(args.notices):
        for profile_id in profiles:
            before = time.perf_counter()
            await sender.notify(profile_id, notice)
            calls.append(time.perf_counter() - before)
    await sender.drain()
    wall = time.perf_counter() - started
    done = True
    await ticking
    await sender.close()
    await players.store.close()
    calls.sort()
    lateness.sort()
    print(
        f"{sender.sent} deliveries accepted ({sender.failed} failed, {sender.dropped} dropped) "
        f"in {wall:.2f} s: {sender.sent / wall:.0f} a second"
    )
    print(
        f"notify: p50 {statistics.median(calls) * 1000:.2f} ms, "
        f"p99 {calls[int(len(calls) * 0.99)] * 1000:.2f} ms ({len(calls)} calls)"
    )
    print(f"loop lateness while sending: p99 {lateness[int(len(lateness) * 0.99)] * 1000:.1f} ms, "
          f"max {lateness[-1] * 1000:.1f} ms; idle before: p99 "
          f"{idle[int(len(idle) * 0.99)] * 1000:.1f} ms, max {idle[-1] * 1000:.1f} ms")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profiles", type=int, default=100)
    parser.add_argument("--notices", type=int, default=3)
    parser.add_argument("--senders", type=int, default=SENDERS, help="posts at once")
    args = parser.parse_args()
    folder = tempfile.mkdtemp()
    here, there = multiprocessing.Pipe()
    child = multiprocessing.get_context("spawn").Process(
        target=push_service, args=(args.profiles * 10, folder, there)
    )
    child.start()
    cert, subscriptions = here.recv()
    asyncio.run(send(args, cert, subscriptions, folder))
    here.send("done")
    received, refused = here.recv()
    child.join()
    print(f"the push service decrypted {received} (refused {refused})")


if __name__ == "__main__":
    main()
