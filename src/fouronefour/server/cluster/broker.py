"""The cluster's message broker: Redis publish/subscribe, as one process uses it.

Everything a process sends to the others goes through one ordered queue of publications,
each waiting (like a socket's messages, :mod:`.outbox`) for the write of the change it
follows, and leaves a pipeline at a time from one connection; everything it receives
comes in on one subscription connection. Redis delivers the messages of one publisher to
one subscriber connection in the order it received them, across channels: so what a
table's owner sends a relaying process (an update on the table's channel, an answer on the
process's own channel) arrives in the order the owner sent it.

A process also keeps a key alive in Redis while it runs (:meth:`Broker.alive` tells which
processes do): a relaying process notices that a table's owner is gone, an owner that a
relaying process is.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from ..outage import Outage
from ..storage import Storage
from ..tables.fanout import FanoutError

log = logging.getLogger(__name__)

PREFIX = "414:"
#: What is published: bytes, or a function making them when they leave (an update
#: carries the acks attached after it was queued).
Payload = bytes | Callable[[], bytes]


class _Publication:
    __slots__ = ("channel", "payload", "receivers", "seq", "tag")

    def __init__(
        self,
        seq: int,
        channel: bytes,
        payload: Payload,
        tag: str | None,
        receivers: asyncio.Future[int] | None,
    ) -> None:
        self.seq = seq
        self.channel = channel
        self.payload = payload
        self.tag = tag
        self.receivers = receivers


class Broker:
    """One process's connection to the cluster's Redis."""

    RETRY_SECONDS = 0.5
    CONNECT_SECONDS = 2.0
    #: A process whose key was not renewed for this long is gone.
    ALIVE_SECONDS = 2.0
    #: Publications waiting while Redis is away before the oldest are dropped (their
    #: receivers see a gap and catch up).
    MAX_WAITING = 100_000

    def __init__(self, url: str, gate: Storage) -> None:
        self.url = url
        self._gate = gate
        #: This process's id in the cluster (its channel, its key).
        self.process = secrets.token_hex(8)
        self.channel = channel("process:" + self.process)
        #: This process's name for load balancers (``--node``; routes/state.py sets it).
        self.node = self.process
        self._redis: aioredis.Redis | None = None
        self._pubsub: Any = None
        self._handlers: dict[bytes, Callable[[bytes], None]] = {}
        self._confirmed: set[bytes] = set()
        self._waiting: dict[bytes, list[asyncio.Future[None]]] = {}
        self._outbox: deque[_Publication] = deque()
        self._wake = asyncio.Event()
        self._lost: list[Callable[[], None]] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._closed = False
        #: True while Redis answers.
        self.connected = False
        self._up = asyncio.Event()  # (set while connected)
        self.outage = Outage(log, "Redis")

    # ------------------------------------------------------------ connecting

    async def open(self) -> None:
        """Connect, or (Redis away) keep trying in the background: Redis keeps nothing that
        is not in the database, so a process serves its own tables without it and joins
        the cluster's relaying once it answers."""
        self._redis = aioredis.Redis.from_url(
            self.url,
            socket_connect_timeout=self.CONNECT_SECONDS,
            socket_timeout=self.CONNECT_SECONDS * 2,
            health_check_interval=0,
        )
        self._handlers.setdefault(self.channel, _ignore)
        try:
            await self._connect()
        except (RedisError, OSError) as error:
            self.outage.failed(
                f"at {self.url}: {error}", "serving without it, relaying once it answers"
            )
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._listen()),
            loop.create_task(self._send()),
            loop.create_task(self._beat()),
        ]

    async def _connect(self) -> None:
        """A new subscription connection, subscribed to every channel handled here."""
        assert self._redis is not None
        await self._redis.set(self._alive_key(self.process), 1, px=int(self.ALIVE_SECONDS * 1000))
        pubsub: Any = self._redis.pubsub()
        try:
            await pubsub.subscribe(*self._handlers)
        except BaseException:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            raise
        self._pubsub = pubsub
        self.connected = True
        self._up.set()

    @property
    def redis(self) -> aioredis.Redis | None:
        """The command connections (a pool), for what else the cluster keeps in Redis
        (:mod:`.shared`); None until :meth:`open`."""
        return self._redis

    @property
    def staged_seq(self) -> int:
        """The number of the last change staged in this process's storage."""
        return self._gate.staged_seq

    def on_lost(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` whenever the subscription connection is lost (what was published
        meanwhile is lost to this process)."""
        self._lost.append(callback)

    # ------------------------------------------------------------ subscribing

    def subscribe(self, name: bytes, handler: Callable[[bytes], None]) -> None:
        """Give ``handler`` every message published on channel ``name`` from now on."""
        new = name not in self._handlers
        self._handlers[name] = handler
        if new and self._pubsub is not None and self.connected:
            self._command(self._pubsub.subscribe(name))

    def unsubscribe(self, name: bytes) -> None:
        if self._handlers.pop(name, None) is None:
            return
        self._confirmed.discard(name)
        if self._pubsub is not None and self.connected:
            self._command(self._pubsub.unsubscribe(name))

    async def subscribed(self, name: bytes) -> None:
        """Return once messages published on ``name`` from now on reach this process."""
        if name in self._confirmed or name not in self._handlers:
            return
        future = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(name, []).append(future)
        await future

    def _command(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        task.add_done_callback(_log_failure)

    # ------------------------------------------------------------ publishing

    def publish(self, name: bytes, payload: Payload, seq: int = 0, tag: str | None = None) -> None:
        """Publish ``payload`` on ``name`` after what was published before, once the change
        numbered ``seq`` is written (0: it follows no write). ``tag``: the table it is about
        (:meth:`forget`)."""
        if len(self._outbox) >= self.MAX_WAITING:
            self._outbox.popleft()
        self._outbox.append(_Publication(seq, name, payload, tag, None))
        self._wake.set()

    async def deliver(self, name: bytes, payload: bytes) -> int:
        """Publish ``payload`` (in order with the rest, needing no write) and return how many
        subscribers it reached; raises :class:`FanoutError` while Redis is away."""
        if not self.connected:
            raise FanoutError("Redis is away")
        receivers: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._outbox.append(_Publication(0, name, payload, None, receivers))
        self._wake.set()
        return await receivers

    def forget(self, tag: str) -> None:
        """Drop what is queued about ``tag`` (a table this process no longer writes: its
        changes not written are not to be told)."""
        kept = [p for p in self._outbox if p.tag != tag]
        if len(kept) != len(self._outbox):
            self._outbox.clear()
            self._outbox.extend(kept)

    async def _send(self) -> None:
        """Publish what is written, in order, a pipeline at a time."""
        gate = self._gate
        outbox = self._outbox
        retried = False
        while not self._closed:
            await self._wake.wait()
            self._wake.clear()
            while outbox:
                if not self.connected:
                    # (No attempt while Redis is away: deliveries are answered at once, the
                    # rest waits for it, in order.)
                    self._refuse_deliveries("Redis is away")
                    await self._up.wait()
                    continue
                head = outbox[0].seq
                if head > gate.durable_seq:
                    if gate.failed and self._skip_writes():
                        continue
                    await self._written(head)
                    continue
                ready = []
                while outbox and outbox[0].seq <= gate.durable_seq:
                    ready.append(outbox.popleft())
                try:
                    counts = await self._publish(ready)
                except (RedisError, OSError) as error:
                    if self._closed:
                        return
                    # Tried again later, in order; but a delivery is answered now (it failed,
                    # and its sender has given up on it).
                    for publication in ready:
                        if publication.receivers is not None:
                            publication.receivers.set_exception(FanoutError(str(error)))
                    outbox.extendleft(reversed([p for p in ready if p.receivers is None]))
                    if self.connected and not retried:
                        # (A pooled connection from before Redis restarted fails once: a new
                        # one is made for the next attempt.)
                        retried = True
                        continue
                    self.outage.failed(error, "publications wait for it")
                    await asyncio.sleep(self.RETRY_SECONDS)
                    continue
                retried = False
                self.outage.back()
                for publication, count in zip(ready, counts, strict=True):
                    if publication.receivers is not None and not publication.receivers.done():
                        publication.receivers.set_result(int(count))

    def _refuse_deliveries(self, reason: str) -> None:
        waiting = [p for p in self._outbox if p.receivers is not None]
        if not waiting:
            return
        kept = [p for p in self._outbox if p.receivers is None]
        self._outbox.clear()
        self._outbox.extend(kept)
        for publication in waiting:
            if publication.receivers is not None and not publication.receivers.done():
                publication.receivers.set_exception(FanoutError(reason))

    async def _written(self, seq: int) -> None:
        """Wait for ``seq`` to be written, or for the storage to fail (then answers that
        need no write may go past)."""
        gate = self._gate
        written = asyncio.ensure_future(gate.wait_durable(seq))
        while not written.done():
            await asyncio.wait((written,), timeout=self.RETRY_SECONDS)
            if gate.failed and not written.done():
                written.cancel()
                return

    def _skip_writes(self) -> bool:
        """While the storage cannot write, publications that need no write go past those
        that wait for it (a refusal reaches its client). True if some were moved."""
        outbox = self._outbox
        free = [p for p in outbox if p.seq == 0]
        if not free or outbox[0].seq == 0:
            return False
        waiting = [p for p in outbox if p.seq != 0]
        outbox.clear()
        outbox.extend(free)
        outbox.extend(waiting)
        return True

    async def _publish(self, ready: list[_Publication]) -> list[Any]:
        assert self._redis is not None
        async with self._redis.pipeline(transaction=False) as pipe:
            for publication in ready:
                payload = publication.payload
                pipe.publish(
                    publication.channel, payload if isinstance(payload, bytes) else payload()
                )
            result: list[Any] = await pipe.execute()
            return result

    # ------------------------------------------------------------ receiving

    async def _listen(self) -> None:
        while not self._closed:
            if not self.connected:  # (Redis did not answer at start)
                await self._reconnect()
                continue
            try:
                # A read that waits with no deadline: redis-py sets up no timeout a message
                # then (hiredis, the cluster extra, parses it: bench/results/server_load.md).
                # A connection that breaks raises; shutdown cancels the task.
                message = await self._pubsub.get_message(timeout=None)
            except (RedisError, OSError) as error:
                if self._closed:
                    return
                self._connection_lost(error)
                await self._reconnect()
                continue
            if message is not None:
                self._received(message)

    def _received(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        name = message["channel"]
        if kind == "subscribe":
            self._confirmed.add(name)
            for future in self._waiting.pop(name, ()):
                if not future.done():
                    future.set_result(None)
            return
        if kind != "message":
            return
        handler = self._handlers.get(name)
        if handler is None:
            return
        try:
            handler(message["data"])
        except Exception:  # one bad message must not stop the others
            log.exception("a message on %r could not be handled", name)

    def _connection_lost(self, error: BaseException) -> None:
        if self.connected:
            self.outage.failed(error, "relayed sockets are closed; own tables play on")
        self.connected = False
        self._up.clear()
        self._refuse_deliveries("Redis is away")
        self._confirmed.clear()
        for callback in self._lost:
            callback()

    async def _reconnect(self) -> None:
        while not self._closed:
            if self._pubsub is not None:
                with contextlib.suppress(Exception):
                    await self._pubsub.aclose()
                self._pubsub = None
            # The pool's idle connections may be from before Redis restarted: each would fail
            # once at its next use, which the publisher took for a second outage. Closed
            # here, they connect again when next used.
            if self._redis is not None:
                with contextlib.suppress(Exception):
                    await self._redis.connection_pool.disconnect(inuse_connections=False)
            try:
                await self._connect()
            except (RedisError, OSError) as error:
                self.outage.failed(error)
                await asyncio.sleep(self.RETRY_SECONDS)
                continue
            self.outage.back("relaying again")
            return

    # ------------------------------------------------------------ processes

    #: What a process's alive key is named after: this, then the process's id.
    alive_prefix = f"{PREFIX}alive:"

    @classmethod
    def _alive_key(cls, process: str) -> str:
        return cls.alive_prefix + process

    async def _beat(self) -> None:
        """Keep this process's key alive."""
        while not self._closed:
            await asyncio.sleep(self.ALIVE_SECONDS / 4)
            if self._redis is None:
                continue
            with contextlib.suppress(RedisError, OSError):
                await self._redis.set(
                    self._alive_key(self.process), 1, px=int(self.ALIVE_SECONDS * 1000)
                )

    async def take_turn(self, job: str, seconds: float) -> bool:
        """Whether this process does the cluster's periodic ``job`` now: the first to ask
        in each ``seconds`` does (every process while Redis does not answer)."""
        if self._redis is None or not self.connected:
            return True
        try:
            taken = await self._redis.set(
                f"{PREFIX}turn:{job}", self.process, nx=True, px=int(seconds * 1000)
            )
        except (RedisError, OSError):
            return True
        return bool(taken)

    async def alive(self, processes: Iterable[str]) -> set[str]:
        """Which of ``processes`` run (all of them, as far as anyone can tell, while Redis
        does not answer)."""
        asked = list(processes)
        if not asked or self._redis is None or not self.connected:
            return set(asked)
        try:
            found = await self._redis.mget([self._alive_key(p) for p in asked])
        except (RedisError, OSError):
            return set(asked)
        return {p for p, value in zip(asked, found, strict=True) if value is not None}

    # ------------------------------------------------------------ closing

    async def shutdown(self) -> None:
        """Publish what is waiting (for up to a second) and close."""
        if self._outbox and self.connected:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._drain(), 1.0)
        self._closed = True
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._redis.delete(self._alive_key(self.process))
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._redis.aclose()

    async def _drain(self) -> None:
        while self._outbox:
            await asyncio.sleep(0.01)


def channel(name: str) -> bytes:
    return (PREFIX + name).encode()


def _ignore(data: bytes) -> None:
    pass


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
