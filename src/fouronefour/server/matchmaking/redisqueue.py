"""The quick-match queue of a cluster, in its Redis: every process takes people in and
answers their pages; one process at a time matches (a lock with an expiry, so a process
that dies while matching holds nobody up for long). Each change that must not race is one
Lua script (join: one entry a profile, the cooldown; claim: all of a table's people or
none of them)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import orjson
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from ..cluster.broker import PREFIX
from ..errors import ErrorCode
from .errors import MatchError
from .pairing import Entry
from .queue import (
    MAKING,
    MAKING_SECONDS,
    RESULT_SECONDS,
    QueueRules,
    already,
    cooling,
    full,
)

if TYPE_CHECKING:
    from redis import asyncio as aioredis

    from ..cluster.broker import Broker

ROOT = f"{PREFIX}qm:"
ENTRIES = f"{ROOT}entries"
SEQ = f"{ROOT}seq"
LOCK = f"{ROOT}lock"

# KEYS: entries, cooldown key, seq, seat key; ARGV: profile, name, ordinal, now, max waiting
_JOIN = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return {1, 0} end
local left = redis.call('PTTL', KEYS[2])
if left > 0 then return {2, left} end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[5]) then return {3, 0} end
local seq = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode({ARGV[2], ARGV[3], ARGV[4], seq}))
redis.call('DEL', KEYS[4])
return {0, seq}
"""

# KEYS: entries, then each profile's seat key; ARGV: the "making" mark, its lifetime (ms),
# then the profiles. All of them out of the queue (their seats marked), or none.
_CLAIM = """
local taken = {}
for i = 3, #ARGV do
  local entry = redis.call('HGET', KEYS[1], ARGV[i])
  if not entry then return false end
  taken[i - 2] = entry
end
for i = 3, #ARGV do
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('SET', KEYS[i - 1], ARGV[1], 'PX', ARGV[2])
end
return taken
"""

# KEYS: lock; ARGV: holder
_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


P = ParamSpec("P")
T = TypeVar("T")


def _answered(
    method: Callable[P, Coroutine[Any, Any, T]],
) -> Callable[P, Coroutine[Any, Any, T]]:
    """Redis not answering is a typed refusal (``storage_error``), never a crash."""

    @functools.wraps(method)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await method(*args, **kwargs)
        except (RedisConnectionError, RedisTimeoutError, OSError) as error:
            # (Redis away: the broker tells that outage, once each way)
            raise MatchError(
                ErrorCode.BROKER_UNAVAILABLE, f"quick match is away a moment ({error})"
            ) from None
        except RedisError as error:
            raise MatchError(ErrorCode.STORAGE_ERROR, f"quick match failed ({error})") from None

    return guarded


def _cool_key(profile: str) -> str:
    return f"{ROOT}cool:{profile}"


def _seat_key(profile: str) -> str:
    return f"{ROOT}seat:{profile}"


def _entry(profile: str, raw: bytes | str) -> Entry:
    name, ordinal, joined_at, seq = orjson.loads(raw)
    return Entry(profile, str(name), float(ordinal), float(joined_at), int(seq))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisQueue:
    def __init__(self, broker: Broker, rules: QueueRules | None = None) -> None:
        self.broker = broker
        self.rules = rules or QueueRules()
        self._scripts: dict[str, Any] = {}

    def _redis(self) -> aioredis.Redis:
        redis = self.broker.redis
        if redis is None or not self.broker.connected:
            raise MatchError(ErrorCode.BROKER_UNAVAILABLE, "quick match is away for a moment")
        return redis

    def _script(self, source: str) -> Any:
        script = self._scripts.get(source)
        if script is None:
            script = self._scripts[source] = self._redis().register_script(source)
        return script

    @_answered
    async def join(self, profile: str, name: str, ordinal: float, now: float) -> Entry:
        keys = [ENTRIES, _cool_key(profile), SEQ, _seat_key(profile)]
        args = [profile, name, repr(ordinal), repr(now), self.rules.max_waiting]
        status, value = await self._script(_JOIN)(keys=keys, args=args)
        if status == 1:
            raise already()
        if status == 2:
            raise cooling(int(value) / 1000)
        if status == 3:
            raise full()
        return Entry(profile, name, ordinal, now, int(value))

    @_answered
    async def leave(self, profile: str, now: float) -> bool:
        redis = self._redis()
        removed = await redis.hdel(ENTRIES, profile)
        if not removed:
            return False
        await redis.set(_cool_key(profile), 1, px=max(1, int(self.rules.cooldown_seconds * 1000)))
        return True

    @_answered
    async def waiting(self) -> list[Entry]:
        found = await self._redis().hgetall(ENTRIES)
        return [_entry(_text(p), raw) for p, raw in found.items()]

    @_answered
    async def count(self) -> int:
        return int(await self._redis().hlen(ENTRIES))

    @_answered
    async def entry(self, profile: str) -> Entry | None:
        raw = await self._redis().hget(ENTRIES, profile)
        return None if raw is None else _entry(profile, raw)

    @_answered
    async def entries(self, profiles: Iterable[str]) -> list[Entry]:
        wanted = list(profiles)
        if not wanted:
            return []
        found = await self._redis().hmget(ENTRIES, wanted)
        return [_entry(p, raw) for p, raw in zip(wanted, found, strict=True) if raw is not None]

    @_answered
    async def claim(self, profiles: Iterable[str], now: float) -> list[Entry] | None:
        wanted = list(profiles)
        keys = [ENTRIES, *(_seat_key(p) for p in wanted)]
        mark = [orjson.dumps(MAKING), int(MAKING_SECONDS * 1000)]
        taken = await self._script(_CLAIM)(keys=keys, args=[*mark, *wanted])
        if not taken:
            return None
        return [_entry(p, raw) for p, raw in zip(wanted, taken, strict=True)]

    @_answered
    async def put_back(self, entries: Iterable[Entry]) -> None:
        redis = self._redis()
        for e in entries:
            raw = orjson.dumps([e.name, repr(e.ordinal), repr(e.joined_at), e.seq])
            # (the entry first: a page asking in between finds it waiting, never nowhere)
            await redis.hsetnx(ENTRIES, e.profile, raw)
            await redis.delete(_seat_key(e.profile))

    @_answered
    async def seated(self, profile: str, seat: dict[str, Any], now: float) -> None:
        await self._redis().set(_seat_key(profile), orjson.dumps(seat), ex=int(RESULT_SECONDS))

    @_answered
    async def seat_of(self, profile: str, now: float) -> dict[str, Any] | None:
        raw = await self._redis().get(_seat_key(profile))
        if raw is None:
            return None
        seat: dict[str, Any] = orjson.loads(raw)
        return seat

    @_answered
    async def forget(self, profile: str) -> None:
        redis = self._redis()
        await redis.hdel(ENTRIES, profile)
        await redis.delete(_seat_key(profile))

    @_answered
    async def lock(self, holder: str, seconds: float) -> bool:
        taken = await self._redis().set(LOCK, holder, nx=True, px=max(1, int(seconds * 1000)))
        return bool(taken)

    @_answered
    async def unlock(self, holder: str) -> None:
        await self._script(_UNLOCK)(keys=[LOCK], args=[holder])
