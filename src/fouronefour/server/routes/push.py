"""Web Push over HTTP (docs/push.md, "HTTP"): the server's public VAPID key, a profile's
devices subscribed and unsubscribed, and the kinds of notice it wants. Changes pass the
players' :class:`~.players.Gate` (session cookie and CSRF header), and a profile changes its
devices at most :data:`CHANGES_BURST` times, then one every 6 s (shared by a cluster's
processes)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..errors import ErrorCode
from ..players.errors import PlayerError
from ..push.errors import PushError
from ..push.service import check_settings
from ..ratelimit import AddressBuckets
from .players import Gate, _body, _json
from .state import ServerState

#: Subscription changes a profile may make at once, and how many a second it gains after.
CHANGES_BURST = 20
CHANGES_PER_SECOND = 1 / 6


class _Changes:
    """Subscription changes per profile: this process's buckets, or the cluster's."""

    def __init__(self, state: ServerState) -> None:
        self._local = AddressBuckets(CHANGES_PER_SECOND, CHANGES_BURST)
        self._shared = None
        broker = state.backends.broker
        if broker is not None:
            from ..cluster.shared import SharedBuckets

            self._shared = SharedBuckets(broker, "push", CHANGES_PER_SECOND, CHANGES_BURST)

    async def take(self, profile_id: str) -> None:
        wait = (
            self._local.take(profile_id)
            if self._shared is None
            else await self._shared.take(profile_id)
        )
        if wait > 0:
            raise PlayerError(ErrorCode.RATE_LIMITED, "too many changes of devices", wait)


def _refused(error: PushError) -> Response:
    return _json({"error": error.to_dict()}, error.status)


def push_router(state: ServerState) -> APIRouter:
    router = APIRouter()
    gate = Gate(state.players, state.config.limit_loopback)
    push = state.push
    if push is None:  # (ServerState.build makes it)
        raise ValueError("the server state has no Web Push")
    changes = _Changes(state)

    async def answer(request: Request, work: Callable[[], Awaitable[Response]]) -> Response:
        async def checked() -> Response:
            try:
                return await work()
            except PushError as error:
                return _refused(error)

        return await gate.answer(request, checked)

    @router.get("/api/push/key")
    async def key(request: Request) -> Response:
        async def work() -> Response:
            return _json({"key": push.public_key()})

        return await answer(request, work)

    @router.get("/api/me/push")
    async def mine(request: Request) -> Response:
        async def work() -> Response:
            profile_id = (await gate.session(request)).profile.id
            devices = await push.store.subscriptions(profile_id)
            return _json(
                {
                    "settings": await push.store.settings(profile_id),
                    "endpoints": [s.endpoint for s, _ in devices],
                    "available": push.keys is not None,
                }
            )

        return await answer(request, work)

    @router.post("/api/me/push/subscriptions")
    async def subscribe(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            subscription = push.subscription(await _body(request))
            await changes.take(current.profile.id)
            await push.store.subscribe(current.profile.id, subscription, int(time.time() * 1000))
            return _json({"ok": True}, 201)

        return await answer(request, work)

    @router.delete("/api/me/push/subscriptions")
    async def unsubscribe(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            endpoint = push.endpoint(await _body(request))
            await changes.take(current.profile.id)
            removed = await push.store.unsubscribe(current.profile.id, endpoint)
            return _json({"ok": True, "removed": removed})

        return await answer(request, work)

    @router.patch("/api/me/push/settings")
    async def settings(request: Request) -> Response:
        async def work() -> Response:
            current = await gate.changing(request)
            chosen = check_settings(await _body(request))
            return _json({"settings": await push.store.change_settings(current.profile.id, chosen)})

        return await answer(request, work)

    return router
