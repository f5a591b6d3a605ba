"""The per-address limits of the HTTP API and the WebSocket lookups: requests that change
something (:class:`AddressLimiter`) and table codes that are no table (:class:`FailedLookups`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from fastapi import Request

from ..errors import ErrorCode, TableError
from ..ratelimit import AddressBuckets, address_key
from ..tables import invites
from .answers import RateLimited

if TYPE_CHECKING:
    from ..cluster.shared import SharedBuckets
    from ..registry import TableRegistry
    from ..tables.table import Table


class AddressLimit:
    """Token buckets per client address: this process's own, or a cluster's in Redis
    (``shared``, shared.py). Loopback clients and those without an address are not
    limited unless ``limit_loopback`` (:class:`AddressLimiter` says why)."""

    def __init__(
        self,
        rate_per_second: float,
        burst: int,
        limit_loopback: bool = False,
        shared: SharedBuckets | None = None,
    ) -> None:
        self._buckets = AddressBuckets(rate_per_second, burst)
        self._shared = shared
        self._limit_loopback = limit_loopback

    def key(self, host: str | None) -> str | None:
        """The bucket of a client's address; None: not limited."""
        return address_key(host, self._limit_loopback)

    async def take(self, key: str) -> float:
        """Take a token from ``key``'s bucket: 0, or how long until it has one."""
        shared = self._shared
        return self._buckets.take(key) if shared is None else await shared.take(key)

    async def wait(self, key: str) -> float:
        """How long until ``key``'s bucket has a token (none taken)."""
        shared = self._shared
        return self._buckets.wait(key) if shared is None else await shared.wait(key)


def refused(wait: float, what: str, key: str) -> RateLimited:
    """The refusal of ``what`` from ``key`` for ``wait`` seconds (1 to 3600)."""
    seconds = max(1, math.ceil(min(3600.0, wait)))
    return RateLimited(f"too many {what} from {key}: try again in {seconds} s", seconds)


class AddressLimiter(AddressLimit):
    """The limit on HTTP requests that change something (creating a table, taking a seat),
    per client address: one address cannot fill the server with tables.

    Loopback clients and those without an address (this machine, a Unix socket) are not
    limited. Behind a reverse proxy on the same machine every client would look like one of
    those: the proxy must connect over 127.0.0.1 and send ``X-Forwarded-For`` (uvicorn
    trusts it from 127.0.0.1 only), which names the real address. The buckets are this
    process's own, or a cluster's in Redis (``shared``, shared.py)."""

    async def check(self, request: Request) -> None:
        """Count the request, or raise ``rate_limited`` if the address is over its limit."""
        key = self.key(request.client.host if request.client else None)
        if key is None:
            return
        wait = await self.take(key)
        if wait:
            raise refused(wait, "tables created or seats taken", key)


class FailedLookups(AddressLimit):
    """Invite codes are short enough to guess (31^6, and every table's code is one of
    them): each client address may ask for ``burst`` codes that are no table, then one every
    ``1 / rate_per_second`` seconds. While it has none left, every lookup from it is refused
    (``rate_limited``), a table's code too, so that a refusal tells nothing. Loopback
    clients are not limited, unless ``limit_loopback`` (AddressLimiter says why). In a
    cluster the buckets are shared by its processes (``shared``), so that guessing through
    several processes gains nothing."""

    async def find(
        self, registry: TableRegistry, code: str, host: str | None, invite: object = None
    ) -> Table:
        """The table of ``code``; a private one only with its ``invite`` (``ANY``: checked
        later, at a WebSocket's hello)."""
        key = self.key(host)
        if key is not None:
            wait = await self.wait(key)
            if wait:
                raise refused(wait, "unknown table codes asked for", key)
        try:
            table = await registry.get(code)
            if invite is not ANY and not invites.admits(table.options.invite_hash, invite):
                raise invites.not_found(table.code)
        except TableError as error:
            if error.code is ErrorCode.TABLE_NOT_FOUND:
                await self.failed(host)
            raise
        return table

    async def failed(self, host: str | None) -> None:
        """Count a failed lookup that was found out after ``find`` (a private table's wrong
        handoff secret, or an answer relayed from the table's owner)."""
        key = self.key(host)
        if key is not None:
            await self.take(key)


#: ``FailedLookups.find``'s invite for a lookup whose invite is checked later.
ANY = object()
