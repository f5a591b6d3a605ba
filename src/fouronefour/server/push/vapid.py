"""The server's VAPID key pair (RFC 8292): push services accept a notice for a subscription
only when it is signed by the key the subscription was made with, so the pair is made once,
on the first start, and kept in the database beside the profiles (:class:`~.store.PushStore`):
every process of a cluster signs with the same key, and a restart keeps the devices'
subscriptions working.
"""

from __future__ import annotations

from dataclasses import dataclass

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid

from .subscriptions import b64_bytes, unpadded_b64


@dataclass(frozen=True, slots=True)
class VapidKeys:
    #: The private scalar, 32 bytes as base64url (never leaves the server).
    private: str
    #: The public key, an uncompressed P-256 point as base64url: the page's
    #: ``applicationServerKey`` (GET /api/push/key).
    public: str

    @classmethod
    def make(cls) -> VapidKeys:
        key = ec.generate_private_key(ec.SECP256R1())
        scalar = key.private_numbers().private_value.to_bytes(32, "big")
        return cls(unpadded_b64(scalar), public_of(key))

    def signer(self) -> Vapid:
        """py_vapid's signer of this key (RFC 8292's ``vapid t=...,k=...`` header)."""
        key = ec.derive_private_key(int.from_bytes(b64_bytes(self.private), "big"), ec.SECP256R1())
        if public_of(key) != self.public:
            raise ValueError("the VAPID keys kept do not belong together")
        # (The contact is checked where it is set, serve's --push-contact: py_vapid's own
        # check refuses an https: contact with a path, which push services accept.)
        return Vapid(key, conf={"no-strict": True})


def public_of(key: ec.EllipticCurvePrivateKey) -> str:
    return unpadded_b64(
        key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
    )
