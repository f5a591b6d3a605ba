"""Web Push's store (push/store.py) on SQLite and on PostgreSQL alike: the server's keys made
once and shared, a profile's devices and choices, their export and deletion."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from fouronefour.server.players.ratings import NEWCOMER
from fouronefour.server.players.sqlstore import SqlPlayerStore
from fouronefour.server.players.values import Profile
from fouronefour.server.push.store import PushStore
from fouronefour.server.push.subscriptions import MAX_PER_PROFILE, Subscription
from fouronefour.server.push.vapid import VapidKeys
from tests.server.playerstores import StoreFactory

T = TypeVar("T")
P256DH = "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM"
AUTH = "tBHItJI5svbpez7KI4CCXg"


def run(make: StoreFactory, scenario: Callable[[SqlPlayerStore, PushStore], Awaitable[T]]) -> T:
    async def main() -> T:
        store = make()
        await store.open()
        try:
            return await scenario(store, PushStore(store.db))
        finally:
            await store.close()

    return asyncio.run(main())


def device(n: int) -> Subscription:
    return Subscription(f"https://push.example.org/d/{n}", P256DH, AUTH)


async def profile(store: SqlPlayerStore, pid: str) -> str:
    await store.create_profile(Profile(pid, pid.title(), "fox", "en", 1, 1, None, NEWCOMER))
    return pid


def test_two_first_starts_at_once_keep_one_key_pair(make_store: StoreFactory) -> None:
    async def race() -> tuple[VapidKeys, VapidKeys, VapidKeys]:
        first, second = make_store(), make_store()
        await first.open()
        await second.open()
        try:
            a, b = await asyncio.gather(PushStore(first.db).keys(), PushStore(second.db).keys())
        finally:
            await first.close()
            await second.close()
        # A restart reads the same pair again, whatever it would have made.
        again = await asyncio.wait_for(_reopened(make_store), 10)
        return a, b, again

    a, b, again = asyncio.run(race())
    assert a == b == again
    assert again.signer() is not None  # (the private key is the public key's)


async def _reopened(make_store: StoreFactory) -> VapidKeys:
    store = make_store()
    await store.open()
    try:
        return await PushStore(store.db).keys(make=VapidKeys.make)
    finally:
        await store.close()


def test_a_profiles_devices_are_kept_at_most_ten_the_oldest_replaced(
    make_store: StoreFactory,
) -> None:
    async def scenario(store: SqlPlayerStore, push: PushStore) -> None:
        ann = await profile(store, "ann")
        for n in range(MAX_PER_PROFILE + 2):
            await push.subscribe(ann, device(n), 100 + n)
        kept = await push.subscriptions(ann)
        assert [s.endpoint for s, _ in kept] == [
            device(n).endpoint for n in reversed(range(2, MAX_PER_PROFILE + 2))
        ]
        # The same device again: renewed, no second row.
        await push.subscribe(ann, device(5), 500)
        kept = await push.subscriptions(ann)
        assert len(kept) == MAX_PER_PROFILE and kept[0] == (device(5), 500)
        # Another profile signs in on that browser and subscribes it: it is theirs now.
        bob = await profile(store, "bob")
        await push.subscribe(bob, device(5), 600)
        assert [s for s, _ in await push.subscriptions(bob)] == [device(5)]
        assert device(5) not in [s for s, _ in await push.subscriptions(ann)]
        # Unsubscribed by its profile only.
        assert not await push.unsubscribe(ann, device(5).endpoint)
        assert await push.unsubscribe(bob, device(5).endpoint)
        assert await push.subscriptions(bob) == []

    run(make_store, scenario)


def test_a_device_gone_is_forgotten_unless_it_subscribed_again(make_store: StoreFactory) -> None:
    async def scenario(store: SqlPlayerStore, push: PushStore) -> None:
        ann = await profile(store, "ann")
        await push.subscribe(ann, device(1), 1)
        await push.forget(device(1).endpoint, "other keys")
        assert len(await push.subscriptions(ann)) == 1
        await push.forget(device(1).endpoint, P256DH)
        assert await push.subscriptions(ann) == []

    run(make_store, scenario)


def test_settings_export_and_deletion(make_store: StoreFactory) -> None:
    async def scenario(store: SqlPlayerStore, push: PushStore) -> None:
        ann = await profile(store, "ann")
        assert await push.settings(ann) == {"invite": True, "turn": True, "club_event": True}
        assert await push.change_settings(ann, {"turn": False}) == {
            "invite": True,
            "turn": False,
            "club_event": True,
        }
        await push.change_settings(ann, {"turn": True, "club_event": False})
        await push.subscribe(ann, device(1), 7)
        assert await push.export(ann) == {
            "devices": [{**device(1).info(), "subscribed_at": 7}],
            "settings": {"invite": True, "turn": True, "club_event": False},
        }
        assert await store.delete_profile(ann)
        assert await push.subscriptions(ann) == []
        assert await push.settings(ann) == {"invite": True, "turn": True, "club_event": True}

    run(make_store, scenario)
