"""The :class:`~fouronefour.server.notify.Notifier` that reaches a player's devices through
their push services (RFC 8030), with ``pywebpush``: the payload encrypted for each device
(RFC 8291, aes128gcm) and signed with the server's VAPID key (RFC 8292).

Sending never holds up the event loop: :meth:`WebPush.notify` reads what it needs from the
database, puts one delivery a device in a bounded queue and returns; a few tasks take them
and post each from a thread of their own (``requests``, with connect and read timeouts). A
full queue drops what does not fit (a notice is worth little late). A device whose push
service answers 404 or 410 is gone: its subscription is forgotten.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import orjson
import requests
from pywebpush import WebPushException, webpush

from ..notify import Notice, NoticeKind
from .store import PushStore
from .subscriptions import Subscription
from .vapid import VapidKeys
from .words import words

log = logging.getLogger(__name__)

#: Deliveries waiting for a thread; more are dropped.
QUEUE = 1000
#: Posts at once (each a thread, waiting on the network).
SENDERS = 4
#: Seconds to connect to a push service, and to wait for each read of its answer.
TIMEOUT = (5.0, 10.0)
#: How long a push service keeps a notice for a device that is off (seconds): a turn is
#: over soon; an invite holds a while; a club's event is announced for its start.
TTL: dict[NoticeKind, int] = {"turn": 300, "invite": 900, "club_event": 3600}
URGENCY: dict[NoticeKind, str] = {"turn": "high", "invite": "high", "club_event": "normal"}
#: The push services' answers that mean the subscription is gone for good.
GONE = frozenset({404, 410})
#: At most one log line this often about dropped or failed deliveries.
LOG_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Delivery:
    subscription: Subscription
    payload: str
    ttl: int
    urgency: str
    #: Replaces a notice with the same topic still waiting at the push service.
    topic: str | None


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
        timeout: tuple[float, float] = TIMEOUT,
    ) -> None:
        self.store = store
        self.public_key = keys.public
        self._signer = keys.signer()
        #: The VAPID ``sub``: how a push service reaches the server's operator.
        self.contact = contact
        #: A live profile's language, None for a profile deleted or unknown.
        self._language_of = language_of
        self._timeout = timeout
        self._queue: asyncio.Queue[Delivery] = asyncio.Queue(queue)
        self._senders = senders
        self._pool = ThreadPoolExecutor(senders, thread_name_prefix="webpush")
        self._sessions = threading.local()
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
        self._pool.shutdown(wait=False, cancel_futures=True)

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
            delivery = await self._queue.get()
            try:
                status = await loop.run_in_executor(self._pool, self._post, delivery)
                if status in GONE:
                    await self.store.forget(
                        delivery.subscription.endpoint, delivery.subscription.p256dh
                    )
                    self.forgotten += 1
                elif 200 <= status < 300:
                    self.sent += 1
                else:
                    self.failed += 1
                    self._note("a push service refused a notice (%s)", status or "no answer")
            except Exception:  # (a database away, a thread pool shut: the next one may work)
                self.failed += 1
                log.exception("a notice could not be sent")
            finally:
                self._queue.task_done()

    def _post(self, delivery: Delivery) -> int:
        """Post one delivery (on a sender thread); the push service's status, 0 for none."""
        session = getattr(self._sessions, "session", None)
        if session is None:
            session = self._sessions.session = requests.Session()
        headers: dict[str, str | int | float] = {"Urgency": delivery.urgency}
        if delivery.topic is not None:
            headers["Topic"] = delivery.topic
        try:
            response = webpush(
                delivery.subscription.info(),
                data=delivery.payload,
                vapid_private_key=self._signer,
                # (A new dict each time: pywebpush writes the audience and expiry into it.)
                vapid_claims={"sub": self.contact},
                ttl=delivery.ttl,
                timeout=self._timeout,  # (requests takes a pair: connect, read)
                headers=headers,
                requests_session=session,
            )
        except WebPushException as error:
            return error.status_code or 0
        except requests.RequestException:
            return 0
        return response.status_code if isinstance(response, requests.Response) else 0

    def _note(self, message: str, *args: object) -> None:
        now = time.monotonic()
        if now - self._last_log >= LOG_SECONDS:
            self._last_log = now
            log.warning(message, *args)
