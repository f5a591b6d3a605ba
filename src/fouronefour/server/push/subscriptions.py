"""What a browser's ``PushSubscription`` must be before the server keeps it: an https
endpoint of a push service, and the two keys of RFC 8291 (the browser's P-256 public key
and its 16-byte authentication secret). Anything else is refused with ``bad_subscription``.

A push service is somebody else's server: an endpoint on this server's own network (a
loopback, private or link-local address, ``localhost``) is refused unless the server is
told its push service lives there (tests run one on loopback), so that a player cannot make
the server send requests into the network it runs in.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec

from .errors import PushCode, PushError

#: The longest endpoint kept (the push services' own are 150 to 500 characters).
MAX_ENDPOINT = 1024
#: Devices a profile may subscribe: a new one beyond this replaces its oldest.
MAX_PER_PROFILE = 10


@dataclass(frozen=True, slots=True)
class Subscription:
    """One device's subscription, as the browser gave it (keys base64url, unpadded)."""

    endpoint: str
    p256dh: str
    auth: str

    def info(self) -> dict[str, Any]:
        """As pywebpush takes it (the shape of ``PushSubscription.toJSON()``)."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


def unpadded_b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64_bytes(text: str) -> bytes:
    """Base64url (padded or not) to bytes; ValueError if it is none."""
    if not text.isascii():
        raise ValueError("not base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except binascii.Error as error:
        raise ValueError(str(error)) from None


def _refuse(why: str) -> PushError:
    return PushError(PushCode.BAD_SUBSCRIPTION, why)


def check_endpoint(endpoint: object, private_hosts: bool = False) -> str:
    if not isinstance(endpoint, str) or not endpoint:
        raise _refuse("a subscription needs its endpoint (a string)")
    if len(endpoint) > MAX_ENDPOINT or not endpoint.isascii() or not endpoint.isprintable():
        raise _refuse(f"an endpoint is a URL of at most {MAX_ENDPOINT} characters")
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname
        parts.port  # noqa: B018 (raises ValueError for a port that is no number)
    except ValueError:
        raise _refuse("the endpoint is no URL") from None
    if parts.scheme != "https" or not host:
        raise _refuse("an endpoint is an https:// URL")
    if parts.username is not None or parts.password is not None or parts.fragment:
        raise _refuse("an endpoint has no user, password or fragment")
    if not private_hosts and _on_private_network(host):
        raise _refuse("an endpoint is a push service's, not an address of this network")
    return endpoint


def _on_private_network(host: str) -> bool:
    if host == "localhost" or host.endswith((".localhost", ".local", ".internal")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False  # a name: the push services' are public ones
    return not address.is_global


def check_subscription(body: object, private_hosts: bool = False) -> Subscription:
    """The subscription a request's body holds (``{"endpoint", "keys": {"p256dh",
    "auth"}}``), checked; ``private_hosts``: endpoints on private networks allowed."""
    if not isinstance(body, dict):
        raise _refuse("a subscription is an object")
    endpoint = check_endpoint(body.get("endpoint"), private_hosts)
    keys = body.get("keys")
    if not isinstance(keys, dict):
        raise _refuse("a subscription needs its keys (p256dh and auth)")
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not isinstance(p256dh, str) or not isinstance(auth, str):
        raise _refuse("the keys p256dh and auth are base64url strings")
    if len(p256dh) > 100 or len(auth) > 32:
        raise _refuse("the keys are a P-256 public key (65 bytes) and a 16-byte secret")
    try:
        point = b64_bytes(p256dh)
        secret = b64_bytes(auth)
        if len(point) != 65 or len(secret) != 16:
            raise ValueError("wrong length")
        # (A point that is not on the curve: no device holds its private key.)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise _refuse(
            "p256dh is an uncompressed P-256 public key (65 bytes), auth 16 bytes, both base64url"
        ) from None
    return Subscription(endpoint, unpadded_b64(point), unpadded_b64(secret))
