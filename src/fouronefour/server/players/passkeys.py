"""Passkeys through WebAuthn (the ``webauthn`` package, 3.x): a profile registers one from a
signed-in browser, and any browser signs in with it (docs/players.md, "Passkeys").

The relying party is the host the page was served from (its name without the port); the
origin the browser signed is the page's own (its scheme and host, or https and the host
behind a TLS proxy). Each ceremony's challenge is random, kept for the browser's session
(the guest session of a browser not yet signed in), for 5 minutes, and used once. Browsers
offer WebAuthn only to pages served over HTTPS or from localhost.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import orjson
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from . import tokens
from .errors import PlayerCode, PlayerError
from .store import PlayerStore
from .values import Passkey, Profile

#: A ceremony's challenge lasts 5 minutes (the browser's own timeout is 60 s).
CHALLENGE_MS = 300_000
REGISTER, SIGN_IN = "passkey-register", "passkey-sign-in"
RP_NAME = "414"
#: The most passkeys one profile keeps.
MAX_PASSKEYS = 20


@dataclass(frozen=True, slots=True)
class Site:
    """Where the page is: the relying party's id and the origins its pages may have."""

    rp_id: str
    origins: tuple[str, ...]

    @classmethod
    def of(cls, scheme: str, host: str) -> Site:
        """From a request's scheme and ``Host`` header."""
        name = host.lower()
        rp_id = name.rsplit(":", 1)[0] if not name.endswith("]") else name
        origins = dict.fromkeys((f"{scheme}://{name}", f"https://{name}"))
        return cls(rp_id.strip("[]"), tuple(origins))


def _bad(message: str) -> PlayerError:
    return PlayerError(PlayerCode.BAD_PASSKEY, message)


class Passkeys:
    def __init__(self, store: PlayerStore) -> None:
        self.store = store

    async def _challenge(self, token: str, purpose: str, now: int) -> bytes:
        challenge = secrets.token_bytes(32)
        await self.store.set_challenge(
            tokens.token_hash(token), purpose, bytes_to_base64url(challenge), now + CHALLENGE_MS
        )
        return challenge

    async def _expected(self, token: str, purpose: str, now: int) -> bytes:
        stored = await self.store.take_challenge(tokens.token_hash(token), purpose, now)
        if stored is None:
            raise _bad("no passkey ceremony was started here, or it expired: start again")
        return base64url_to_bytes(stored)

    async def registration_options(
        self, token: str, profile: Profile, site: Site, now: int
    ) -> dict[str, Any]:
        known = await self.store.passkeys(profile.id)
        if len(known) >= MAX_PASSKEYS:
            raise _bad(f"a profile keeps at most {MAX_PASSKEYS} passkeys")
        options = generate_registration_options(
            rp_id=site.rp_id,
            rp_name=RP_NAME,
            user_id=profile.id.encode(),
            user_name=profile.username or profile.name,
            user_display_name=profile.name,
            challenge=await self._challenge(token, REGISTER, now),
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=base64url_to_bytes(k.credential_id)) for k in known
            ],
        )
        parsed: dict[str, Any] = orjson.loads(options_to_json(options))
        return parsed

    async def register(
        self, token: str, profile: Profile, credential: object, site: Site, now: int
    ) -> Passkey:
        expected = await self._expected(token, REGISTER, now)
        if not isinstance(credential, dict):
            raise _bad("credential must be the browser's PublicKeyCredential as JSON")
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=expected,
                expected_rp_id=site.rp_id,
                expected_origin=list(site.origins),
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as error:
            raise _bad(f"the passkey was not accepted ({error})") from None
        passkey = Passkey(
            credential_id=bytes_to_base64url(verified.credential_id),
            profile_id=profile.id,
            public_key=bytes_to_base64url(verified.credential_public_key),
            sign_count=verified.sign_count,
            created_at=now,
            last_used=now,
        )
        if not await self.store.add_passkey(passkey):
            raise _bad("that passkey is registered already")
        return passkey

    async def sign_in_options(self, token: str, site: Site, now: int) -> dict[str, Any]:
        options = generate_authentication_options(
            rp_id=site.rp_id,
            challenge=await self._challenge(token, SIGN_IN, now),
            user_verification=UserVerificationRequirement.PREFERRED,
        )
        parsed: dict[str, Any] = orjson.loads(options_to_json(options))
        return parsed

    async def sign_in(self, token: str, credential: object, site: Site, now: int) -> str:
        """The profile whose passkey signed this session's challenge (one refusal for an
        unknown passkey, a wrong signature and a reused challenge alike)."""
        expected = await self._expected(token, SIGN_IN, now)
        if not isinstance(credential, dict):
            raise _bad("credential must be the browser's PublicKeyCredential as JSON")
        raw_id = credential.get("rawId") or credential.get("id")
        found = None
        if isinstance(raw_id, str) and len(raw_id) < 1400:
            found = await self.store.passkey(raw_id)
        if found is None:
            raise _bad("that passkey is not known here")
        try:
            verified = verify_authentication_response(
                credential=credential,
                expected_challenge=expected,
                expected_rp_id=site.rp_id,
                expected_origin=list(site.origins),
                credential_public_key=base64url_to_bytes(found.public_key),
                credential_current_sign_count=found.sign_count,
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as error:
            raise _bad(f"the passkey was not accepted ({error})") from None
        await self.store.use_passkey(found.credential_id, verified.new_sign_count, now)
        return found.profile_id
