"""The players' secrets: session tokens, CSRF tokens and one-time device codes, and the
hashes the database keeps of them (never the secrets themselves)."""

from __future__ import annotations

import hashlib
import secrets

#: A session token: 32 random bytes (256 bits), URL-safe base64.
TOKEN_BYTES = 32
#: Device codes: 10 characters from 30 not easily mistaken for one another (no 0/O, 1/I/L,
#: U), 49 bits: at the throttle's rate (docs/players.md) an attacker with 10,000 addresses
#: tries ~10^5 codes in a code's 5 minutes, about 10^-10 of the codes there are.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTVWXYZ23456789"
CODE_LENGTH = 10
#: A public id of a profile: 16 letters and digits (~82 bits), random: never reused.
ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """What the database keeps of a session token (or a device code): its SHA-256. A token
    has 256 bits, so no salt or slow hash is needed: nobody guesses one from its hash."""
    return hashlib.sha256(token.encode()).hexdigest()


def csrf_token(session_token: str) -> str:
    """The CSRF token that goes with a session: derived from its secret token, so another
    site can neither read it nor make one, and a session has one (docs/players.md, "CSRF")."""
    return hashlib.sha256(b"fouronefour csrf\0" + session_token.encode()).hexdigest()[:32]


def new_profile_id() -> str:
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(16))


def new_device_code() -> str:
    """A code as shown: ten characters in two groups of five ("ABCDE-FGHJK")."""
    letters = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return f"{letters[:5]}-{letters[5:]}"


def normal_code(text: str) -> str | None:
    """A typed device code as shown (upper case, the dash in place), or None if it cannot
    be one."""
    letters = "".join(c for c in text.upper() if c not in " -")
    if len(letters) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in letters):
        return None
    return f"{letters[:5]}-{letters[5:]}"
