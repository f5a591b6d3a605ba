"""Fan-out between the processes of a cluster, through Redis publish/subscribe.

Each table has a channel. A process publishes a table's updates there (encoded by
:meth:`Update.encode`, the same bytes its own sockets get) once their change is written,
and subscribes to the channels of the tables its own connections watch. Its own
subscribers get its updates at once, in-process, as with :class:`InProcessFanout`; what it
reads back from its own publications is skipped by the mark each message starts with.

Redis keeps nothing for a subscriber that is away, so whatever breaks the chain of versions
makes the subscribers catch up from the table instead (:meth:`Subscriber.resync`): the
connection to Redis lost, or an update whose version is not the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import deque
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from .fanout import FanoutError, InProcessFanout, Subscriber
from .model import Update
from .storage import Storage

log = logging.getLogger(__name__)

CHANNEL_PREFIX = "414:table:"
#: What follows a message's mark: an encoded update, or a notice (presence) as it is sent.
_UPDATE = b"U"
_NOTICE = b"N"
#: Updates waiting for Redis (it is away) before the oldest are dropped: their subscribers
#: in other processes see a gap in the versions and catch up.
MAX_WAITING = 100_000


class RedisFanout:
    """One process's side of the cluster's fan-out."""

    RETRY_SECONDS = 0.5
    CONNECT_SECONDS = 2.0

    def __init__(self, url: str, gate: Storage) -> None:
        self.url = url
        self._gate = gate
        self._local = InProcessFanout()
        #: Starts every message this process publishes (skipped when read back).
        self._mark = secrets.token_bytes(8)
        self._redis: aioredis.Redis | None = None
        self._pubsub: Any = None
        self._listener: asyncio.Task[None] | None = None
        self._sender: asyncio.Task[None] | None = None
        self._outbox: deque[tuple[int, bytes, bytes]] = deque()  # (seq, channel, message)
        self._wake = asyncio.Event()
        self._confirmed: set[bytes] = set()
        self._waiting: dict[bytes, list[asyncio.Future[None]]] = {}
        self._last_v: dict[str, int] = {}  # the last version delivered here, per table
        self._closed = False
        #: True while Redis answers.
        self.connected = False

    # ------------------------------------------------------------ connecting

    async def open(self) -> None:
        self._redis = aioredis.Redis.from_url(
            self.url,
            socket_connect_timeout=self.CONNECT_SECONDS,
            socket_timeout=self.CONNECT_SECONDS * 2,
            health_check_interval=0,
        )
        try:
            await self._connect()
        except (RedisError, OSError) as error:
            await self._redis.aclose()
            raise FanoutError(f"Redis does not answer at {self.url} ({error})") from None
        self._listener = asyncio.create_task(self._listen())
        self._sender = asyncio.create_task(self._send())

    async def _connect(self) -> None:
        """A new subscription connection, subscribed to every table watched here."""
        assert self._redis is not None
        await self._redis.ping()
        pubsub = self._redis.pubsub()
        # A channel of this process's own: a subscription connection always has one.
        await pubsub.subscribe(CHANNEL_PREFIX.encode() + b"process:" + self._mark.hex().encode())
        for code in self._local.codes():
            await pubsub.subscribe(_channel(code))
        self._pubsub = pubsub
        self.connected = True

    # ------------------------------------------------------------ subscribing

    def subscribe(self, code: str, subscriber: Subscriber) -> None:
        first = self._local.count(code) == 0
        self._local.subscribe(code, subscriber)
        if first and self._pubsub is not None and self.connected:
            self._command(self._pubsub.subscribe(_channel(code)))

    def unsubscribe(self, code: str, subscriber: Subscriber) -> None:
        self._local.unsubscribe(code, subscriber)
        if self._local.count(code) == 0:
            channel = _channel(code)
            self._confirmed.discard(channel)
            self._last_v.pop(code, None)
            if self._pubsub is not None and self.connected:
                self._command(self._pubsub.unsubscribe(channel))

    def _command(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        task.add_done_callback(_log_failure)

    async def subscribed(self, code: str) -> None:
        channel = _channel(code)
        if channel in self._confirmed or self._local.count(code) == 0:
            return
        future = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(channel, []).append(future)
        await future

    def count(self, code: str) -> int:
        return self._local.count(code)

    # ------------------------------------------------------------ publishing

    def publish(self, code: str, update: Update) -> None:
        self._local.publish(code, update)
        self._last_v[code] = update.v
        if len(self._outbox) >= MAX_WAITING:
            self._outbox.popleft()
        self._outbox.append(
            (self._gate.staged_seq, _channel(code), self._mark + _UPDATE + update.encode())
        )
        self._wake.set()

    def notify(self, code: str, message: bytes) -> None:
        self._local.notify(code, message)
        # (In order with the table's updates, but waiting for no write.)
        self._outbox.append((0, _channel(code), self._mark + _NOTICE + message))
        self._wake.set()

    async def _send(self) -> None:
        """Publish what is written, in order, a pipeline at a time."""
        gate = self._gate
        outbox = self._outbox
        while not self._closed:
            await self._wake.wait()
            self._wake.clear()
            while outbox:
                seq = outbox[0][0]
                if seq > gate.durable_seq:
                    await gate.wait_durable(seq)
                ready = []
                while outbox and outbox[0][0] <= gate.durable_seq:
                    ready.append(outbox.popleft())
                try:
                    await self._publish(ready)
                except (RedisError, OSError) as error:
                    outbox.extendleft(reversed(ready))
                    log.warning("cannot publish to Redis (%s): trying again", error)
                    await asyncio.sleep(self.RETRY_SECONDS)

    async def _publish(self, ready: list[tuple[int, bytes, bytes]]) -> None:
        assert self._redis is not None
        async with self._redis.pipeline(transaction=False) as pipe:
            for _, channel, message in ready:
                pipe.publish(channel, message)
            await pipe.execute()

    # ------------------------------------------------------------ receiving

    async def _listen(self) -> None:
        while not self._closed:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except (RedisError, OSError) as error:
                if self._closed:
                    return
                self._lost(error)
                await self._reconnect()
                continue
            if message is not None:
                self._received(message)

    def _received(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        channel = message["channel"]
        if kind == "subscribe":
            self._confirmed.add(channel)
            for future in self._waiting.pop(channel, ()):
                if not future.done():
                    future.set_result(None)
            return
        if kind != "message":
            return
        data: bytes = message["data"]
        if data[:8] == self._mark:
            return  # this process's own: delivered here when published
        code = channel[len(CHANNEL_PREFIX) :].decode()
        if data[8:9] == _NOTICE:
            self._local.notify(code, data[9:])
            return
        try:
            update = Update.decode(data[9:])
        except ValueError:
            log.error("table %s: a message on its channel is not an update", code)
            return
        last = self._last_v.get(code)
        if last is not None and update.v <= last:
            return  # seen already
        self._last_v[code] = update.v
        if last is not None and update.v > last + 1:
            self._resync(code)  # some were lost on the way
            return
        self._local.publish(code, update)

    def _resync(self, code: str) -> None:
        self._last_v.pop(code, None)
        for subscriber in self._local.subscribers(code):
            subscriber.resync()

    def _lost(self, error: BaseException) -> None:
        """The subscription connection broke: what was published meanwhile is lost."""
        if self.connected:
            log.warning("lost Redis (%s): its subscribers catch up", error)
        self.connected = False
        self._confirmed.clear()
        for code in self._local.codes():
            self._resync(code)

    async def _reconnect(self) -> None:
        while not self._closed:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
            try:
                await self._connect()
            except (RedisError, OSError):
                await asyncio.sleep(self.RETRY_SECONDS)
                continue
            log.warning("Redis is back")
            return

    # ------------------------------------------------------------ closing

    async def shutdown(self) -> None:
        """Publish what is waiting (for up to a second) and close."""
        if self._outbox and self.connected:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._drain(), 1.0)
        self._closed = True
        for task in (self._listener, self._sender):
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._redis.aclose()

    async def _drain(self) -> None:
        while self._outbox:
            await asyncio.sleep(0.01)


def _channel(code: str) -> bytes:
    return (CHANNEL_PREFIX + code).encode()


def _log_failure(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.debug("Redis subscription change failed: %s", task.exception())


async def check(url: str, timeout: float = 3.0) -> str:
    """A line saying whether Redis at ``url`` answers (raises FanoutError if not)."""
    client = aioredis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    try:
        info = await client.info("server")
    except (RedisError, OSError) as error:
        raise FanoutError(f"Redis does not answer at {url} ({error})") from None
    finally:
        await client.aclose()
    return f"Redis {info.get('redis_version', '?')} answers"
