"""What the sender's worker process does (push/webpush.py hands it the deliveries): post
each to its push service with ``pywebpush`` over one pooled ``aiohttp`` session, encrypted
for the device and signed with the server's VAPID key, and answer each push service's
status. The process has its own event loop, so neither the encryption nor the HTTP of a
burst of notices takes a moment of the server's own loop.
"""

from __future__ import annotations

import asyncio
import os
import ssl
from dataclasses import dataclass

import aiohttp
from pywebpush import WebPushException, webpush_async

from ..background.workers import worker_init
from .subscriptions import Subscription
from .vapid import VapidKeys

#: Posts at once in the worker.
POSTS = 16
#: Seconds to connect to a push service, to wait for each read of its answer, and in all.
CONNECT_SECONDS, READ_SECONDS, TOTAL_SECONDS = 5.0, 10.0, 20.0
#: The worker gives way to the server's own processes (a notice may wait a moment).
NICENESS = 5


@dataclass(frozen=True, slots=True)
class Delivery:
    subscription: Subscription
    payload: str
    ttl: int
    urgency: str
    #: Replaces a notice with the same topic still waiting at the push service.
    topic: str | None


class _Poster:
    """The worker process's one loop, session and signer."""

    def __init__(self, keys: VapidKeys, contact: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.signer = keys.signer()
        self.contact = contact
        self.timeout = aiohttp.ClientTimeout(
            total=TOTAL_SECONDS, sock_connect=CONNECT_SECONDS, sock_read=READ_SECONDS
        )
        self.session = self.loop.run_until_complete(self._open())
        self.posts = asyncio.Semaphore(POSTS)

    async def _open(self) -> aiohttp.ClientSession:
        # The system's certificate authorities (SSL_CERT_FILE, if set, names them).
        connector = aiohttp.TCPConnector(ssl=ssl.create_default_context(), limit=POSTS)
        return aiohttp.ClientSession(connector=connector, timeout=self.timeout)

    async def post(self, delivery: Delivery) -> int:
        """The push service's status, 0 for none (no answer in time)."""
        headers: dict[str, str | int | float] = {"Urgency": delivery.urgency}
        if delivery.topic is not None:
            headers["Topic"] = delivery.topic
        async with self.posts:
            try:
                response = await webpush_async(
                    delivery.subscription.info(),
                    data=delivery.payload,
                    vapid_private_key=self.signer,
                    # (A new dict each time: pywebpush writes the audience and expiry in it.)
                    vapid_claims={"sub": self.contact},
                    ttl=delivery.ttl,
                    timeout=self.timeout,  # (aiohttp's own: connect, read, total)
                    headers=headers,
                    aiohttp_session=self.session,
                )
            except WebPushException as error:
                return error.status_code or 0
            except (aiohttp.ClientError, TimeoutError):
                return 0
            response.release()  # (its connection goes back to the pool)
            return int(response.status)

    async def post_all(self, deliveries: list[Delivery]) -> list[int]:
        return list(await asyncio.gather(*(self.post(d) for d in deliveries)))


_poster: _Poster | None = None


def start_worker(parent: int, private: str, public: str, contact: str) -> None:
    """The worker's initializer: end with the server (workers.py), then ready to post."""
    global _poster
    worker_init(parent, NICENESS)
    _poster = _Poster(VapidKeys(private, public), contact)


def post_batch(deliveries: list[Delivery]) -> list[int]:
    """Post ``deliveries`` (in the worker); each one's status, in order."""
    if _poster is None:  # (not a worker started by start_worker)
        raise RuntimeError(f"process {os.getpid()} is no push worker")
    return _poster.loop.run_until_complete(_poster.post_all(deliveries))
