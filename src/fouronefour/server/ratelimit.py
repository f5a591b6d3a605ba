"""Token buckets: per connection (WebSocket messages) and per client address (HTTP changes).

A bucket holds up to ``burst`` tokens and gains ``rate`` a second; each request takes one.
Everything is O(1) per request and nothing runs in the background. (The ``limits`` library
was tried for the addresses: its in-memory storage expires its keys by scanning all of
them, from a new thread, up to every 10 ms while requests come: 9 ms a scan at 5,000
addresses, held under the GIL that the tables' event loop needs.)
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable


def address_key(host: str | None, limit_loopback: bool = False) -> str | None:
    """Whose budget a client address spends: the IPv4 address, or the IPv6 /64 (anyone
    holding one address of it holds them all); None (not limited) for loopback, unless
    ``limit_loopback``, and for clients without an address (a Unix socket)."""
    if host is None:
        return None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host  # not an address (a proxy's "unknown"): limited under that name
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback and not limit_loopback:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class TokenBucket:
    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = now

    def _refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self, now: float) -> bool:
        """Take a token if there is one."""
        self._refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait(self, now: float) -> float:
        """Seconds until a token is there."""
        self._refill(now)
        if self.tokens >= 1.0:
            return 0.0
        return (1.0 - self.tokens) / self.rate if self.rate > 0 else float("inf")

    def full(self, now: float) -> bool:
        return self.tokens + (now - self.stamp) * self.rate >= self.burst


class AddressBuckets:
    """A bucket per key (a client address), made on first use and forgotten once full
    again, so that memory follows the addresses active lately: the full ones are swept out
    whenever the count doubles, which costs O(1) a request on average."""

    MIN_SWEEP = 1024

    def __init__(
        self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}
        self._sweep_at = self.MIN_SWEEP

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, key: str) -> float:
        """Take a token for ``key``: 0.0 if it was there, else the seconds to wait (and
        nothing is taken)."""
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self._sweep_at:
                self._sweep(now)
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, now)
        if bucket.take(now):
            return 0.0
        return bucket.wait(now)

    def wait(self, key: str) -> float:
        """The seconds until ``key`` has a token (0.0: it has one), taking none."""
        bucket = self._buckets.get(key)
        return 0.0 if bucket is None else bucket.wait(self._clock())

    def _sweep(self, now: float) -> None:
        self._buckets = {k: b for k, b in self._buckets.items() if not b.full(now)}
        self._sweep_at = max(self.MIN_SWEEP, 2 * len(self._buckets))
