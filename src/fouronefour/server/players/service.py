"""What the players' HTTP routes do (docs/players.md): guests, claims, sign-in and sign-out,
one-time device codes, deletion and export, over a :class:`~.store.PlayerStore`.

A session is a random token (tokens.py) of which the store keeps only the SHA-256; every
sign-in (a claim, a password, a device code, a password change) makes a new one and ends the
one the browser held, so a token planted in a browser before a sign-in is worth nothing
after it. Passwords are verified in worker threads, at most :data:`HASHING` at a time, and
no more than :data:`HASHING_QUEUE` wait their turn (more are refused as rate-limited: many
addresses together cannot queue up minutes of hashing ahead of everybody's sign-in).
"""

from __future__ import annotations

import asyncio
import io
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import segno

from ..errors import ErrorCode
from . import tokens
from .errors import PlayerCode, PlayerError
from .names import check_display_name, check_password, check_username
from .passkeys import Passkeys, Site
from .passwords import Passwords
from .ratings import NEWCOMER
from .store import PlayerStore, UsernameTaken
from .throttle import Attempt, LocalThrottle, Throttle
from .values import (
    AVATARS,
    LANGUAGES,
    HistoryEntry,
    MatchRecord,
    Profile,
    RatingRow,
    Recorded,
    SessionInfo,
    Stats,
    rating_dict,
)

T = TypeVar("T")
DAY_MS = 86_400_000
#: A session lasts 90 days from its last use (extended at most once an hour): as long as a
#: guest is kept (a guest's session is their only way back in unless they link a device).
SESSION_DAYS = 90
#: A one-time device code lasts 5 minutes.
CODE_SECONDS = 300
#: Guests (never claimed) not seen for 90 days are deleted by :meth:`Players.tidy`.
GUEST_RETENTION_DAYS = 90
#: Password hashes computed at once (each takes a core for ~50 ms): more wait their turn.
HASHING = 2
#: Password hashes that may wait for one of those (~0.5 s of waiting at most, at ~20 ms a
#: hash on 2 threads).
HASHING_QUEUE = 48
#: The most history entries a page holds.
PAGE_LIMIT = 50


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A new session: its token goes into the cookie (and nowhere else)."""

    token: str
    profile: Profile

    @property
    def csrf(self) -> str:
        return tokens.csrf_token(self.token)


@dataclass(frozen=True, slots=True)
class Current:
    """The profile and session a request's cookie holds."""

    token: str
    profile: Profile
    session: SessionInfo


@dataclass(frozen=True, slots=True)
class DeviceCode:
    code: str
    expires_at: int
    qr_svg: str


class ProfileData(Protocol):
    """Another room's data about profiles (clubs, friends...): in a profile's export under
    its ``name``, and forgotten when the profile is deleted."""

    name: str

    async def export(self, profile_id: str) -> Any: ...

    async def forget(self, profile_id: str) -> None: ...


def profile_dict(profile: Profile, private: bool = True) -> dict[str, Any]:
    """A profile as sent: to its player (``private``), or to anyone (no username, language
    or times but its creation)."""
    body: dict[str, Any] = {
        "id": profile.id,
        "name": profile.name,
        "avatar": profile.avatar,
        "rating": rating_dict(profile.rating),
        "created_at": profile.created_at,
    }
    if private:
        body.update(
            username=profile.username,
            language=profile.language,
            claimed=profile.claimed,
            last_seen=profile.last_seen,
        )
    return body


def qr_svg(text: str) -> str:
    """``text`` as a QR code, an SVG document (segno; medium error correction)."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", xmldecl=False, scale=4, border=2)
    return out.getvalue().decode()


class Players:
    def __init__(
        self,
        store: PlayerStore,
        passwords: Passwords | None = None,
        throttle: Throttle | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.passwords = passwords or Passwords()
        self.throttle = throttle or LocalThrottle()
        self._clock = clock
        self._hashing = asyncio.Semaphore(HASHING)
        self._hashes_asked = 0
        self.passkeys = Passkeys(store)
        #: The other rooms' data about profiles (:class:`ProfileData`).
        self.keepers: list[ProfileData] = []

    def _now(self) -> int:
        return int(self._clock() * 1000)

    def _expiry(self, now: int) -> int:
        return now + SESSION_DAYS * DAY_MS

    async def _throttle(self, attempt: Attempt, key: str | None) -> None:
        if key is None:  # (loopback, as the server's other limits)
            return
        wait = await self.throttle.take(attempt, key)
        if wait > 0:
            raise PlayerError(ErrorCode.RATE_LIMITED, "too many attempts: wait", retry_after=wait)

    async def _hashed(self, work: Callable[[], T]) -> T:
        """``work`` (an argon2id hash or verification) in a worker thread, in turn."""
        if self._hashes_asked >= HASHING + HASHING_QUEUE:
            raise PlayerError(
                ErrorCode.RATE_LIMITED, "too many sign-ins at once: try again", retry_after=1.0
            )
        self._hashes_asked += 1
        try:
            async with self._hashing:
                return await asyncio.to_thread(work)
        finally:
            self._hashes_asked -= 1

    async def _hash(self, password: str) -> str:
        return await self._hashed(lambda: self.passwords.hash(password))

    async def _verify(self, password_hash: str | None, password: str) -> bool:
        return await self._hashed(lambda: self.passwords.verify(password_hash, password))

    # ---------------------------------------------------------------- sessions

    async def current(self, token: str | None) -> Current | None:
        """The live session of a cookie's token, or None."""
        if not token or len(token) > 128:
            return None
        now = self._now()
        found = await self.store.session(tokens.token_hash(token), now, self._expiry(now))
        return None if found is None else Current(token, found[0], found[1])

    async def _session(self, profile: Profile, how: str, old: str | None) -> SignedIn:
        """A new session for ``profile``, ending the browser's old one (rotation)."""
        token = tokens.new_token()
        now = self._now()
        await self.store.create_session(
            tokens.token_hash(token), profile.id, now, self._expiry(now), how
        )
        if old:
            await self._end_old(old, profile.id)
        return SignedIn(token, profile)

    async def _end_old(self, old: str, keeping: str) -> None:
        """End the session a browser held before signing in, and its profile if that was a
        guest that never played and has no other way in (made by the visit itself): nothing
        of it could be found again."""
        current = await self.current(old)
        await self.store.delete_session(tokens.token_hash(old))
        if current is None or current.profile.id == keeping or current.profile.claimed:
            return
        gone = current.profile.id
        if not (
            await self.store.history(gone, 1)
            or await self.store.sessions(gone)
            or await self.store.passkeys(gone)
        ):
            await self.store.delete_profile(gone)

    async def start_guest(
        self, address: str | None, language: str | None = None, name: str | None = None
    ) -> SignedIn:
        """A new guest profile and its session (the first visit)."""
        await self._throttle(Attempt.GUEST_ADDRESS, address)
        now = self._now()
        profile = Profile(
            id=tokens.new_profile_id(),
            name=check_display_name(name) if name is not None else _guest_name(),
            avatar=secrets.choice(AVATARS),
            language=language if language in LANGUAGES else "en",
            created_at=now,
            last_seen=now,
            username=None,
            rating=NEWCOMER,
        )
        await self.store.create_profile(profile)
        return await self._session(profile, "guest", None)

    async def sign_out(self, current: Current) -> None:
        await self.store.delete_session(tokens.token_hash(current.token))

    async def sessions(self, current: Current) -> list[dict[str, Any]]:
        """The profile's sessions (its devices), this one marked ``current``."""
        return [
            {**s.to_dict(), "current": s.id == current.session.id}
            for s in await self.store.sessions(current.profile.id)
        ]

    async def end_session(self, current: Current, session_id: str) -> None:
        """Sign one of the profile's devices out (by the id :meth:`sessions` gives)."""
        if not await self.store.delete_session_by_id(current.profile.id, session_id):
            raise PlayerError(PlayerCode.NO_SUCH_SESSION, "no such session of this profile")

    async def sign_out_everywhere(self, current: Current) -> int:
        """End every session of the profile, this one too; returns how many."""
        return await self.store.delete_sessions(current.profile.id)

    # ---------------------------------------------------------------- profile

    async def update(self, current: Current, changes: dict[str, Any]) -> Profile:
        unknown = set(changes) - {"name", "avatar", "language"}
        if unknown or not changes:
            raise PlayerError(
                ErrorCode.BAD_MESSAGE, "change one or more of name, avatar and language"
            )
        name = check_display_name(changes["name"]) if "name" in changes else None
        avatar = changes.get("avatar")
        if avatar is not None and avatar not in AVATARS:
            raise PlayerError(ErrorCode.BAD_OPTION, f"avatar is one of {', '.join(AVATARS)}")
        language = changes.get("language")
        if language is not None and language not in LANGUAGES:
            raise PlayerError(ErrorCode.BAD_OPTION, f"language is one of {', '.join(LANGUAGES)}")
        if ("avatar" in changes and avatar is None) or ("language" in changes and language is None):
            raise PlayerError(ErrorCode.BAD_OPTION, "avatar and language cannot be null")
        updated = await self.store.update_profile(current.profile.id, name, avatar, language)
        if updated is None:
            raise PlayerError(PlayerCode.NO_SESSION, "no such profile")
        return updated

    async def claim(
        self, current: Current, username: object, password: object, address: str | None
    ) -> SignedIn:
        """Give the guest profile a username and password; a new session (rotated)."""
        if current.profile.claimed:
            raise PlayerError(PlayerCode.ALREADY_CLAIMED, "this profile has a username already")
        name = check_username(username)
        secret = check_password(password)
        await self._throttle(Attempt.CLAIM_ADDRESS, address)
        password_hash = await self._hash(secret)
        try:
            await self.store.claim(current.profile.id, name, password_hash)
        except UsernameTaken:
            raise PlayerError(PlayerCode.USERNAME_TAKEN, "that username is taken") from None
        profile = await self.store.get_profile(current.profile.id)
        assert profile is not None  # (just claimed: live)
        return await self._session(profile, "claim", current.token)

    async def sign_in(
        self, username: object, password: object, address: str | None, old: str | None
    ) -> SignedIn:
        """Sign in with a username and password: the same refusal, in about the same time,
        whether the username exists or not (a password is verified either way)."""
        name = username.strip().lower() if isinstance(username, str) else ""
        secret = password if isinstance(password, str) else ""
        await self._throttle(Attempt.SIGN_IN_ADDRESS, address)
        await self._throttle(Attempt.SIGN_IN_ACCOUNT, name[:64])
        found = await self.store.credentials(name) if 0 < len(name) <= 64 else None
        matched = await self._verify(None if found is None else found.password_hash, secret[:256])
        if found is None or not matched:
            raise PlayerError(PlayerCode.BAD_CREDENTIALS, "wrong username or password")
        if self.passwords.needs_rehash(found.password_hash):
            await self.store.set_password(found.profile_id, await self._hash(secret))
        profile = await self.store.get_profile(found.profile_id)
        if profile is None or profile.deleted:
            raise PlayerError(PlayerCode.BAD_CREDENTIALS, "wrong username or password")
        return await self._session(profile, "password", old)

    async def change_password(
        self, current: Current, old_password: object, new_password: object, address: str | None
    ) -> SignedIn:
        """A new password: every session of the profile ends, and this browser gets a new
        one."""
        if current.profile.username is None:
            raise PlayerError(PlayerCode.NOT_CLAIMED, "claim the profile to have a password")
        secret = check_password(new_password)
        await self._throttle(Attempt.PASSWORD_ACCOUNT, current.profile.id)
        found = await self.store.credentials(current.profile.username)
        old = old_password if isinstance(old_password, str) else ""
        if found is None or not await self._verify(found.password_hash, old[:256]):
            raise PlayerError(PlayerCode.BAD_CREDENTIALS, "the current password is wrong")
        await self.store.set_password(current.profile.id, await self._hash(secret))
        await self.store.delete_sessions(current.profile.id)
        return await self._session(current.profile, "password_change", None)

    # ---------------------------------------------------------------- device codes

    async def create_device_code(self, current: Current) -> DeviceCode:
        code = tokens.new_device_code()
        expires_at = self._now() + CODE_SECONDS * 1000
        await self.store.create_device_code(tokens.token_hash(code), current.profile.id, expires_at)
        return DeviceCode(code, expires_at, qr_svg(code))

    async def redeem_device_code(
        self, code: object, address: str | None, old: str | None
    ) -> SignedIn:
        """Sign this browser in with a code from a signed-in one: unknown, used and expired
        codes get the one same refusal."""
        await self._throttle(Attempt.CODE_ADDRESS, address)
        normal = tokens.normal_code(code) if isinstance(code, str) and len(code) < 64 else None
        profile_id = (
            None
            if normal is None
            else await self.store.redeem_device_code(tokens.token_hash(normal), self._now())
        )
        profile = None if profile_id is None else await self.store.get_profile(profile_id)
        if profile is None or profile.deleted:
            raise PlayerError(PlayerCode.BAD_CODE, "that code is unknown, used or expired")
        return await self._session(profile, "device", old)

    # ---------------------------------------------------------------- passkeys

    async def passkey_options(self, current: Current, site: Site) -> dict[str, Any]:
        """Options for the browser's ``navigator.credentials.create`` (a new passkey)."""
        return await self.passkeys.registration_options(
            current.token, current.profile, site, self._now()
        )

    async def add_passkey(self, current: Current, credential: object, site: Site) -> None:
        await self.passkeys.register(current.token, current.profile, credential, site, self._now())

    async def passkey_sign_in_options(self, current: Current, site: Site) -> dict[str, Any]:
        """Options for the browser's ``navigator.credentials.get`` (sign in)."""
        return await self.passkeys.sign_in_options(current.token, site, self._now())

    async def passkey_sign_in(
        self, current: Current, credential: object, site: Site, address: str | None
    ) -> SignedIn:
        await self._throttle(Attempt.SIGN_IN_ADDRESS, address)
        profile_id = await self.passkeys.sign_in(current.token, credential, site, self._now())
        profile = await self.store.get_profile(profile_id)
        if profile is None or profile.deleted:
            raise PlayerError(PlayerCode.BAD_PASSKEY, "that passkey is not known here")
        return await self._session(profile, "passkey", current.token)

    # ---------------------------------------------------------------- data

    async def delete(self, current: Current) -> None:
        await self.store.delete_profile(current.profile.id)
        for keeper in self.keepers:
            await keeper.forget(current.profile.id)

    async def export(self, current: Current) -> dict[str, Any]:
        """Everything kept about the profile, as JSON (GET /api/me/export)."""
        history: list[HistoryEntry] = []
        cursor: str | None = None
        while True:
            page = await self.store.history(current.profile.id, PAGE_LIMIT, cursor)
            history += page
            if len(page) < PAGE_LIMIT:
                break
            cursor = page[-1].cursor
        body = {
            "profile": profile_dict(current.profile),
            "sessions": [s.to_dict() for s in await self.store.sessions(current.profile.id)],
            "passkeys": [k.to_dict() for k in await self.store.passkeys(current.profile.id)],
            "matches": [h.to_dict() for h in history],
            "stats": (await self.store.stats(current.profile.id)).to_dict(),
        }
        for keeper in self.keepers:
            body[keeper.name] = await keeper.export(current.profile.id)
        return body

    async def public(self, profile_id: str) -> dict[str, Any]:
        """A public profile: name, avatar, rating, rank and stats (no username, no hands:
        only finished matches are recorded)."""
        profile = await self.store.get_profile(profile_id) if len(profile_id) <= 32 else None
        if profile is None or profile.deleted:
            raise PlayerError(PlayerCode.PLAYER_NOT_FOUND, "no such player")
        body = profile_dict(profile, private=False)
        body["rank"] = await self.store.rank(profile.id)
        body["stats"] = (await self.store.stats(profile.id)).to_dict()
        return body

    async def rating_chart(self, profile_id: str, limit: int) -> list[dict[str, Any]]:
        """A live profile's rating after each of its last rated matches, oldest first."""
        profile = await self.store.get_profile(profile_id) if len(profile_id) <= 32 else None
        if profile is None or profile.deleted:
            raise PlayerError(PlayerCode.PLAYER_NOT_FOUND, "no such player")
        points = await self.store.rating_history(profile.id, max(1, min(limit, 1000)))
        return [{"at": at, "mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal} for at, r in points]

    async def history(
        self, current: Current, limit: int, after: str | None
    ) -> tuple[list[HistoryEntry], str | None]:
        limit = max(1, min(limit, PAGE_LIMIT))
        page = await self.store.history(current.profile.id, limit, after)
        return page, (page[-1].cursor if len(page) == limit else None)

    async def stats(self, profile_id: str) -> Stats:
        return await self.store.stats(profile_id)

    async def leaderboard(
        self, limit: int, current: Current | None, among: bool
    ) -> tuple[list[RatingRow], int | None]:
        limit = max(1, min(limit, 100))
        if among and current is not None:
            rows = await self.store.played_with(current.profile.id, limit)
            mine = next((r.rank for r in rows if r.profile_id == current.profile.id), None)
            return rows, mine
        rank = None if current is None else await self.store.rank(current.profile.id)
        return await self.store.top(limit), rank

    async def record_match(self, record: MatchRecord) -> Recorded:
        return await self.store.record_match(record)

    async def tidy(self, limit: int = 500) -> int:
        """Delete guests not seen for :data:`GUEST_RETENTION_DAYS` (a batch of ``limit``),
        and expired sessions and codes; returns the guests deleted."""
        now = self._now()
        return await self.store.forget_guests(now - GUEST_RETENTION_DAYS * DAY_MS, now, limit)


def _guest_name() -> str:
    """A new guest's name until they choose one: "Player" and four digits."""
    return f"Player {secrets.randbelow(10_000):04d}"
