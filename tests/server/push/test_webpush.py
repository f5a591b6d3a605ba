"""The Web Push sender (push/webpush.py) against a local push service that checks the VAPID
signature and decrypts every payload with the device's own private key."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from fouronefour.server.notify import Notice
from fouronefour.server.players.service import Players
from fouronefour.server.players.sqlite import sqlite_players
from fouronefour.server.push.store import PushStore
from fouronefour.server.push.subscriptions import check_subscription
from fouronefour.server.push.webpush import WebPush

from .pushservice import PushService

CONTACT = "mailto:ops@example.org"
Scenario = Callable[[Players, PushStore, WebPush], Awaitable[None]]


def run(tmp_path: Path, scenario: Scenario, **sender: object) -> None:
    async def main() -> None:
        players = Players(sqlite_players(str(tmp_path / "players.db")))
        await players.store.open()
        store = PushStore(players.store.db)  # type: ignore[attr-defined]

        async def language_of(profile_id: str) -> str | None:
            profile = await players.store.get_profile(profile_id)
            return None if profile is None or profile.deleted else profile.language

        webpush = WebPush(store, await store.keys(), CONTACT, language_of, **sender)  # type: ignore[arg-type]
        webpush.start()
        try:
            await scenario(players, store, webpush)
        finally:
            await webpush.close()
            await players.store.close()

    asyncio.run(main())


def invite(table: str = "ABCD") -> Notice:
    return Notice("invite", f"/t/{table}", {"from": "Ann", "table": table}, tag=f"invite-{table}")


def test_a_notice_reaches_every_device_signed_and_encrypted_in_the_players_language(
    tmp_path: Path, push_service: PushService
) -> None:
    async def scenario(players: Players, store: PushStore, webpush: WebPush) -> None:
        bea = (await players.start_guest(None, "de")).profile
        _, phone_subscription = push_service.device()
        _, laptop_subscription = push_service.device()
        for body in (phone_subscription, laptop_subscription):
            await store.subscribe(bea.id, check_subscription(body, private_hosts=True), 1)
        assert await webpush.notify(bea.id, invite()) == 2
        await webpush.drain()
        assert webpush.sent == 2 and webpush.failed == 0

    run(tmp_path, scenario)
    received = push_service.wait(2)
    assert {r.device for r in received} == set(push_service.devices)
    assert not push_service.refused
    for notice in received:
        assert notice.payload == {
            "kind": "invite",
            "title": "Ann lädt dich an einen Tisch ein",
            "body": "Tisch ABCD: tippen zum Mitspielen",
            "url": "/t/ABCD",
            "tag": "invite-ABCD",
        }
        # Signed by the server's key for this push service, naming its operator, for a
        # while only; kept briefly and urgent (an invite).
        assert notice.claims["aud"] == push_service.url
        assert notice.claims["sub"] == CONTACT
        assert time.time() < notice.claims["exp"] <= time.time() + 24 * 3600
        assert notice.headers["ttl"] == "900" and notice.headers["urgency"] == "high"
        assert len(notice.headers["topic"]) <= 32


def test_the_key_that_signs_is_the_one_kept(tmp_path: Path, push_service: PushService) -> None:
    kept: list[str] = []

    async def scenario(players: Players, store: PushStore, webpush: WebPush) -> None:
        ann = (await players.start_guest(None)).profile
        _, subscription = push_service.device()
        await store.subscribe(ann.id, check_subscription(subscription, private_hosts=True), 1)
        await webpush.notify(ann.id, invite())
        await webpush.drain()
        kept.append((await store.keys()).public)

    run(tmp_path, scenario)
    assert push_service.wait(1)[0].key == kept[0] == PushStore_public(tmp_path)


def PushStore_public(tmp_path: Path) -> str:
    """The public key in the database, read again by a new store (a restart)."""

    async def read() -> str:
        store = sqlite_players(str(tmp_path / "players.db"))
        await store.open()
        try:
            return (await PushStore(store.db).keys()).public
        finally:
            await store.close()

    return asyncio.run(read())


def test_a_device_gone_is_forgotten_and_the_others_kept(
    tmp_path: Path, push_service: PushService
) -> None:
    async def scenario(players: Players, store: PushStore, webpush: WebPush) -> None:
        ann = (await players.start_guest(None)).profile
        _, gone = push_service.device(status=410)
        _, lost = push_service.device(status=404)
        _, kept = push_service.device()
        for body in (gone, lost, kept):
            await store.subscribe(ann.id, check_subscription(body, private_hosts=True), 1)
        assert await webpush.notify(ann.id, invite()) == 3
        await webpush.drain()
        assert webpush.forgotten == 2 and webpush.sent == 1
        left = [s.endpoint for s, _ in await store.subscriptions(ann.id)]
        assert left == [kept["endpoint"]]
        # The next notice goes to the device left only.
        assert await webpush.notify(ann.id, invite()) == 1
        await webpush.drain()

    run(tmp_path, scenario)
    assert len(push_service.wait(4)) == 4  # (each of the three once, then the one kept)


def test_a_kind_switched_off_sends_nothing_and_nobody_else_is_told(
    tmp_path: Path, push_service: PushService
) -> None:
    async def scenario(players: Players, store: PushStore, webpush: WebPush) -> None:
        ann = (await players.start_guest(None)).profile
        never_subscribed = (await players.start_guest(None)).profile
        _, subscription = push_service.device()
        await store.subscribe(ann.id, check_subscription(subscription, private_hosts=True), 1)
        await store.change_settings(ann.id, {"invite": False})
        assert await webpush.notify(ann.id, invite()) == 0
        assert await webpush.notify(never_subscribed.id, invite()) == 0
        turn = Notice("turn", "/t/ABCD", {"table": "ABCD"}, tag="turn-ABCD")
        assert await webpush.notify(ann.id, turn) == 1
        await webpush.drain()
        # A deleted profile's devices are gone with it.
        assert await players.store.delete_profile(ann.id)
        assert await store.subscriptions(ann.id) == []
        assert await webpush.notify(ann.id, turn) == 0

    run(tmp_path, scenario)
    received = push_service.wait(1)
    time.sleep(0.2)
    assert [r.payload["kind"] for r in push_service.received] == ["turn"]
    assert received[0].payload["title"] == "Your turn"
    assert received[0].payload["body"] == "Table ABCD is waiting for your move"


def test_a_full_queue_drops_and_a_slow_push_service_never_holds_the_loop(
    tmp_path: Path, push_service: PushService
) -> None:
    push_service.delay = 0.6

    async def scenario(players: Players, store: PushStore, webpush: WebPush) -> None:
        ann = (await players.start_guest(None)).profile
        for _ in range(10):
            _, subscription = push_service.device()
            await store.subscribe(ann.id, check_subscription(subscription, private_hosts=True), 1)
        # Room for 4 waiting: of the notice's 10 deliveries, 4 are queued, 6 dropped.
        assert await webpush.notify(ann.id, invite()) == 4
        assert webpush.dropped == 6
        # While the worker waits on the slow service, the loop goes on: 50 ticks of 10 ms,
        # none of them held up for as long as a delivery takes (a loaded machine's own
        # lateness stays well under it).
        late = 0.0
        for _ in range(50):
            before = time.monotonic()
            await asyncio.sleep(0.01)
            late = max(late, time.monotonic() - before - 0.01)
        assert late < push_service.delay / 2, late
        await webpush.drain()
        assert webpush.sent == 4

    run(tmp_path, scenario, queue=4, senders=1)


def test_a_worker_killed_is_replaced_by_the_next_batch(
    tmp_path: Path, push_service: PushService
) -> None:
    async def scenario(players: Players, store: PushStore, webpush: WebPush) -> None:
        ann = (await players.start_guest(None)).profile
        _, subscription = push_service.device()
        await store.subscribe(ann.id, check_subscription(subscription, private_hosts=True), 1)
        assert await webpush.notify(ann.id, invite()) == 1
        await webpush.drain()
        assert webpush.sent == 1
        pool = webpush._pool
        assert pool is not None
        for process in list(pool._processes.values()):  # (the out-of-memory killer, say)
            os.kill(process.pid, signal.SIGKILL)
        await asyncio.sleep(0.5)
        for _ in range(2):  # (the first may meet the broken pool)
            await webpush.notify(ann.id, invite())
            await webpush.drain()
        assert webpush.sent >= 2 and webpush._pool is not pool

    run(tmp_path, scenario)
