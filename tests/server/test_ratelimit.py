"""Token buckets for connections and client addresses."""

from __future__ import annotations

from fouronefour.server.ratelimit import AddressBuckets, TokenBucket, address_key


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_gives_its_burst_then_its_rate() -> None:
    bucket = TokenBucket(rate=2.0, burst=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.wait(0.0) == 0.5
    assert not bucket.take(0.25) and bucket.take(0.5)
    assert bucket.full(0.5 + 1.5) and not bucket.full(1.9)
    assert TokenBucket(rate=0.0, burst=1, now=0.0).take(0.0)


def test_each_address_has_its_own_bucket_and_waits_are_told() -> None:
    clock = Clock()
    buckets = AddressBuckets(rate=1.0, burst=2, clock=clock)
    assert buckets.take("a") == 0.0 and buckets.take("a") == 0.0
    assert buckets.take("a") == 1.0
    assert buckets.take("b") == 0.0
    clock.now += 0.25
    assert buckets.take("a") == 0.75  # a refusal takes nothing
    clock.now += 0.75
    assert buckets.take("a") == 0.0


def test_full_buckets_are_forgotten_and_busy_ones_kept() -> None:
    clock = Clock()
    buckets = AddressBuckets(rate=1.0, burst=2, clock=clock)
    for n in range(AddressBuckets.MIN_SWEEP):
        buckets.take(f"old{n}")
    clock.now += 1.0  # the old ones are full again
    buckets.take("busy")
    buckets.take("busy")
    for n in range(AddressBuckets.MIN_SWEEP):
        buckets.take(f"new{n}")
    assert len(buckets) <= AddressBuckets.MIN_SWEEP + 2
    assert buckets.take("busy") > 0  # still counted: it was not full


def test_addresses_are_limited_by_ipv4_or_ipv6_64_and_loopback_is_not() -> None:
    def key(host: str | None) -> str | None:
        return address_key(host)

    assert key("203.0.113.7") == "203.0.113.7"
    assert key("2001:db8:1:2:aaaa::1") == key("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert key("2001:db8:1:3::1") != key("2001:db8:1:2::1")
    assert key("::ffff:203.0.113.7") == "203.0.113.7"
    assert key("unknown") == "unknown"
    assert key("127.0.0.1") is key("::1") is key("::ffff:127.0.0.1") is key(None) is None
    assert address_key("127.0.0.2", limit_loopback=True) == "127.0.0.2"  # (tests of limits)
