"""Presence in one process (friends/presence.py, no broker): what each profile socket is
told of its friends, and that a table is named only to a friend at that same table."""

from __future__ import annotations

import asyncio
from typing import Any

from fouronefour.server.friends.presence import GONE_SECONDS, Presence, shown


class Page:
    """A profile socket that keeps what it is sent."""

    def __init__(self, profile: str) -> None:
        self._profile = profile
        self.got: list[dict[str, Any]] = []

    @property
    def profile(self) -> str:
        return self._profile

    def send(self, message: dict[str, Any]) -> None:
        self.got.append(message)

    def close(self) -> None:
        self.got.append({"type": "closed"})

    def status_of(self, friend: str) -> dict[str, Any] | None:
        """The last status this page was told of ``friend``."""
        for message in reversed(self.got):
            if message.get("type") == "presence" and friend in message["friends"]:
                return dict(message["friends"][friend])
        return None


FRIENDS = {"ann": ["bob", "cy"], "bob": ["ann"], "cy": ["ann"]}


async def friend_ids(profile: str) -> list[str]:
    return FRIENDS.get(profile, [])


def test_shown_prefers_a_table_to_online() -> None:
    assert shown([]) == "" and shown(["", "online"]) == "online"
    assert shown(["online", "table:ABCD"]) == "table:ABCD"


def test_friends_see_each_other_come_sit_and_go() -> None:
    async def scenario() -> None:
        presence = Presence(friend_ids)
        ann = Page("ann")
        await presence.attach(ann)
        assert ann.got[-1] == {
            "type": "presence",
            "friends": {"bob": {"status": "offline"}, "cy": {"status": "offline"}},
        }
        bob = Page("bob")
        await presence.attach(bob)
        assert ann.status_of("bob") == {"status": "online"}
        assert bob.status_of("ann") == {"status": "online"}
        # Bob sits at a table: Ann (not there) is told he is at one, not which.
        presence.at_table(bob, "ABCD")
        assert ann.status_of("bob") == {"status": "table"}
        # Ann sits at his table: now she is told which (and he, hers).
        presence.at_table(ann, "ABCD")
        assert ann.status_of("bob") == {"status": "table", "table": "ABCD"}
        assert bob.status_of("ann") == {"status": "table", "table": "ABCD"}
        # Cy is no friend of Bob's: he never hears of her.
        cy = Page("cy")
        await presence.attach(cy)
        assert bob.status_of("cy") is None
        assert cy.status_of("ann") == {"status": "table"}  # (Cy is at no table)
        # A second tab of Bob's closes: he is still there; the last one: offline.
        tab = Page("bob")
        await presence.attach(tab)
        presence.detach(tab)
        assert ann.status_of("bob") == {"status": "table", "table": "ABCD"}
        presence.detach(bob)
        assert ann.status_of("bob") == {"status": "offline"}

    asyncio.run(scenario())


def test_a_refresh_reads_the_friends_again() -> None:
    async def scenario() -> None:
        friends: dict[str, list[str]] = {"ann": [], "dan": []}

        async def ids(profile: str) -> list[str]:
            return friends[profile]

        presence = Presence(ids)
        ann, dan = Page("ann"), Page("dan")
        await presence.attach(ann)
        await presence.attach(dan)
        assert ann.status_of("dan") is None
        friends.update(ann=["dan"], dan=["ann"])
        presence.refresh("ann", "dan")
        await asyncio.sleep(0.01)
        assert ann.status_of("dan") == {"status": "online"}
        assert {"type": "friends_changed"} in ann.got and {"type": "friends_changed"} in dan.got
        # Told to one profile: every socket it has, no other.
        presence.tell("dan", {"type": "invite", "id": "x"})
        assert dan.got[-1] == {"type": "invite", "id": "x"}
        assert ann.got[-1] != {"type": "invite", "id": "x"}
        # Dropped (deleted): its sockets are closed, no other.
        presence.drop("dan")
        assert dan.got[-1] == {"type": "closed"} and ann.got[-1] != {"type": "closed"}

    asyncio.run(scenario())


def test_another_process_that_leaves_or_falls_silent_takes_its_profiles_along() -> None:
    async def scenario() -> None:
        now = [100.0]
        presence = Presence(friend_ids, clock=lambda: now[0])
        ann = Page("ann")
        await presence.attach(ann)
        # (What another process says on the channel, as its messages arrive.)
        presence._handle({"k": "s", "p": "other", "id": "bob", "v": "online"})
        presence._handle({"k": "s", "p": "third", "id": "cy", "v": "table:ABCD"})
        assert ann.status_of("bob") == {"status": "online"}
        assert ann.status_of("cy") == {"status": "table"}
        presence._handle({"k": "bye", "p": "other"})
        assert ann.status_of("bob") == {"status": "offline"}
        # The third beats, then falls silent: forgotten after GONE_SECONDS, not before.
        presence._handle({"k": "beat", "p": "third"})
        now[0] += GONE_SECONDS - 0.5
        presence._forget_silent()
        assert ann.status_of("cy") == {"status": "table"}
        now[0] += 1.0
        presence._forget_silent()
        assert ann.status_of("cy") == {"status": "offline"}
        assert presence.processes == ["here"]

    asyncio.run(scenario())


def test_a_process_gone_is_one_message_a_socket() -> None:
    async def scenario() -> None:
        presence = Presence(friend_ids)
        ann = Page("ann")
        await presence.attach(ann)
        presence._handle({"k": "all", "p": "other", "s": {"bob": "online", "cy": "online"}})
        ann.got.clear()
        presence._handle({"k": "bye", "p": "other"})
        assert ann.got == [
            {"type": "presence", "friends": {"bob": {"status": "offline"},
                                             "cy": {"status": "offline"}}},
        ]  # fmt: skip

    asyncio.run(scenario())
