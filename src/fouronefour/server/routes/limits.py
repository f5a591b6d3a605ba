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


def wait_seconds(wait: float) -> int:
    """A bucket's wait as the whole seconds of a ``Retry-After`` (1 to 3600)."""
    return max(1, math.ceil(min(3600.0, wait)))


class AddressLimiter:
    """The limit on HTTP requests that change something (creating a table, taking a seat),
    per client address: one address cannot fill the server with tables.

    Loopback clients and those without an address (this machine, a Unix socket) are not
    limited. Behind a reverse proxy on the same machine every client would look like one of
    those: the proxy must connect over 127.0.0.1 and send ``X-Forwarded-For`` (uvicorn
    trusts it from 127.0.0.1 only), which names the real address. The buckets are this
    process's own, or a cluster's in Redis (``shared``, shared.py)."""

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

    async def check(self, request: Request) -> None:
        """Count the request, or raise ``rate_limited`` if the address is over its limit."""
        key = address_key(request.client.host if request.client else None, self._limit_loopback)
        if key is None:
            return
        shared = self._shared
        wait = self._buckets.take(key) if shared is None else await shared.take(key)
        if wait:
            seconds = wait_seconds(wait)
            raise RateLimited(
                f"too many tables created or seats taken from {key}: try again in {seconds} s",
                seconds,
            )


class FailedLookups:
    """Invite codes are short enough to guess (31^6, and every table's code is one of
    them): each client address may ask for ``burst`` codes that are no table, then one every
    ``1 / rate_per_second`` seconds. While it has none left, every lookup from it is refused
    (``rate_limited``), a table's code too, so that a refusal tells nothing. Loopback
    clients are not limited, unless ``limit_loopback`` (AddressLimiter says why). In a
    cluster the buckets are shared by its processes (``shared``), so that guessing through
    several processes gains nothing."""

    def __init__(
        self,
        rate_per_second: float,
        burst: int,
        limit_loopback: bool,
        shared: SharedBuckets | None = None,
    ) -> None:
        self._buckets = AddressBuckets(rate_per_second, burst)
        self._shared = shared
        self._limit_loopback = limit_loopback

    async def find(
        self, registry: TableRegistry, code: str, host: str | None, invite: object = None
    ) -> Table:
        """The table of ``code``; a private one only with its ``invite`` (``ANY``: checked
        later, at a WebSocket's hello)."""
        key = address_key(host, self._limit_loopback)
        shared = self._shared
        if key is not None:
            wait = self._buckets.wait(key) if shared is None else await shared.wait(key)
            if wait:
                seconds = wait_seconds(wait)
                raise RateLimited(
                    f"too many unknown table codes asked for from {key}: try again in {seconds} s",
                    seconds,
                )
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
        key = address_key(host, self._limit_loopback)
        if key is not None:
            if self._shared is None:
                self._buckets.take(key)
            else:
                await self._shared.take(key)


#: ``FailedLookups.find``'s invite for a lookup whose invite is checked later.
ANY = object()
