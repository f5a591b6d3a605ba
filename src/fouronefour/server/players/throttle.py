"""Throttling of sign-in and one-time code attempts, per account and per address: token
buckets in this process (:class:`LocalThrottle`) or in the cluster's Redis, shared by every
process (:class:`SharedThrottle`, over :class:`~fouronefour.server.cluster.shared.SharedBuckets`).

Every attempt takes a token from each bucket it names before any password is verified, so a
refused attempt costs no argon2 work, and an attempt at a username that does not exist takes
from that username's bucket as one that does: the answers say nothing of which exist.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..ratelimit import AddressBuckets

if TYPE_CHECKING:
    from ..cluster.broker import Broker


class Attempt(enum.StrEnum):
    SIGN_IN_ADDRESS = "signin-address"
    SIGN_IN_ACCOUNT = "signin-account"
    CODE_ADDRESS = "code-address"
    #: Claims (whose answer says whether a username is taken) and guest profiles made.
    CLAIM_ADDRESS = "claim-address"
    GUEST_ADDRESS = "guest-address"
    #: Password changes (a wrong current password) per profile.
    PASSWORD_ACCOUNT = "password-account"
    #: Joining and leaving the quick-match queue, per profile (matchmaking/).
    QUICKMATCH_PROFILE = "quickmatch-profile"
    #: Friend requests and table invites sent, per profile (friends/, docs/friends.md).
    FRIEND_REQUEST_ACCOUNT = "friend-request-account"
    INVITE_ACCOUNT = "invite-account"


@dataclass(frozen=True, slots=True)
class Budget:
    """A bucket's size and how many attempts it gains a second."""

    burst: int
    per_second: float


#: The documented budgets (docs/players.md, "Throttling").
BUDGETS: dict[Attempt, Budget] = {
    # An address: 20 sign-ins, then one every 6 s (a household or an office shares one).
    Attempt.SIGN_IN_ADDRESS: Budget(20, 1 / 6),
    # An account: 10, then one a minute, from all addresses together: 1,440 guesses a day
    # at most, whatever the attacker holds (the owner waits a minute at worst).
    Attempt.SIGN_IN_ACCOUNT: Budget(10, 1 / 60),
    # Device codes: 10 per address, then one every 6 s.
    Attempt.CODE_ADDRESS: Budget(10, 1 / 6),
    Attempt.CLAIM_ADDRESS: Budget(10, 1 / 6),
    Attempt.GUEST_ADDRESS: Budget(30, 1.0),
    Attempt.PASSWORD_ACCOUNT: Budget(5, 1 / 60),
    # Quick match: 6 joins or leaves, then one every 5 s (docs/quickmatch.md).
    Attempt.QUICKMATCH_PROFILE: Budget(6, 1 / 5),
    # Friend requests: 10, then one every 30 s; invites: 10, then one every 6 s.
    Attempt.FRIEND_REQUEST_ACCOUNT: Budget(10, 1 / 30),
    Attempt.INVITE_ACCOUNT: Budget(10, 1 / 6),
}


class Throttle(Protocol):
    async def take(self, attempt: Attempt, key: str) -> float:
        """Take a token for ``key``'s ``attempt`` bucket: 0.0 if one was there, else the
        seconds until one is (and nothing is taken)."""
        ...


class LocalThrottle:
    """This process's buckets (a single server)."""

    def __init__(
        self,
        budgets: dict[Attempt, Budget] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        chosen = budgets or BUDGETS
        self._buckets = {
            attempt: (
                AddressBuckets(b.per_second, b.burst)
                if clock is None
                else AddressBuckets(b.per_second, b.burst, clock)
            )
            for attempt, b in chosen.items()
        }

    async def take(self, attempt: Attempt, key: str) -> float:
        return self._buckets[attempt].take(key)


class SharedThrottle:
    """Buckets in the cluster's Redis: an attacker who reaches every process gets one budget,
    not one a process (each falls back to its own while Redis is away, as the other shared
    limits do)."""

    def __init__(self, broker: Broker, budgets: dict[Attempt, Budget] | None = None) -> None:
        from ..cluster.shared import SharedBuckets

        chosen = budgets or BUDGETS
        self._buckets = {
            attempt: SharedBuckets(broker, f"players:{attempt}", b.per_second, b.burst)
            for attempt, b in chosen.items()
        }

    async def take(self, attempt: Attempt, key: str) -> float:
        return await self._buckets[attempt].take(key)
