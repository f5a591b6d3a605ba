"""The :class:`~fouronefour.server.notify.Notifier` that reaches a player's devices through
their push services (RFC 8030), with ``pywebpush``: the payload encrypted for each device
(RFC 8291, aes128gcm) and signed with the server's VAPID key (RFC 8292).

Sending never holds up the event loop: :meth:`WebPush.notify` reads what it needs from the
database, puts one delivery a device in a bounded queue and returns; two tasks take them in
batches and hand each batch to a worker process (posting.py), which encrypts, signs and
posts them, 16 at a time, with connect and read timeouts, and answers their statuses.
(Sender threads in this process were measured first: their Python work holds the
interpreter's lock, and the loop ran 20 to 30 ms late while they sent; an async client on
this loop took the loop whole during a burst: bench/push.py.) A full queue drops what does
not fit (a notice is worth little late). A device whose push service answers 404 or 410
is gone: its subscription is forgotten.
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import hashlib
import logging
import multiprocessing
import os
import time
from collections.abc import Awaitable, Callable
from concurrent.futures.process import BrokenProcessPool

import orjson

from ..notify import Notice, NoticeKind
from .posting import Delivery, post_batch, start_worker
from .store import PushStore
from .vapid import VapidKeys
from .words import words

log = logging.getLogger(__name__)

#: Deliveries waiting to be posted; more are dropped.
QUEUE = 1000
#: Batches in the worker processes at once (each a process), and a batch's most deliveries.
SENDERS = 2
BATCH = 64
#: How long a push service keeps a notice for a device that is off (seconds): a turn is
#: over soon; an invite holds a while; a club's event is announced for its start.
TTL: dict[NoticeKind, int] = {"turn": 300, "invite": 900, "club_event": 3600}
URGENCY: dict[NoticeKind, str] = {"turn": "high", "invite": "high", "club_event": "normal"}
#: The push services' answers that mean the subscription is gone for good.
GONE = frozenset({404, 410})
#: At most one log line this often about dropped or failed deliveries.
LOG_SECONDS = 60.0


def topic_of(tag: str) -> str | None:
    """A tag as an RFC 8030 Topic (at most 32 base64url characters)."""
    if not tag:
        return None
    return base64.urlsafe_b64encode(hashlib.sha256(tag.encode()).digest()[:24]).decode()


class WebPush:
    """Sends notices to the devices a profile subscribed, in its language."""

    def __init__(
        self,
        store: PushStore,
        keys: VapidKeys,
        contact: str,
        language_of: Callable[[str], Awaitable[str | None]],
        *,
        queue: int = QUEUE,
        senders: int = SENDERS,
    ) -> None:
        self.store = store
        keys.signer()  # (keys that do not belong together are refused here, not in a worker)
        self._keys = keys
        self.public_key = keys.public
        #: The VAPID ``sub``: how a push service reaches the server's operator.
        self.contact = contact
        #: A live profile's language, None for a profile deleted or unknown.
        self._language_of = language_of
        self._queue: asyncio.Queue[Delivery] = asyncio.Queue(queue)
        self._senders = senders
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._tasks: list[asyncio.Task[None]] = []
        #: What happened to the deliveries: posted and accepted, refused or failed,
        #: dropped for want of room, subscriptions forgotten.
        self.sent = self.failed = self.dropped = self.forgotten = 0
        self._last_log = float("-inf")

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._send_loop()) for _ in range(self._senders)]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def _workers(self) -> concurrent.futures.ProcessPoolExecutor:
        """The worker processes, started at the first notice (they end with the server,
        however it ends: background/workers.py)."""
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self._senders,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=start_worker,
                initargs=(os.getpid(), self._keys.private, self._keys.public, self.contact),
            )
        return self._pool

    async def drain(self) -> None:
        """Until every delivery queued so far is done (posted, and forgotten if gone)."""
        await self._queue.join()

    async def notify(self, profile_id: str, notice: Notice) -> int:
        if not (await self.store.settings(profile_id))[notice.kind]:
            return 0
        devices = await self.store.subscriptions(profile_id)
        if not devices:
            return 0
        language = await self._language_of(profile_id)
        if language is None:
            return 0
        title, body = words(notice, language)
        payload = orjson.dumps(
            {
                "kind": notice.kind,
                "title": title,
                "body": body,
                "url": notice.url,
                "tag": notice.tag,
            }
        ).decode()
        queued = 0
        for subscription, _ in devices:
            delivery = Delivery(
                subscription, payload, TTL[notice.kind], URGENCY[notice.kind], topic_of(notice.tag)
            )
            try:
                self._queue.put_nowait(delivery)
            except asyncio.QueueFull:
                self.dropped += 1
                self._note("a notice was dropped: %d deliveries wait already", self._queue.qsize())
                continue
            queued += 1
        return queued

    async def _send_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            batch = [await self._queue.get()]
            while len(batch) < BATCH and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            pool = None
            try:
                pool = self._workers()
                statuses = await loop.run_in_executor(pool, post_batch, batch)
                for delivery, status in zip(batch, statuses, strict=True):
                    await self._done(delivery, status)
            except BrokenProcessPool:  # (a worker killed: the next batch starts a new one)
                if pool is not None:
                    if self._pool is pool:  # (not one the other sender started since)
                        self._pool = None
                    pool.shutdown(wait=False, cancel_futures=True)
                self.failed += len(batch)
                log.warning("the push worker process ended: %d notices not sent", len(batch))
            except Exception:  # (a database away: the next batch may do)
                self.failed += len(batch)
                log.exception("notices could not be sent")
            finally:
                for _ in batch:
                    self._queue.task_done()

    async def _done(self, delivery: Delivery, status: int) -> None:
        if status in GONE:
            await self.store.forget(delivery.subscription.endpoint, delivery.subscription.p256dh)
            self.forgotten += 1
        elif 200 <= status < 300:
            self.sent += 1
        else:
            self.failed += 1
            self._note("a push service refused a notice (%s)", status or "no answer")

    def _note(self, message: str, *args: object) -> None:
        now = time.monotonic()
        if now - self._last_log >= LOG_SECONDS:
            self._last_log = now
            log.warning(message, *args)
