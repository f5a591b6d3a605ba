"""Web Push as the server holds it (:class:`PushService`): the store, the keys read or made
when the server starts, and the sender that is the server's notifier from then on."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

from ..config import ServerConfig
from ..notify import NOTICE_KINDS, NoticeKind
from ..players.store import PlayerStore
from ..players.values import LANGUAGES
from ..storage.values import StorageError
from .errors import PushCode, PushError
from .store import PushStore
from .subscriptions import Subscription, check_endpoint, check_subscription
from .vapid import VapidKeys
from .webpush import WebPush

log = logging.getLogger(__name__)


class PushService:
    """What the push routes and the server's start-up use; a profile's devices and choices
    in its export, and forgotten with it (players' ProfileData)."""

    name = "push"

    def __init__(self, store: PushStore, profiles: PlayerStore, config: ServerConfig) -> None:
        self.store = store
        self.profiles = profiles
        self.contact = config.push_contact
        #: Endpoints on a private network are accepted (a push service beside the server).
        self.private_hosts = config.push_private_endpoints
        self.keys: VapidKeys | None = None
        #: The sender, once started (None: no keys, so nothing can be sent).
        self.sender: WebPush | None = None

    async def start(self) -> WebPush | None:
        """Read the server's VAPID keys, made and kept on the first start; then start the
        sender. None (and a log line) if the database cannot keep them."""
        try:
            self.keys = await self.store.keys()
        except (StorageError, sqlite3.Error, OSError) as error:
            # (A read-only file or a database away: the tables are served all the same.)
            log.warning("Web Push is off (no VAPID keys): %s", error)
            return None
        self.sender = WebPush(self.store, self.keys, self.contact, self._language_of)
        self.sender.start()
        return self.sender

    async def close(self) -> None:
        if self.sender is not None:
            await self.sender.close()

    async def _language_of(self, profile_id: str) -> str | None:
        profile = await self.profiles.get_profile(profile_id)
        if profile is None or profile.deleted:
            return None
        return profile.language if profile.language in LANGUAGES else "en"

    def public_key(self) -> str:
        if self.keys is None:
            raise PushError(PushCode.PUSH_UNAVAILABLE, "this server sends no notices")
        return self.keys.public

    def subscription(self, body: object) -> Subscription:
        return check_subscription(body, self.private_hosts)

    def endpoint(self, body: object) -> str:
        return check_endpoint(
            body.get("endpoint") if isinstance(body, dict) else None, self.private_hosts
        )

    async def export(self, profile_id: str) -> dict[str, Any]:
        return await self.store.export(profile_id)

    async def forget(self, profile_id: str) -> None:
        # (The players' own deletion removes the rows already, in its transaction, for a
        # guest forgotten by retention too: this is for a deletion that did not reach it.)
        await self.store.forget_profile(profile_id)


def check_settings(body: object) -> dict[NoticeKind, bool]:
    """Settings to change: ``{"invite": false, ...}``, each a kind and a boolean."""
    if not isinstance(body, dict) or not body:
        raise PushError(PushCode.BAD_PUSH_SETTINGS, "settings are an object of kinds")
    changes: dict[NoticeKind, bool] = {}
    for kind in NOTICE_KINDS:
        if kind in body:
            value = body[kind]
            if not isinstance(value, bool):
                raise PushError(PushCode.BAD_PUSH_SETTINGS, f"{kind} is true or false")
            changes[kind] = value
    unknown = set(body) - set(NOTICE_KINDS)
    if unknown:
        kinds = ", ".join(NOTICE_KINDS)
        raise PushError(PushCode.BAD_PUSH_SETTINGS, f"the kinds of notice are {kinds}")
    return changes
