"""Connections that hold a file descriptor without finishing a request.

uvicorn closes a keep-alive connection left idle between requests, but nothing else: a
socket that sends nothing, headers never finished, a body promised and never sent stay
open for good, and about a thousand of them (at the usual 1,024 descriptors) stop every
new request and every reconnect. ASGI middleware cannot help: it runs once the headers
are in. So the server's HTTP protocol is uvicorn's own with two additions:

- a request must arrive in full within ``request_seconds`` of the connection being ready
  for it (opened, or its previous answer sent), and a client must keep reading what it
  asked for; otherwise the connection is closed. (A WebSocket's hello has its own
  deadline, ``ServerConfig.hello_timeout``.)
- a request's line and headers are at most ``MAX_HEAD`` bytes (uvicorn's httptools parser
  keeps whatever comes: 300 MB of one header held 600 MB of memory); more is answered 431
  and closed. (Requests pipelined behind the first in one read are parsed with it: the
  read's size bounds them.)
- one client address (ratelimit.address_key: an IPv4 address, an IPv6 /64) holds at most
  ``per_address`` connections, WebSockets included; one more is answered 429
  ``too_many_connections`` and closed at once.

Behind a reverse proxy on the same machine every connection comes from loopback, which is
not limited per address: the proxy must do both (docs/hosting.md).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import orjson

from ..errors import ErrorCode
from ..ratelimit import address_key

#: Bytes of a request line and headers: as Node's default (browsers send about 1 KB here).
MAX_HEAD = 16 * 1024
#: A WebSocket's keep-alive: the server sends a ping frame every ``PING_SECONDS``, and a
#: connection that has not answered one within ``PONG_SECONDS`` (a client gone without
#: closing, or one that stopped reading its socket) is closed with 1011 "keepalive ping
#: timeout" (docs/protocol.md section 3). Browsers answer pings in their network stack even
#: in a tab in the background, so only a dead link goes unanswered: 20 s rides out a phone's
#: tunnel or cell handover, and a vanished player's seat shows offline within 40 s.
PING_SECONDS = 20.0
PONG_SECONDS = 20.0
#: Addresses kept before the next sweep of those whose connections have all closed.
MIN_SWEEP = 1024


def _response(status: str, code: ErrorCode, message: str) -> bytes:
    """A whole HTTP answer with the API's error body, then the connection is closed."""
    body = orjson.dumps({"error": {"code": str(code), "message": message}})
    head = (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class HeldConnections:
    """Each client address's open transports, for the per-address limit. A transport that
    became a WebSocket is no longer its protocol's to see closing: closed ones are pruned
    when their address connects again, and every address's when the book has doubled."""

    __slots__ = ("_held", "_sweep_at")

    def __init__(self) -> None:
        self._held: dict[str, set[asyncio.BaseTransport]] = {}
        self._sweep_at = MIN_SWEEP

    def take(self, key: str, transport: asyncio.BaseTransport, limit: int) -> bool:
        """Count ``transport`` under ``key``; False (not counted) if ``key`` holds ``limit``."""
        held = self._held
        if key not in held and len(held) >= self._sweep_at:
            for other in list(held):
                self._prune(other)
            self._sweep_at = max(MIN_SWEEP, 2 * len(held))
        transports = held.setdefault(key, set())
        transports.difference_update([t for t in transports if t.is_closing()])
        if len(transports) >= limit:
            return False
        transports.add(transport)
        return True

    def release(self, key: str, transport: asyncio.BaseTransport) -> None:
        transports = self._held.get(key)
        if transports is not None:
            transports.discard(transport)
            if not transports:
                del self._held[key]

    def _prune(self, key: str) -> None:
        transports = self._held[key]
        transports.difference_update([t for t in transports if t.is_closing()])
        if not transports:
            del self._held[key]


@dataclass(frozen=True, slots=True)
class Guard:
    """One server's guard settings and the answers it closes a connection with."""

    request_seconds: float
    per_address: int
    limit_loopback: bool
    held: HeldConnections
    refusal: bytes
    too_large: bytes
    unreadable: bytes


#: uvicorn's HTTP protocol class, the base of the guarded one (given at run time).
_UvicornProtocol: Any = asyncio.Protocol


class _GuardedProtocol(_UvicornProtocol):  # type: ignore[misc]
    """The additions to uvicorn's protocol; :func:`guarded_protocol` puts them before it."""

    _guard: Guard
    _deadline: asyncio.TimerHandle | None = None
    _address: str | None = None
    # The request being waited for has its headers in once uvicorn has made it a new
    # cycle; until then what arrives is counted against MAX_HEAD.
    _previous_cycle: object = None
    _head_bytes = 0
    _tail = b""  # the last bytes of the head so far (its end may straddle two reads)

    def connection_made(self, transport: asyncio.Transport) -> None:
        super().connection_made(transport)
        guard = self._guard
        key = address_key(self.client[0] if self.client else None, guard.limit_loopback)
        if key is not None:
            if not guard.held.take(key, transport, guard.per_address):
                transport.write(guard.refusal)
                transport.close()
                return
            self._address = key
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._address is not None:
            self._guard.held.release(self._address, self.transport)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.cycle is self._previous_cycle:  # this request's head is still coming
            end = (self._tail + data).find(b"\r\n\r\n")
            head = len(data) if end < 0 else end + 4 - len(self._tail)
            if self._head_bytes + head > MAX_HEAD:
                if not self.transport.is_closing():
                    self.transport.write(self._guard.too_large)
                    self.transport.close()
                return
            self._head_bytes += len(data)
            self._tail = (self._tail + data)[-3:]
        super().data_received(data)

    def send_400_response(self, msg: str) -> None:
        """A request uvicorn's parser refused (``Content-Length: -5``): the API's error
        body rather than uvicorn's plain text (docs/protocol.md section 2)."""
        if not self.transport.is_closing():
            self.transport.write(self._guard.unreadable)
            self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()  # the next request has as long as the first

    def handle_websocket_upgrade(self, *args: Any) -> None:
        self._disarm()  # a WebSocket now: the application's hello deadline holds it
        super().handle_websocket_upgrade(*args)

    def _arm(self) -> None:
        self._disarm()
        self._previous_cycle = self.cycle
        self._head_bytes = 0
        self._tail = b""
        if not self.transport.is_closing():
            self._deadline = self.loop.call_later(self._guard.request_seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        cycle = self.cycle
        if (
            cycle is not None
            and not cycle.more_body
            and not cycle.response_complete
            and not self.flow.write_paused
        ):
            self._arm()  # the request is in and its answer being made or read: wait
            return
        self.transport.close()


def guarded_protocol(
    base: type[Any], request_seconds: float, per_address: int, limit_loopback: bool = False
) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class ``base`` with the deadline and the address limit."""
    guard = Guard(
        request_seconds,
        per_address,
        limit_loopback,
        HeldConnections(),
        refusal=_response(
            "429 Too Many Requests",
            ErrorCode.TOO_MANY_CONNECTIONS,
            f"one address may hold {per_address} connections to this server",
        ),
        too_large=_response(
            "431 Request Header Fields Too Large",
            ErrorCode.TOO_LARGE,
            f"a request's line and headers are limited to {MAX_HEAD} bytes",
        ),
        unreadable=_response(
            "400 Bad Request", ErrorCode.BAD_MESSAGE, "the request could not be read as HTTP/1.1"
        ),
    )
    name = f"Guarded{base.__name__}"
    protocol: type[asyncio.Protocol] = type(
        name, (_GuardedProtocol, base), {"_guard": guard, "__qualname__": name}
    )
    return protocol
