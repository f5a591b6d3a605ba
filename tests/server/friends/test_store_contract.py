"""The friends' store on SQLite and on PostgreSQL alike (friends/store.py): each test runs
once against each, over a fresh file or database, beside the players' own tables (the
migration step is the players' last)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from fouronefour.server.friends.store import FriendStore, Invite, Relation
from fouronefour.server.players.sqlstore import SqlPlayerStore
from fouronefour.server.players.values import MatchRecord, MatchSeat, Profile, Rating
from tests.server.playerstores import StoreFactory

T = TypeVar("T")
NOW = 1_700_000_000_000


def run(make: StoreFactory, scenario: Callable[[SqlPlayerStore, FriendStore], Awaitable[T]]) -> T:
    async def main() -> T:
        players = make()
        await players.open()
        try:
            return await scenario(players, FriendStore(players.db))
        finally:
            await players.close()

    return asyncio.run(main())


async def people(players: SqlPlayerStore, *names: str) -> list[str]:
    ids = []
    for name in names:
        profile = Profile(name.lower(), name, "fox", "en", NOW, NOW, name.lower() + "_u",
                          Rating(25.0, 25 / 3))  # fmt: skip
        await players.create_profile(profile)
        ids.append(profile.id)
    return ids


def test_a_request_accepted_makes_two_friends_and_is_gone(make_store: StoreFactory) -> None:
    async def scenario(players: SqlPlayerStore, store: FriendStore) -> None:
        ann, bob = await people(players, "Ann", "Bob")
        assert (await store.by_username("bob_u")) is not None
        assert await store.ask(ann, bob, NOW)
        assert not await store.ask(ann, bob, NOW + 1)  # (once)
        assert await store.relation(ann, bob) == Relation(asked=True)
        assert await store.relation(bob, ann) == Relation(asked_by=True)
        assert [p.id for p in await store.incoming(bob)] == [ann]
        assert [p.id for p in await store.outgoing(ann)] == [bob]
        assert await store.accept(ann, bob, NOW, 10) == "no_request"  # (Ann did not receive)
        assert await store.accept(bob, ann, NOW + 5, 10) == "friends"
        assert await store.relation(ann, bob) == Relation(friends=True)
        assert [p.id for p in await store.friends(ann)] == [bob]
        assert await store.friend_ids(bob) == [ann]
        assert await store.incoming(bob) == [] and await store.outgoing(ann) == []
        counts = await store.counts(ann)
        assert (counts.friends, counts.outgoing, counts.incoming) == (1, 0, 0)
        assert await store.unfriend(bob, ann)
        assert await store.friends(ann) == [] and await store.friends(bob) == []

    run(make_store, scenario)


def test_a_declined_request_is_hidden_from_its_recipient_only(make_store: StoreFactory) -> None:
    async def scenario(players: SqlPlayerStore, store: FriendStore) -> None:
        ann, bob = await people(players, "Ann", "Bob")
        await store.ask(ann, bob, NOW)
        assert await store.decline(bob, ann)
        assert not await store.decline(bob, ann)  # (once)
        assert await store.incoming(bob) == []
        assert [p.id for p in await store.outgoing(ann)] == [bob]
        assert not await store.ask(ann, bob, NOW + 1)  # (asking again changes nothing)
        assert await store.incoming(bob) == []
        assert (await store.counts(bob)).incoming == 0
        # Bob changes his mind and asks Ann: that is an acceptance.
        assert await store.relation(bob, ann) == Relation(asked_by=True)
        assert await store.accept(bob, ann, NOW, 10) == "friends"

    run(make_store, scenario)


def test_limits_hold_inside_the_accepting_transaction(make_store: StoreFactory) -> None:
    async def scenario(players: SqlPlayerStore, store: FriendStore) -> None:
        ann, bob, cy = await people(players, "Ann", "Bob", "Cy")
        await store.ask(bob, ann, NOW)
        await store.ask(cy, ann, NOW)
        assert await store.accept(ann, bob, NOW, 1) == "friends"
        assert await store.accept(ann, cy, NOW, 1) == "full"
        assert [p.id for p in await store.incoming(ann)] == [cy]  # (still waiting)

    run(make_store, scenario)


def test_a_block_ends_the_friendship_and_hides_the_blocked_ones_request(
    make_store: StoreFactory,
) -> None:
    async def scenario(players: SqlPlayerStore, store: FriendStore) -> None:
        ann, bob = await people(players, "Ann", "Bob")
        await store.ask(ann, bob, NOW)
        await store.accept(bob, ann, NOW, 10)
        invite = Invite("i1", bob, ann, "ABCD", "/t/ABCD", NOW, NOW + 600_000)
        assert await store.add_invite(invite, 5)
        await store.block(ann, bob, NOW)
        assert await store.relation(ann, bob) == Relation(blocks=True)
        assert await store.relation(bob, ann) == Relation(blocked_by=True)
        assert await store.invites_for(ann, NOW) == []  # (Bob's invite went)
        # Bob asks again: kept (he sees it waiting), never shown to Ann.
        assert await store.ask(bob, ann, NOW + 1)
        assert [p.id for p in await store.outgoing(bob)] == [ann]
        assert await store.incoming(ann) == []
        assert [p.id for p in await store.blocks(ann)] == [bob]
        assert await store.unblock(ann, bob) and not await store.unblock(ann, bob)
        assert [p.id for p in await store.incoming(ann)] == [bob]

    run(make_store, scenario)


def test_invites_wait_until_seen_or_expired_and_are_limited(make_store: StoreFactory) -> None:
    async def scenario(players: SqlPlayerStore, store: FriendStore) -> None:
        ann, bob = await people(players, "Ann", "Bob")
        for n in range(3):
            made = Invite(f"i{n}", ann, bob, "ABCD", "/t/ABCD", NOW + n, NOW + 1000 + n)
            assert await store.add_invite(made, 3)
        assert not await store.add_invite(Invite("i9", ann, bob, "X", "/t/X", NOW, NOW + 9), 3)
        waiting = await store.invites_for(bob, NOW + 10)
        assert [i.id for i in waiting] == ["i2", "i1", "i0"]
        assert waiting[0].from_name == "Ann" and waiting[0].link == "/t/ABCD"
        assert [i.id for i in await store.invites_from(ann, NOW + 10)] == ["i2", "i1", "i0"]
        assert not await store.seen(ann, "i2")  # (only its recipient sees it)
        assert await store.seen(bob, "i2")
        assert [i.id for i in await store.invites_for(bob, NOW + 1000)] == ["i1"]
        assert await store.forget_expired(NOW + 1000) == 1
        assert [i.id for i in await store.invites_for(bob, NOW)] == ["i1"]

    run(make_store, scenario)


def test_played_together_reads_the_recorded_matches(make_store: StoreFactory) -> None:
    async def scenario(players: SqlPlayerStore, store: FriendStore) -> None:
        ann, bob, cy = await people(players, "Ann", "Bob", "Cy")
        seats = tuple(
            MatchSeat(seat, seat % 2, name, 1 if seat % 2 == 0 else 2, seat + 1, profile)
            for seat, (name, profile) in enumerate(
                [("Ann", ann), ("Bot", None), ("Bob", bob), ("Bot", None)]
            )
        )
        await players.record_match(MatchRecord("TBL1", 1, NOW, False, seats, 1))
        assert await store.played_together(ann, bob)
        assert await store.played_together(bob, ann)
        assert not await store.played_together(ann, cy)

    run(make_store, scenario)


def test_a_profile_deleted_leaves_nothing_here(make_store: StoreFactory) -> None:
    async def scenario(players: SqlPlayerStore, store: FriendStore) -> None:
        ann, bob, cy = await people(players, "Ann", "Bob", "Cy")
        await store.ask(ann, bob, NOW)
        await store.accept(bob, ann, NOW, 10)
        await store.ask(cy, ann, NOW)
        await store.block(ann, cy, NOW)
        await store.add_invite(Invite("i1", ann, bob, "ABCD", "/t/ABCD", NOW, NOW + 9), 5)
        await store.forget(ann)
        for other in (bob, cy):
            assert await store.friends(other) == [] and await store.outgoing(other) == []
            assert await store.invites_for(other, NOW) == []
            assert await store.relation(other, ann) == Relation()
        # A guest forgotten by retention (no forget called): swept by the tidy pass.
        await store.ask(bob, cy, NOW)
        await players.delete_profile(cy)
        assert await store.outgoing(bob) == []  # (hidden at once)
        await store.forget_expired(NOW)
        assert (await store.counts(bob)).outgoing == 0

    run(make_store, scenario)
