"""Private tables: seats, watching and replays by invite link only (docs/protocol.md s.2).

An invite code is six characters: found by guessing, or read over a shoulder, it lets
anyone watch a table or take a free seat. A private table also needs its **invite**, a
random secret made when the table is created (128 bits and more: never guessed), carried
by the invite link ``/t/CODE#invite=SECRET`` (a fragment: browsers do not send it, so it
stays out of servers' and proxies' logs). The server keeps only its SHA-256 hash, in the
table's stored options, so the link is the host's to keep.

Asked for without it, a private table answers exactly as a code that is no table does
(``table_not_found``, the same message), and the asking counts as a failed lookup: the
code alone tells nothing. A seat's token is enough for its own player; a handoff secret
is enough for the seat it hands over.
"""

from __future__ import annotations

import hmac
import secrets

from ..errors import ErrorCode, TableError
from .model import hash_token

#: Bytes of randomness in an invite (24 characters of URL-safe text).
INVITE_BYTES = 18


def new_invite() -> tuple[str, str]:
    """A fresh invite and the hash the table keeps."""
    invite = secrets.token_urlsafe(INVITE_BYTES)
    return invite, hash_token(invite)


def admits(invite_hash: str | None, invite: object) -> bool:
    """Whether ``invite`` opens a table whose invite hash is ``invite_hash`` (None: a
    table open to anyone with its code)."""
    if invite_hash is None:
        return True
    if not isinstance(invite, str) or not 0 < len(invite) <= 200:
        return False
    return hmac.compare_digest(hash_token(invite), invite_hash)


def not_found(code: str) -> TableError:
    """The refusal of a private table asked for without its invite: word for word that of
    a code that is no table (registry.py)."""
    return TableError(ErrorCode.TABLE_NOT_FOUND, f"no table {code!r}")
