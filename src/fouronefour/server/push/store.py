"""Web Push's rows in the players' database (a :class:`~..players.sqlstore.Db`: SQLite's
file or the cluster's PostgreSQL): the server's VAPID keys, each profile's subscribed
devices and the kinds of notice it switched off (the tables: schema.py). The same SQL runs
on both.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from ..notify import NOTICE_KINDS, NoticeKind
from ..players.sqlstore import Db
from .subscriptions import MAX_PER_PROFILE, Subscription
from .vapid import VapidKeys

R = TypeVar("R")


class PushStore:
    def __init__(self, db: Db) -> None:
        self.db = db

    async def _run(self, work: Callable[[], Coroutine[Any, Any, R]]) -> R:
        return await self.db.run(work())

    async def keys(self, make: Callable[[], VapidKeys] = VapidKeys.make) -> VapidKeys:
        """The server's keys: those kept, else a new pair, kept. Two processes starting at
        once both offer theirs; the first written is the one both read back."""

        async def kept() -> VapidKeys | None:
            async with self.db.read() as conn:
                rows = await conn.fetch(
                    "SELECT private_key, public_key FROM push_keys WHERE id = 1"
                )
            return VapidKeys(rows[0][0], rows[0][1]) if rows else None

        # (Read first: a database that cannot be written still has the keys it kept.)
        found = await self._run(kept)
        if found is not None:
            return found
        offered = make()

        async def work() -> VapidKeys:
            async with self.db.write() as conn:
                await conn.execute(
                    "INSERT INTO push_keys (id, private_key, public_key, created_at)"
                    " VALUES (1, ?, ?, 0) ON CONFLICT (id) DO NOTHING",
                    offered.private,
                    offered.public,
                )
                rows = await conn.fetch(
                    "SELECT private_key, public_key FROM push_keys WHERE id = 1"
                )
            return VapidKeys(rows[0][0], rows[0][1])

        return await self._run(work)

    async def subscribe(self, profile_id: str, subscription: Subscription, now: int) -> None:
        """Keep ``subscription`` as the profile's (again: its keys renewed); beyond
        :data:`MAX_PER_PROFILE` devices, the oldest goes."""

        async def work() -> None:
            async with self.db.write() as conn:
                # (One profile's subscriptions are changed one request at a time.)
                await conn.fetch(
                    f"SELECT id FROM player_profiles WHERE id = ?{self.db.for_update}", profile_id
                )
                await conn.execute(
                    "INSERT INTO push_subscriptions (endpoint, profile_id, p256dh, auth,"
                    " created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (endpoint) DO UPDATE SET"
                    " profile_id = excluded.profile_id, p256dh = excluded.p256dh,"
                    " auth = excluded.auth, created_at = excluded.created_at",
                    subscription.endpoint,
                    profile_id,
                    subscription.p256dh,
                    subscription.auth,
                    now,
                )
                rows = await conn.fetch(
                    "SELECT endpoint FROM push_subscriptions WHERE profile_id = ?"
                    " ORDER BY created_at DESC, endpoint",
                    profile_id,
                )
                for row in rows[MAX_PER_PROFILE:]:
                    await conn.execute("DELETE FROM push_subscriptions WHERE endpoint = ?", row[0])

        await self._run(work)

    async def unsubscribe(self, profile_id: str, endpoint: str) -> bool:
        async def work() -> bool:
            async with self.db.write() as conn:
                return (
                    await conn.execute(
                        "DELETE FROM push_subscriptions WHERE endpoint = ? AND profile_id = ?",
                        endpoint,
                        profile_id,
                    )
                    > 0
                )

        return await self._run(work)

    async def forget(self, endpoint: str, p256dh: str) -> None:
        """The push service said the device is gone (404, 410): forget it, unless the device
        subscribed again meanwhile (new keys)."""

        async def work() -> None:
            async with self.db.write() as conn:
                await conn.execute(
                    "DELETE FROM push_subscriptions WHERE endpoint = ? AND p256dh = ?",
                    endpoint,
                    p256dh,
                )

        await self._run(work)

    async def subscriptions(self, profile_id: str) -> list[tuple[Subscription, int]]:
        """The profile's devices, newest first, with when each subscribed."""

        async def work() -> list[tuple[Subscription, int]]:
            async with self.db.read() as conn:
                rows = await conn.fetch(
                    "SELECT endpoint, p256dh, auth, created_at FROM push_subscriptions"
                    " WHERE profile_id = ? ORDER BY created_at DESC, endpoint",
                    profile_id,
                )
            return [(Subscription(r[0], r[1], r[2]), int(r[3])) for r in rows]

        return await self._run(work)

    async def settings(self, profile_id: str) -> dict[NoticeKind, bool]:
        """Which kinds the profile wants (every kind unless switched off)."""

        async def work() -> dict[NoticeKind, bool]:
            async with self.db.read() as conn:
                rows = await conn.fetch(
                    "SELECT kind, enabled FROM push_settings WHERE profile_id = ?", profile_id
                )
            return _settings(rows)

        return await self._run(work)

    async def change_settings(
        self, profile_id: str, changes: dict[NoticeKind, bool]
    ) -> dict[NoticeKind, bool]:
        async def work() -> dict[NoticeKind, bool]:
            async with self.db.write() as conn:
                for kind, enabled in changes.items():
                    await conn.execute(
                        "INSERT INTO push_settings (profile_id, kind, enabled) VALUES (?, ?, ?)"
                        " ON CONFLICT (profile_id, kind) DO UPDATE SET enabled = excluded.enabled",
                        profile_id,
                        kind,
                        int(enabled),
                    )
                rows = await conn.fetch(
                    "SELECT kind, enabled FROM push_settings WHERE profile_id = ?", profile_id
                )
            return _settings(rows)

        return await self._run(work)

    async def forget_profile(self, profile_id: str) -> None:
        """A deleted profile's devices and choices go."""

        async def work() -> None:
            async with self.db.write() as conn:
                await conn.execute(
                    "DELETE FROM push_subscriptions WHERE profile_id = ?", profile_id
                )
                await conn.execute("DELETE FROM push_settings WHERE profile_id = ?", profile_id)

        await self._run(work)

    async def export(self, profile_id: str) -> dict[str, Any]:
        """What is kept for the profile, for its export (GET /api/me/export)."""
        return {
            "devices": [
                {**s.info(), "subscribed_at": at} for s, at in await self.subscriptions(profile_id)
            ],
            "settings": await self.settings(profile_id),
        }


def _settings(rows: list[Any]) -> dict[NoticeKind, bool]:
    chosen = {row[0]: bool(row[1]) for row in rows}
    return {kind: chosen.get(kind, True) for kind in NOTICE_KINDS}
