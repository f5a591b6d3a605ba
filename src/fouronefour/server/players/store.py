"""The players' store: what the service (:mod:`.service`) keeps and reads through, in the
tables' own database. :class:`PlayerStore` is the interface; :mod:`.sqlstore` implements it
once in SQL that SQLite and PostgreSQL both run, over :mod:`.sqlite` and :mod:`.postgres`;
tests/server/contract/test_players_contract.py is the suite both pass.

Every method raises :class:`~fouronefour.server.storage.StorageError` (having changed
nothing) when the database cannot be reached or written.
"""

from __future__ import annotations

from typing import Protocol

from .values import (
    Credentials,
    HistoryEntry,
    MatchRecord,
    Passkey,
    Profile,
    Rating,
    RatingRow,
    Recorded,
    SessionInfo,
    Stats,
)


class UsernameTaken(Exception):
    """A claim's username is another profile's (or the profile has one already)."""


class PlayerStore(Protocol):
    async def open(self) -> None:
        """Connect, creating the players' tables or bringing them up to date in place (the
        tables' own are left as they are)."""
        ...

    async def close(self) -> None: ...

    # ---------------------------------------------------------------- profiles, sessions

    async def create_profile(self, profile: Profile) -> None: ...

    async def get_profile(self, profile_id: str) -> Profile | None:
        """The profile, deleted ones too (``deleted`` set, nothing else kept)."""
        ...

    async def find_profiles(self, query: str, limit: int = 20) -> list[Profile]:
        """Live profiles whose id or username is ``query``, or whose name holds it."""
        ...

    async def accuracy_due(self, limit: int) -> list[tuple[str, int, int]]:
        """Recorded matches whose accuracy is still to be worked out: (code, number, rounds)."""
        ...

    async def set_accuracy(self, code: str, number: int, by_seat: dict[int, float | None]) -> None:
        """Each seat's accuracy in a match (None: not measured); it is no longer due."""
        ...

    async def update_profile(
        self,
        profile_id: str,
        name: str | None = None,
        avatar: str | None = None,
        language: str | None = None,
    ) -> Profile | None:
        """Change what is given; None if there is no such live profile."""
        ...

    async def create_session(
        self, token_hash: str, profile_id: str, now: int, expires_at: int, how: str
    ) -> None: ...

    async def session(
        self, token_hash: str, now: int, expires_at: int
    ) -> tuple[Profile, SessionInfo] | None:
        """The live profile and session of a token's hash (None if unknown or expired); a
        session last used more than an hour ago is extended to ``expires_at`` and the
        profile's ``last_seen`` set to ``now``."""
        ...

    async def sessions(self, profile_id: str) -> list[SessionInfo]: ...

    async def delete_session(self, token_hash: str) -> None: ...

    async def delete_session_by_id(self, profile_id: str, session_id: str) -> bool:
        """End one of the profile's sessions, named by its public id
        (:attr:`~.values.SessionInfo.id`); False if it has none such."""
        ...

    async def delete_sessions(self, profile_id: str, keep: str | None = None) -> int:
        """Sign the profile out everywhere (but the session ``keep``); returns how many."""
        ...

    async def claim(self, profile_id: str, username: str, password_hash: str) -> None:
        """Give a guest profile a username and password; :class:`UsernameTaken` if the name
        is another's or the profile has one already."""
        ...

    async def credentials(self, username: str) -> Credentials | None: ...

    async def set_password(self, profile_id: str, password_hash: str) -> None: ...

    async def create_device_code(
        self, code_hash: str, profile_id: str, expires_at: int
    ) -> None: ...

    async def redeem_device_code(self, code_hash: str, now: int) -> str | None:
        """The profile of an unused, unexpired code, which is used up by this call (once,
        also when two processes redeem it together); None otherwise."""
        ...

    async def set_challenge(
        self, token_hash: str, purpose: str, challenge: str, expires_at: int
    ) -> None:
        """Keep the WebAuthn challenge a session was given for ``purpose`` (replacing the
        one before)."""
        ...

    async def take_challenge(self, token_hash: str, purpose: str, now: int) -> str | None:
        """The session's live challenge for ``purpose``, used up by this call."""
        ...

    async def add_passkey(self, passkey: Passkey) -> bool:
        """Keep a new passkey; False if its credential id is registered already."""
        ...

    async def passkey(self, credential_id: str) -> Passkey | None:
        """A live profile's passkey."""
        ...

    async def passkeys(self, profile_id: str) -> list[Passkey]: ...

    async def use_passkey(self, credential_id: str, sign_count: int, now: int) -> None: ...

    async def delete_profile(self, profile_id: str) -> bool:
        """Delete a profile: its name, username, password, sessions and codes are gone; its
        matches stay in the others' histories as a former player's. False if it was not live."""
        ...

    async def forget_guests(self, seen_before: int, now: int, limit: int) -> int:
        """Delete up to ``limit`` guest profiles (never claimed) last seen before
        ``seen_before``, and the sessions and codes expired at ``now``; returns the profiles
        deleted."""
        ...

    # ---------------------------------------------------------------- matches

    async def record_match(self, record: MatchRecord) -> Recorded:
        """Record a finished match and every rating change it makes, in one transaction;
        once per (code, number): again, it changes nothing and answers what it did."""
        ...

    async def history(
        self, profile_id: str, limit: int, after: str | None = None
    ) -> list[HistoryEntry]:
        """The profile's matches, newest first, after the cursor ``after`` (an entry's
        :attr:`~.values.HistoryEntry.cursor`), with every seat."""
        ...

    async def stats(self, profile_id: str, tallies: int = 20) -> Stats: ...

    async def rating_history(self, profile_id: str, limit: int) -> list[tuple[int, Rating]]:
        """The profile's rating after each of its last ``limit`` rated matches, oldest
        first: (when the match ended, the rating then) for a chart."""
        ...

    async def top(self, limit: int) -> list[RatingRow]:
        """The global leaderboard: live profiles whose rating is no longer provisional."""
        ...

    async def rank(self, profile_id: str) -> int | None:
        """The profile's place on the global leaderboard (None: not on it)."""
        ...

    async def recompute_ratings(self, batch: int = 2000) -> int:
        """Rate every recorded rated match again, oldest first, from newcomers' ratings
        and the bots' fixed ones (after bots/levels.json changed, or to repair ratings);
        returns the matches rated. For the operator, with the server stopped: a match
        recorded meanwhile would be rated from the ratings of before."""
        ...

    async def rebuild_board(self) -> int:
        """Count the global leaderboard again from the ratings (after a bulk load or a
        recomputation of ratings); how many profiles changed place in it. A profile already
        in place is not written."""
        ...

    async def played_with(self, profile_id: str, limit: int) -> list[RatingRow]:
        """The leaderboard of the profile and everyone it played a match with."""
        ...
