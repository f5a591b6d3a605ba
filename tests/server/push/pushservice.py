"""A push service of our own for the tests (no outside one is reachable here): an HTTPS
server on loopback that keeps what the server posts, checks its VAPID signature (RFC 8292)
against the server's public key and decrypts each payload (RFC 8291, aes128gcm) with the
private key of the device it made the subscription for, as a browser would."""

from __future__ import annotations

import base64
import datetime
import http.server
import ipaddress
import json
import os
import secrets
import ssl
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import http_ece
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Device:
    """A browser's side of one subscription: its keys, and the endpoint's answer."""

    path: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes
    #: What the push service answers posts to this endpoint (410: gone).
    status: int = 201

    def public(self) -> str:
        return b64(
            self.private_key.public_key().public_bytes(
                serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
            )
        )


@dataclass
class Received:
    device: str
    headers: dict[str, str]
    #: The decrypted payload, as JSON.
    payload: dict[str, Any]
    #: The VAPID claims, once their signature was checked.
    claims: dict[str, Any]
    #: The public key the signature was checked with (the ``k`` of the header).
    key: str


@dataclass
class PushService:
    url: str
    cert: Path
    devices: dict[str, Device] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    #: Seconds each answer waits (a slow push service).
    delay: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def device(self, status: int = 201) -> tuple[Device, dict[str, Any]]:
        """A new device and the subscription its browser would give the page."""
        device = Device(
            f"/push/{secrets.token_urlsafe(12)}",
            ec.generate_private_key(ec.SECP256R1()),
            os.urandom(16),
            status,
        )
        self.devices[device.path] = device
        subscription = {
            "endpoint": self.url + device.path,
            "keys": {"p256dh": device.public(), "auth": b64(device.auth)},
        }
        return device, subscription

    def wait(self, count: int, timeout: float = 10.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.received) >= count:
                    return list(self.received)
            time.sleep(0.02)
        raise AssertionError(f"{len(self.received)} notices received, {count} expected")

    def handle(self, path: str, headers: dict[str, str], body: bytes) -> int:
        device = self.devices.get(path)
        if device is None:
            self.refused.append(f"unknown endpoint {path}")
            return 404
        try:
            claims, key = check_vapid(headers.get("authorization", ""))
            if headers.get("content-encoding") != "aes128gcm":
                raise ValueError("not aes128gcm")
            plain = http_ece.decrypt(
                body, private_key=device.private_key, auth_secret=device.auth, version="aes128gcm"
            )
        except (ValueError, InvalidSignature, KeyError) as error:
            self.refused.append(f"{path}: {error!r}")
            return 400
        with self.lock:
            self.received.append(Received(path, headers, json.loads(plain), claims, key))
        return device.status


def check_vapid(authorization: str) -> tuple[dict[str, Any], str]:
    """RFC 8292: ``vapid t=<JWT>,k=<public key>``; the JWT is ES256 signed by that key."""
    scheme, _, rest = authorization.partition(" ")
    if scheme.lower() != "vapid":
        raise ValueError(f"not a vapid authorization: {authorization[:20]!r}")
    parts = dict(part.split("=", 1) for part in rest.split(","))
    token, key = parts["t"], parts["k"]
    head, claims, signature = token.split(".")
    if json.loads(unb64(head)) != {"typ": "JWT", "alg": "ES256"}:
        raise ValueError("not an ES256 JWT")
    raw = unb64(signature)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(key))
    public.verify(
        encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
        f"{head}.{claims}".encode(),
        ec.ECDSA(hashes.SHA256()),
    )
    return json.loads(unb64(claims)), key


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key (the client trusts it as its CA bundle)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "push.test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "push-cert.pem", folder / "push-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


class _Handler(http.server.BaseHTTPRequestHandler):
    service: PushService
    #: Connections kept open between posts, as a push service keeps them.
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", "0"))
        body = self.rfile.read(length)
        if self.service.delay:
            time.sleep(self.service.delay)
        headers = {k.lower(): v for k, v in self.headers.items()}
        status = self.service.handle(self.path, headers, body)
        self.send_response(status)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class RunningPushService:
    """The service on a free loopback port, over TLS, in a thread of its own."""

    def __init__(self, folder: Path) -> None:
        cert, key = self_signed(folder)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        handler = type("Handler", (_Handler,), {})
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        port = self.httpd.server_address[1]
        self.service = PushService(f"https://127.0.0.1:{port}", cert)
        handler.service = self.service
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
