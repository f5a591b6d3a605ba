"""Per-address limits shared by the processes of a cluster, kept in Redis.

Behind a round-robin load balancer one client address reaches every process: limits each
process counted for itself would let it do N times as much. What must be shared
(docs/architecture.md, "Limits in a cluster") is kept in the cluster's Redis, each check one
Lua script (atomic: two processes never both take the last token):

- :class:`SharedBuckets`: token buckets per key (tables created and seats taken per address,
  codes that are no table per address), on Redis's clock. A bucket is a hash that expires
  when it would be full again, so Redis holds only the addresses active lately.
- :class:`SharedCounts`: how many connections a key holds across the cluster (spectators
  per address): a hash per key with a count per process; a process that is gone (its alive
  key expired, :mod:`.broker`) no longer counts, and its field is dropped when next seen.

While Redis does not answer, each falls back to this process's own count (the single
process's limiters, :mod:`.ratelimit`): a limit then errs towards letting clients in, for
seconds, rather than refusing every address.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from typing import Any

from redis.exceptions import RedisError

from ..ratelimit import AddressBuckets
from .broker import PREFIX, Broker

log = logging.getLogger(__name__)

#: KEYS[1]: the bucket; ARGV: tokens a second, burst, 1 to take a token (0: only look).
#: Returns the seconds to wait as text (0: a token was there, and taken if asked).
_BUCKET = """
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local held = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
if not held[1] then
  if ARGV[3] ~= '1' then return '0' end
  held = {burst, now}
end
local tokens = math.min(burst, tonumber(held[1]) + math.max(0, now - tonumber(held[2])) * rate)
if tokens < 1 then
  return tostring((1 - tokens) / rate)
end
if ARGV[3] == '1' then
  tokens = tokens - 1
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
  redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
end
return '0'
"""

#: KEYS[1]: the count's hash (process -> count); ARGV: this process, the limit, the prefix
#: of processes' alive keys. Returns 1 and counts one more for this process if the live
#: processes hold fewer than the limit, else 0.
_ACQUIRE = """
local total = 0
local held = redis.call('HGETALL', KEYS[1])
for i = 1, #held, 2 do
  local process, count = held[i], tonumber(held[i + 1])
  if process == ARGV[1] or redis.call('EXISTS', ARGV[3] .. process) == 1 then
    total = total + count
  else
    redis.call('HDEL', KEYS[1], process)
  end
end
if total >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], 86400000)
return 1
"""

#: KEYS[1]: the count's hash; ARGV[1]: this process. One connection fewer.
_RELEASE = """
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
"""


class SharedBuckets:
    """:class:`~.ratelimit.AddressBuckets` for a cluster: the same ``take`` and ``wait``, as
    coroutines, counted in Redis for every process."""

    def __init__(self, broker: Broker, name: str, rate: float, burst: int) -> None:
        self._broker = broker
        self._prefix = f"{PREFIX}limit:{name}:"
        self.rate = rate
        self.burst = burst
        self._script: Any = None
        self._local = AddressBuckets(rate, burst)

    async def _run(self, key: str, take: bool) -> float | None:
        """The script's answer, or None if Redis did not give one."""
        redis = self._broker.redis
        if redis is None or not self._broker.connected:
            return None
        if self._script is None:
            self._script = redis.register_script(_BUCKET)
        try:
            answer = await self._script(
                keys=[self._prefix + key], args=[repr(self.rate), self.burst, int(take)]
            )
        except (RedisError, OSError) as error:
            self._broker.outage.failed(error, "shared limits fall back to this process's")
            return None
        return float(answer)

    async def take(self, key: str) -> float:
        """Take a token for ``key``: 0.0 if it was there, else the seconds to wait (and
        nothing is taken)."""
        wait = await self._run(key, True)
        return self._local.take(key) if wait is None else wait

    async def wait(self, key: str) -> float:
        """The seconds until ``key`` has a token (0.0: it has one), taking none."""
        wait = await self._run(key, False)
        return self._local.wait(key) if wait is None else wait


class SharedCounts:
    """How many connections each key (a client address) holds in the whole cluster, each
    process counting its own; one over ``limit`` is refused."""

    def __init__(self, broker: Broker, name: str, limit: int) -> None:
        self._broker = broker
        self._prefix = f"{PREFIX}count:{name}:"
        self.limit = limit
        self._scripts: tuple[Any, Any] | None = None
        #: This process's own, as counted in Redis (what a release gives back).
        self._mine: Counter[str] = Counter()
        #: Those counted here only, while Redis did not answer.
        self._unshared: Counter[str] = Counter()
        self._releasing: set[asyncio.Task[None]] = set()

    def _ready(self) -> tuple[Any, Any] | None:
        redis = self._broker.redis
        if redis is None or not self._broker.connected:
            return None
        if self._scripts is None:
            self._scripts = (redis.register_script(_ACQUIRE), redis.register_script(_RELEASE))
        return self._scripts

    async def acquire(self, key: str) -> bool:
        """Count one more connection of ``key``; False (nothing counted) if it holds
        ``limit`` already."""
        scripts = self._ready()
        if scripts is not None:
            try:
                taken = await scripts[0](
                    keys=[self._prefix + key],
                    args=[self._broker.process, self.limit, self._broker.alive_prefix],
                )
            except (RedisError, OSError) as error:
                self._broker.outage.failed(error, "shared counts fall back to this process's")
            else:
                if taken:
                    self._mine[key] += 1
                return bool(taken)
        if self._mine[key] + self._unshared[key] >= self.limit:
            return False
        self._unshared[key] += 1
        return True

    def release(self, key: str) -> None:
        """One connection of ``key`` fewer (counted in Redis as it leaves this process)."""
        if self._unshared[key] > 0:
            _decrement(self._unshared, key)
            return
        if self._mine[key] <= 0:
            return
        _decrement(self._mine, key)
        scripts = self._ready()
        if scripts is None:  # (Redis away: its count of this process goes with our alive key)
            return
        task = asyncio.ensure_future(self._release(scripts[1], key))
        self._releasing.add(task)
        task.add_done_callback(self._releasing.discard)

    async def _release(self, script: Any, key: str) -> None:
        try:
            await script(keys=[self._prefix + key], args=[self._broker.process])
        except (RedisError, OSError) as error:
            self._broker.outage.failed(error, "a shared count could not be lowered")


def _decrement(counter: Counter[str], key: str) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]


class Place:
    """A connection's place among its address's spectators in the cluster: taken at its
    hello without a token (a spectator's), given back when it ends."""

    __slots__ = ("_counts", "held", "key")

    def __init__(self, counts: SharedCounts, key: str) -> None:
        self._counts = counts
        self.key = key
        self.held = False

    @property
    def limit(self) -> int:
        return self._counts.limit

    async def take(self) -> bool:
        if not self.held:
            self.held = await self._counts.acquire(self.key)
        return self.held

    def give_back(self) -> None:
        if self.held:
            self.held = False
            self._counts.release(self.key)
