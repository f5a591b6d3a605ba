"""Passwords, hashed with argon2id through argon2-cffi (docs/hosting.md, "Players and
sign-in", has the parameters and what a verification costs on this project's machine).

Hashing and verifying take tens of milliseconds of a core on purpose: the service runs them
in a worker thread, never on the event loop."""

from __future__ import annotations

import argon2

#: OWASP's first argon2id choice (m = 19 MiB, t = 2, p = 1): ~50 ms a verification on one
#: of this project's 2 shared cores (docs/hosting.md). A hash keeps its parameters, so these
#: may be raised later: a sign-in rehashes a password hashed with older ones.
TIME_COST = 2
MEMORY_KIB = 19 * 1024
PARALLELISM = 1


class Passwords:
    """argon2id with fixed parameters (tests may pass cheaper ones)."""

    def __init__(
        self,
        time_cost: int = TIME_COST,
        memory_kib: int = MEMORY_KIB,
        parallelism: int = PARALLELISM,
    ) -> None:
        self._hasher = argon2.PasswordHasher(
            time_cost=time_cost,
            memory_cost=memory_kib,
            parallelism=parallelism,
            type=argon2.Type.ID,
        )
        # Made now, not at the first unknown username, whose answer would take twice as
        # long as the others' and so tell that the name does not exist.
        self._decoy = self._hasher.hash("no password is this one")

    def hash(self, password: str) -> str:
        return self._hasher.hash(password)

    def verify(self, password_hash: str | None, password: str) -> bool:
        """Whether ``password`` matches; with no hash (no such username) a hash of the same
        cost is verified all the same, so that the answer takes as long either way."""
        try:
            matched = self._hasher.verify(password_hash or self._decoy, password)
        except (argon2.exceptions.VerificationError, argon2.exceptions.InvalidHashError):
            return False
        return matched and password_hash is not None

    def needs_rehash(self, password_hash: str) -> bool:
        return self._hasher.check_needs_rehash(password_hash)
