"""The friends' service over a real SQLite players' database (friends/service.py): the
limits, invites handed to the server's notifier for a closed tab (and never for a profile
that blocks the inviter), throttles counting refused attempts too."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from fouronefour.server.friends import service as friends_service
from fouronefour.server.friends.errors import FriendError
from fouronefour.server.friends.presence import Presence
from fouronefour.server.friends.service import Friends
from fouronefour.server.friends.store import FriendStore
from fouronefour.server.notify import Notice
from fouronefour.server.players.errors import PlayerError
from fouronefour.server.players.service import Current, Players
from fouronefour.server.players.sqlite import sqlite_players
from fouronefour.server.players.throttle import BUDGETS, Attempt, Budget, LocalThrottle


class Told:
    """A notifier that keeps what it was asked to send (as Web Push would send it)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Notice]] = []

    async def notify(self, profile_id: str, notice: Notice) -> int:
        self.sent.append((profile_id, notice))
        return 1


class World:
    def __init__(self, players: Players, friends: Friends, told: Told,
                 tables: dict[str, set[str]]) -> None:  # fmt: skip
        self.players, self.friends, self.told, self.tables = players, friends, told, tables

    async def guest(self, name: str) -> Current:
        signed = await self.players.start_guest(None, name=name)
        current = await self.players.current(signed.token)
        assert current is not None
        return current


def scenario(tmp_path: Path, work: Callable[[World], Awaitable[None]],
             budgets: dict[Attempt, Budget] | None = None) -> None:  # fmt: skip
    async def main() -> None:
        store = sqlite_players(str(tmp_path / "players.db"))
        await store.open()
        tables: dict[str, set[str]] = {}

        async def seated(code: str, invite: str | None) -> set[str] | None:
            return tables.get(code)

        try:
            players = Players(store, throttle=LocalThrottle(budgets))
            told = Told()
            friend_store = FriendStore(store.db)
            friends = Friends(friend_store, players.throttle, Presence(friend_store.friend_ids),
                              seated, lambda: told)  # fmt: skip
            await work(World(players, friends, told, tables))
        finally:
            await store.close()

    asyncio.run(main())


PLENTY = {attempt: Budget(1000, 100.0) for attempt in BUDGETS}


def test_an_invite_is_kept_and_handed_to_the_notifier(tmp_path: Path) -> None:
    async def work(world: World) -> None:
        ann, bob = await world.guest("Ann"), await world.guest("Bob")
        world.tables["ABCD"] = {ann.profile.id, bob.profile.id}
        await world.friends.request(ann, {"id": bob.profile.id, "table": "abcd"})
        await world.friends.accept(bob, ann.profile.id)
        answer = await world.friends.invite(ann, {"id": bob.profile.id, "table": "ABCD"})
        assert answer["status"] == "invited"
        assert world.told.sent == [
            (bob.profile.id,
             Notice("invite", "/t/ABCD", {"from": "Ann", "table": "ABCD"}, "invite:ABCD")),
        ]  # fmt: skip
        waiting = await world.friends.invites(bob)
        assert [(i["link"], i["from"]["name"]) for i in waiting] == [("/t/ABCD", "Ann")]
        # A private table's invite rides in the link (the friend needs it to get in).
        secret = "s3cretInvite_1"
        await world.friends.invite(ann, {"id": bob.profile.id, "table": "ABCD", "invite": secret})
        assert world.told.sent[-1][1].url == f"/t/ABCD#invite={secret}"
        # Blocked: answered the same, nothing kept, nobody notified.
        await world.friends.block(bob, ann.profile.id)
        before = len(world.told.sent)
        again = await world.friends.invite(ann, {"id": bob.profile.id, "table": "ABCD"})
        assert again["status"] == "invited" and len(world.told.sent) == before
        assert await world.friends.invites(bob) == []
        # Export: Ann's sent invites are hers; Bob's block is his.
        assert [b["id"] for b in (await world.friends.export(bob.profile.id))["blocked"]] == [
            ann.profile.id
        ]

    scenario(tmp_path, work, PLENTY)


def test_limits_refuse_with_a_typed_error_and_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(friends_service, "MOST_OUTGOING", 2)
    monkeypatch.setattr(friends_service, "MOST_INCOMING", 2)
    monkeypatch.setattr(friends_service, "MOST_FRIENDS", 1)

    async def work(world: World) -> None:
        people = [await world.guest(f"P{n}") for n in range(5)]
        ann, others = people[0], people[1:]
        world.tables["TAB1"] = {p.profile.id for p in people}

        async def ask(who: Current, whom: Current) -> dict[str, Any]:
            return await world.friends.request(who, {"id": whom.profile.id, "table": "TAB1"})

        await ask(ann, others[0])
        await ask(ann, others[1])
        with pytest.raises(FriendError) as refused:
            await ask(ann, others[2])
        assert refused.value.code == "too_many" and refused.value.status == 409
        assert len(await world.friends.store.outgoing(ann.profile.id)) == 2
        # Two wait for others[3] already: a third is refused.
        await ask(others[0], others[3])
        await ask(others[1], others[3])
        with pytest.raises(FriendError):
            await ask(others[2], others[3])
        # One friend at most: the second acceptance is refused.
        await world.friends.accept(others[0], ann.profile.id)
        with pytest.raises(FriendError) as full:
            await world.friends.accept(others[1], ann.profile.id)
        assert full.value.code == "too_many"
        # Not at the same table, never played: refused.
        with pytest.raises(FriendError) as stranger:
            await world.friends.request(ann, {"id": others[3].profile.id, "table": "NOPE"})
        assert stranger.value.code == "not_allowed" and stranger.value.status == 403

    scenario(tmp_path, work, PLENTY)


def test_refused_attempts_take_from_the_throttle_too(tmp_path: Path) -> None:
    async def work(world: World) -> None:
        ann = await world.guest("Ann")
        burst = BUDGETS[Attempt.INVITE_ACCOUNT].burst
        for _ in range(burst):
            with pytest.raises(FriendError):  # (no such friend: refused, counted)
                await world.friends.invite(ann, {"id": "nobody", "table": "ABCD"})
        with pytest.raises(PlayerError) as throttled:
            await world.friends.invite(ann, {"id": "nobody", "table": "ABCD"})
        assert throttled.value.code == "rate_limited" and throttled.value.retry_after

    scenario(tmp_path, work)
