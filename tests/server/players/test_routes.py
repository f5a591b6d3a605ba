"""The players' HTTP routes on a small app of their own (routes/players.py), tried the way
an attacker would: forged requests, planted sessions, guessed usernames, passwords and
codes, reused and expired codes, names that pass for someone else."""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from fouronefour.server.players.errors import PlayerError
from fouronefour.server.players.passwords import Passwords
from fouronefour.server.players.service import HASHING, HASHING_QUEUE, Players
from fouronefour.server.players.sqlite import sqlite_players
from fouronefour.server.players.throttle import BUDGETS, Attempt, Budget, LocalThrottle
from fouronefour.server.players.values import FORMER_PLAYER, MatchRecord, MatchSeat
from fouronefour.server.routes.players import (
    CSRF_COOKIE,
    CSRF_HEADER,
    SESSION_COOKIE,
    players_router,
)

from .authenticator import Authenticator

#: Cheap argon2id for the tests (the real parameters are in passwords.py).
CHEAP = Passwords(time_cost=1, memory_kib=1024)


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


class Site:
    """A test app with the players' routes, its service and its clock."""

    def __init__(self, path: Path, throttle: LocalThrottle | None = None,
                 passwords: Passwords = CHEAP) -> None:  # fmt: skip
        self.clock = Clock()
        self.players = Players(
            sqlite_players(str(path)),
            passwords=passwords,
            throttle=throttle or LocalThrottle(clock=self.clock),
            clock=self.clock,
        )

        @contextlib.asynccontextmanager
        async def lifespan(app: FastAPI) -> AsyncIterator[None]:
            await self.players.store.open()  # type: ignore[attr-defined]
            yield
            await self.players.store.close()  # type: ignore[attr-defined]

        self.app = FastAPI(lifespan=lifespan)
        self.app.include_router(players_router(self.players))


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(tmp_path / "site.db")


@contextlib.contextmanager
def browser(site: Site, base_url: str = "http://testserver") -> Iterator[TestClient]:
    with TestClient(site.app, base_url=base_url) as client:
        yield client


def visit(client: TestClient) -> dict[str, Any]:
    """The first visit: GET /api/me (a guest is made)."""
    answer = client.get("/api/me")
    assert answer.status_code in (200, 201), answer.text
    profile: dict[str, Any] = answer.json()["profile"]
    return profile


def send(
    client: TestClient, method: str, path: str, body: Any = None, **headers: str
) -> httpx.Response:
    """A state-changing request as the page makes it: with the CSRF header."""
    csrf = client.cookies.get(CSRF_COOKIE) or ""
    return client.request(method, path, json=body, headers={CSRF_HEADER: csrf, **headers})


def code_of(answer: httpx.Response) -> str:
    return str(answer.json()["error"]["code"])


def claim(client: TestClient, username: str, password: str = "correct horse") -> httpx.Response:
    return send(client, "POST", "/api/me/claim", {"username": username, "password": password})


# ------------------------------------------------------------------ sessions and cookies


def test_the_first_visit_makes_a_guest_held_by_an_http_only_cookie(site: Site) -> None:
    with browser(site) as client:
        first = client.get("/api/me")
        assert first.status_code == 201
        token = client.cookies.get(SESSION_COOKIE)
        assert token and token not in first.text  # the token is in the cookie only
        cookies = first.headers.get_list("set-cookie")
        session = next(c for c in cookies if c.startswith(SESSION_COOKIE + "="))
        assert "HttpOnly" in session and "SameSite=lax" in session and "Secure" not in session
        csrf = next(c for c in cookies if c.startswith(CSRF_COOKIE + "="))
        assert "HttpOnly" not in csrf
        profile = first.json()["profile"]
        assert profile["claimed"] is False and profile["username"] is None
        assert profile["rating"]["provisional"] is True
        again = client.get("/api/me")
        assert again.status_code == 200 and again.json()["profile"]["id"] == profile["id"]
        # The same cookies, their 90 days counted again from now.
        assert client.cookies.get(SESSION_COOKIE) == token
        assert any("Max-Age=7776000" in c for c in again.headers.get_list("set-cookie"))


def test_over_https_the_cookies_are_secure(site: Site) -> None:
    with browser(site, "https://testserver") as client:
        first = client.get("/api/me")
        for cookie in first.headers.get_list("set-cookie"):
            assert "Secure" in cookie


def test_a_request_from_another_site_changes_nothing(site: Site) -> None:
    with browser(site) as client:
        visit(client)
        csrf = client.cookies.get(CSRF_COOKIE) or ""
        tries = [
            {},  # no token: a form posted from another site
            {CSRF_HEADER: "0" * 32},  # a made-up token
            {CSRF_HEADER: csrf, "Origin": "https://evil.example"},
            {CSRF_HEADER: csrf, "Sec-Fetch-Site": "cross-site"},
        ]
        for headers in tries:
            answer = client.patch("/api/me", json={"name": "Pwned"}, headers=headers)
            assert answer.status_code == 403 and code_of(answer) == "bad_csrf", headers
        assert client.get("/api/me").json()["profile"]["name"] != "Pwned"
        for method, path in (("DELETE", "/api/me"), ("DELETE", "/api/sessions"),
                             ("POST", "/api/me/device-code")):  # fmt: skip
            assert client.request(method, path).status_code == 403
        assert client.get("/api/me").status_code == 200  # still there, still signed in
        same = send(client, "PATCH", "/api/me", {"name": "Ann"}, Origin="http://testserver")
        assert same.status_code == 200 and same.json()["profile"]["name"] == "Ann"
        # A TLS proxy that does not say the scheme: the page's https origin is its own.
        proxied = send(client, "PATCH", "/api/me", {"name": "Bo"}, Origin="https://testserver")
        assert proxied.status_code == 200
        other_port = send(client, "PATCH", "/api/me", {"name": "X"}, Origin="http://testserver:81")
        assert other_port.status_code == 403


def test_an_https_page_never_accepts_an_http_origin(site: Site) -> None:
    with browser(site, "https://testserver") as client:
        visit(client)
        answer = send(client, "PATCH", "/api/me", {"name": "X"}, Origin="http://testserver")
        assert answer.status_code == 403 and code_of(answer) == "bad_csrf"


def test_no_session_no_change(site: Site) -> None:
    with browser(site) as client:
        answer = client.patch("/api/me", json={"name": "X"}, headers={CSRF_HEADER: "x"})
        assert answer.status_code == 401 and code_of(answer) == "no_session"
        assert client.get("/api/me/games").status_code == 401
        client.cookies.set(SESSION_COOKIE, "made-up")
        assert client.get("/api/me/export").status_code == 401


# ------------------------------------------------------------------ names


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        ("<b onclick=alert(1)>", True),  # kept as typed: the client escapes it
        ('"; DROP TABLE x; --', True),
        ("  Ann  ", True),
        ("Bot 3", False),
        ("bot3", False),
        ("Ann (you)", False),
        ("(du)", False),
        ("Expert", False),
        ("机器人 2", False),
        ("a\u202egnp.exe", False),
        ("x" * 25, False),
        ("", False),
    ],
)
def test_display_names(site: Site, name: str, kept: bool) -> None:
    with browser(site) as client:
        visit(client)
        answer = send(client, "PATCH", "/api/me", {"name": name})
        if kept:
            assert answer.status_code == 200
            assert answer.json()["profile"]["name"] == name.strip()
        else:
            assert answer.status_code == 400 and code_of(answer) == "bad_name"


def test_avatar_and_language_from_the_sets(site: Site) -> None:
    with browser(site) as client:
        visit(client)
        ok = send(client, "PATCH", "/api/me", {"avatar": "owl", "language": "zh"})
        assert ok.json()["profile"]["avatar"] == "owl"
        assert ok.json()["profile"]["language"] == "zh"
        for body in ({"avatar": "https://evil.example/x.png"}, {"language": "xx"},
                     {"username": "x"}, {}):  # fmt: skip
            assert send(client, "PATCH", "/api/me", body).status_code == 400


# ------------------------------------------------------------------ claim and sign in


def test_a_planted_session_is_worth_nothing_after_sign_in(site: Site) -> None:
    """Session fixation: an attacker's token planted in a browser is ended by the sign-in,
    which gives the browser a token of its own."""
    with browser(site) as victim, browser(site) as attacker:
        visit(victim)
        claim(victim, "victim")
        send(victim, "DELETE", "/api/session")
        visit(attacker)
        planted = attacker.cookies.get(SESSION_COOKIE) or ""
        domain = next(iter(attacker.cookies.jar)).domain
        victim.cookies.clear()
        victim.cookies.set(SESSION_COOKIE, planted, domain=domain)
        victim.cookies.set(CSRF_COOKIE, attacker.cookies.get(CSRF_COOKIE) or "", domain=domain)
        signed = send(victim, "POST", "/api/session",
                      {"username": "victim", "password": "correct horse"})  # fmt: skip
        assert signed.status_code == 200 and signed.json()["profile"]["username"] == "victim"
        assert victim.cookies.get(SESSION_COOKIE) != planted
        # The attacker's token is ended: it is a visitor again, with a new guest.
        again = attacker.get("/api/me")
        assert again.status_code == 201 and again.json()["profile"]["username"] is None


def test_claim_rotates_the_session_and_keeps_the_profile(site: Site) -> None:
    with browser(site) as client:
        guest = visit(client)
        before = client.cookies.get(SESSION_COOKIE)
        answer = claim(client, "Ann_1")
        assert answer.status_code == 200
        profile = answer.json()["profile"]
        assert (profile["id"], profile["username"], profile["claimed"]) == (
            guest["id"],
            "ann_1",
            True,
        )
        assert client.cookies.get(SESSION_COOKIE) != before
        assert answer.json()["csrf"] == client.cookies.get(CSRF_COOKIE)
        assert code_of(claim(client, "other")) == "already_claimed"
    with browser(site) as other:
        visit(other)
        taken = claim(other, "ANN_1")
        assert taken.status_code == 409 and code_of(taken) == "username_taken"
        assert code_of(claim(other, "x")) == "bad_username"
        assert code_of(claim(other, "fine_name", "short")) == "bad_password"


def test_sign_in_on_another_device_and_the_empty_guest_goes(site: Site) -> None:
    with browser(site) as phone, browser(site) as laptop:
        ann = visit(phone)
        claim(phone, "ann")
        stray = visit(laptop)  # the laptop's first visit made a guest
        signed = send(
            laptop, "POST", "/api/session", {"username": "ann", "password": "correct horse"}
        )
        assert signed.json()["profile"]["id"] == ann["id"]
        assert laptop.get("/api/me").json()["profile"]["id"] == ann["id"]
        # The guest the visit made, which never played, is gone with its session.
        assert laptop.get(f"/api/players/{stray['id']}").status_code == 404


def test_sign_in_says_nothing_of_which_usernames_exist(tmp_path: Path) -> None:
    # Real argon2id parameters: the decoy verified for an unknown name costs as much.
    roomy = {a: Budget(1000, 100.0) for a in Attempt}
    site = Site(tmp_path / "t.db", LocalThrottle(roomy), Passwords())
    with browser(site) as client:
        visit(client)
        claim(client, "ann")
        times: dict[str, list[float]] = {"ann": [], "nobody": []}
        answers = set()
        for _ in range(6):
            for username in ("ann", "nobody"):
                start = time.perf_counter()
                answer = send(
                    client, "POST", "/api/session", {"username": username, "password": "wrong pass"}
                )
                times[username].append(time.perf_counter() - start)
                answers.add((answer.status_code, answer.text))
        assert len(answers) == 1 and answers.pop()[0] == 401
        known, unknown = (statistics.median(times[u]) for u in ("ann", "nobody"))
        assert abs(known - unknown) < 0.5 * max(known, unknown), times


def test_brute_force_is_throttled_per_account_and_per_address(site: Site) -> None:
    with browser(site) as owner:
        visit(owner)
        claim(owner, "ann")
    with browser(site) as attacker:
        visit(attacker)
        burst = BUDGETS[Attempt.SIGN_IN_ACCOUNT].burst
        for _ in range(burst):
            wrong = send(
                attacker, "POST", "/api/session", {"username": "ann", "password": "guess123"}
            )
            assert wrong.status_code == 401
        # Throttled now: even the right password is refused, before any hash is checked.
        right = send(
            attacker, "POST", "/api/session", {"username": "ann", "password": "correct horse"}
        )
        assert right.status_code == 429 and code_of(right) == "rate_limited"
        assert int(right.headers["Retry-After"]) >= 1
        # A username that does not exist is throttled alike.
        for _ in range(burst):
            send(attacker, "POST", "/api/session", {"username": "nobody", "password": "guess123"})
        ghost = send(attacker, "POST", "/api/session", {"username": "nobody", "password": "x"})
        assert ghost.status_code == 429
        # A minute later the account has one attempt more.
        site.clock.now += 60
        later = send(
            attacker, "POST", "/api/session", {"username": "ann", "password": "correct horse"}
        )
        assert later.status_code == 200


def test_the_address_budget_caps_spraying_many_usernames(site: Site) -> None:
    with browser(site) as attacker:
        visit(attacker)
        burst = BUDGETS[Attempt.SIGN_IN_ADDRESS].burst
        codes = [
            send(
                attacker, "POST", "/api/session", {"username": f"user{i}", "password": "password1"}
            ).status_code
            for i in range(burst + 1)
        ]
        assert codes == [401] * burst + [429]


# ------------------------------------------------------------------ device codes


def test_a_device_code_signs_in_another_device_once(site: Site) -> None:
    with browser(site) as phone, browser(site) as tablet, browser(site) as thief:
        ann = visit(phone)
        made = send(phone, "POST", "/api/me/device-code")
        assert made.status_code == 201
        code = made.json()["code"]
        assert made.json()["qr_svg"].startswith("<svg") and len(code) == 11
        assert made.json()["expires_at"] == int(site.clock.now * 1000) + 300_000
        visit(tablet)
        used = send(tablet, "POST", "/api/session/device", {"code": code.lower().replace("-", " ")})
        assert used.status_code == 200 and used.json()["profile"]["id"] == ann["id"]
        assert tablet.get("/api/me").json()["profile"]["id"] == ann["id"]
        visit(thief)
        again = send(thief, "POST", "/api/session/device", {"code": code})
        assert again.status_code == 400 and code_of(again) == "bad_code"


def test_an_expired_device_code_is_refused_like_a_wrong_one(site: Site) -> None:
    with browser(site) as phone, browser(site) as tablet:
        visit(phone)
        code = send(phone, "POST", "/api/me/device-code").json()["code"]
        visit(tablet)
        site.clock.now += 301
        late = send(tablet, "POST", "/api/session/device", {"code": code})
        wrong = send(tablet, "POST", "/api/session/device", {"code": "AAAAA-AAAAA"})
        junk = send(tablet, "POST", "/api/session/device", {"code": 12})
        assert late.json() == wrong.json() == junk.json()
        assert code_of(late) == "bad_code"


def test_guessing_device_codes_is_throttled(site: Site) -> None:
    with browser(site) as attacker:
        visit(attacker)
        burst = BUDGETS[Attempt.CODE_ADDRESS].burst
        codes = [
            send(attacker, "POST", "/api/session/device", {"code": f"AAAAA-AAAA{c}"}).status_code
            for c in "ABCDEFGHJKMN"[: burst + 1]
        ]
        assert codes == [400] * burst + [429]


# ------------------------------------------------------------------ sign out, password


def test_sign_out_and_sign_out_everywhere(site: Site) -> None:
    with browser(site) as phone, browser(site) as laptop, browser(site) as tablet:
        visit(phone)
        claim(phone, "ann")
        for other in (laptop, tablet):
            visit(other)
            send(other, "POST", "/api/session", {"username": "ann", "password": "correct horse"})
        out = send(tablet, "DELETE", "/api/session")
        assert out.status_code == 200 and not tablet.cookies.get(SESSION_COOKIE)
        assert laptop.get("/api/me/games").status_code == 200
        everywhere = send(phone, "DELETE", "/api/sessions")
        assert everywhere.json()["sessions_ended"] == 2
        for device in (phone, laptop):
            assert device.get("/api/me/games").status_code == 401


def test_a_password_change_ends_every_other_session(site: Site) -> None:
    with browser(site) as phone, browser(site) as laptop:
        visit(phone)
        claim(phone, "ann")
        visit(laptop)
        send(laptop, "POST", "/api/session", {"username": "ann", "password": "correct horse"})
        before = phone.cookies.get(SESSION_COOKIE)
        wrong = send(
            phone,
            "POST",
            "/api/me/password",
            {"old_password": "nope nope", "new_password": "new password"},
        )
        assert wrong.status_code == 401 and code_of(wrong) == "bad_credentials"
        change = {"old_password": "correct horse", "new_password": "new password"}
        changed = send(phone, "POST", "/api/me/password", change)
        assert changed.status_code == 200 and phone.cookies.get(SESSION_COOKIE) != before
        assert phone.get("/api/me/games").status_code == 200
        assert laptop.get("/api/me/games").status_code == 401
        visit(laptop)
        old = send(laptop, "POST", "/api/session", {"username": "ann", "password": "correct horse"})
        assert old.status_code == 401
        new = send(laptop, "POST", "/api/session", {"username": "ann", "password": "new password"})
        assert new.status_code == 200
    with browser(site) as guest:
        visit(guest)
        answer = send(
            guest, "POST", "/api/me/password", {"old_password": "x" * 8, "new_password": "y" * 8}
        )
        assert code_of(answer) == "not_claimed"


# ------------------------------------------------------------------ games, data


def record(site: Site, client: TestClient, ids: list[str], number: int, rated: bool = True) -> None:
    seats = tuple(
        MatchSeat(i, i % 2, f"P{i}", 1 if i % 2 == 0 else 2, place=i + 1, profile_id=pid)
        for i, pid in enumerate(ids)
    )
    at = int(site.clock.now * 1000) + number
    result = client.portal.call(  # type: ignore[union-attr]
        site.players.record_match, MatchRecord("TBL", number, at, rated, seats, rounds=3)
    )
    assert result.new


def test_games_public_profile_export_and_deletion(site: Site) -> None:
    with contextlib.ExitStack() as stack:
        clients = [stack.enter_context(browser(site)) for _ in range(4)]
        ids = [visit(c)["id"] for c in clients]
        ann = clients[0]
        send(ann, "PATCH", "/api/me", {"name": "Ann"})
        claim(ann, "ann")
        for n in range(1, 6):
            record(site, ann, ids, n)
        page = ann.get("/api/me/games", params={"limit": 2}).json()
        assert [g["match"] for g in page["games"]] == [5, 4] and page["next"]
        rest = ann.get("/api/me/games", params={"limit": 10, "after": page["next"]}).json()
        assert [g["match"] for g in rest["games"]] == [3, 2, 1] and rest["next"] is None
        assert page["games"][0]["rating_change"]["mu"] > 0
        chart = ann.get(f"/api/players/{ids[1]}/ratings", params={"limit": 3}).json()["ratings"]
        assert [p["at"] for p in chart] == sorted(p["at"] for p in chart) and len(chart) == 3
        assert chart[-1]["mu"] < chart[0]["mu"]  # lost every match
        public = ann.get(f"/api/players/{ids[1]}").json()["player"]
        assert public["stats"]["matches"] == 5 and public["stats"]["wins"] == 0
        assert "username" not in public and "language" not in public
        assert "hand" not in str(public)
        export = ann.get("/api/me/export")
        assert export.headers["Content-Disposition"].startswith("attachment")
        data = export.json()
        assert data["profile"]["username"] == "ann" and len(data["matches"]) == 5
        assert data["sessions"] and "token" not in str(data["sessions"])
        token = ann.cookies.get(SESSION_COOKIE) or ""
        assert token not in export.text
        board = ann.get("/api/leaderboard", params={"among": "played"}).json()
        assert {r["player"] for r in board["rows"]} == set(ids)
        assert ann.get("/api/leaderboard").json()["your_rank"] is None  # provisional
        # Bob deletes his profile: gone, and a former player in Ann's games.
        bob = clients[1]
        assert send(bob, "DELETE", "/api/me").status_code == 200
        assert ann.get(f"/api/players/{ids[1]}").status_code == 404
        seats = ann.get("/api/me/games").json()["games"][0]["seats"]
        assert seats[1]["name"] == FORMER_PLAYER and seats[1]["player"] is None
        assert bob.get("/api/me").status_code == 201  # a visitor again


def test_bad_queries_are_typed_errors(site: Site) -> None:
    with browser(site) as client:
        visit(client)
        assert client.get("/api/leaderboard", params={"among": "x"}).status_code == 400
        assert client.get("/api/players/" + "x" * 40).status_code == 404
        csrf = {CSRF_HEADER: client.cookies.get(CSRF_COOKIE) or ""}
        body = client.request("PATCH", "/api/me", content=b"not json", headers=csrf)
        assert code_of(body) == "bad_json"


# ------------------------------------------------------------------ passkeys


def register_passkey(client: TestClient, key: Authenticator) -> httpx.Response:
    options = send(client, "POST", "/api/me/passkeys/options").json()["options"]
    return send(client, "POST", "/api/me/passkeys", {"credential": key.create(options)})


def passkey_sign_in(
    client: TestClient, key: Authenticator, origin: str | None = None
) -> httpx.Response:
    options = send(client, "POST", "/api/session/passkey/options").json()["options"]
    return send(client, "POST", "/api/session/passkey", {"credential": key.get(options, origin)})


def test_a_passkey_signs_in_another_browser(site: Site) -> None:
    key = Authenticator("http://testserver", "testserver")
    with browser(site) as phone, browser(site) as laptop:
        ann = visit(phone)
        options = send(phone, "POST", "/api/me/passkeys/options").json()["options"]
        assert options["rp"]["id"] == "testserver"
        assert options["authenticatorSelection"]["residentKey"] == "required"
        added = send(phone, "POST", "/api/me/passkeys", {"credential": key.create(options)})
        assert added.status_code == 201, added.text
        visit(laptop)
        before = laptop.cookies.get(SESSION_COOKIE)
        signed = passkey_sign_in(laptop, key)
        assert signed.status_code == 200, signed.text
        assert signed.json()["profile"]["id"] == ann["id"]
        assert laptop.cookies.get(SESSION_COOKIE) != before  # rotated
        export = phone.get("/api/me/export").json()
        assert [k["id"] for k in export["passkeys"]] == [key.create(options)["id"]]
        # Registered twice: refused.
        again = register_passkey(phone, key)
        assert again.status_code == 400 and code_of(again) == "bad_passkey"


def test_passkey_attacks(site: Site) -> None:
    key = Authenticator("http://testserver", "testserver")
    with browser(site) as owner, browser(site) as attacker:
        visit(owner)
        assert register_passkey(owner, key).status_code == 201
        visit(attacker)
        # A page of another site relaying the ceremony: its origin is in what was signed.
        phished = passkey_sign_in(attacker, key, origin="https://evil.example")
        assert phished.status_code == 400 and code_of(phished) == "bad_passkey"
        # A signature replayed: its challenge is used up.
        options = send(attacker, "POST", "/api/session/passkey/options").json()["options"]
        answer = key.get(options)
        assert (
            send(attacker, "POST", "/api/session/passkey", {"credential": answer}).status_code
            == 200
        )
        visit(attacker)
        replay = send(attacker, "POST", "/api/session/passkey", {"credential": answer})
        assert replay.status_code == 400 and code_of(replay) == "bad_passkey"
        # Another key claiming the owner's credential id: the signature does not verify.
        forger = Authenticator("http://testserver", "testserver")
        forger.credential_id = key.credential_id
        forged = passkey_sign_in(attacker, forger)
        assert forged.status_code == 400 and code_of(forged) == "bad_passkey"
        # An unknown passkey, and no ceremony started.
        assert (
            code_of(passkey_sign_in(attacker, Authenticator("http://testserver", "testserver")))
            == "bad_passkey"
        )
        none = send(attacker, "POST", "/api/session/passkey", {"credential": answer})
        assert none.status_code == 400
        # A deleted profile's passkey signs nobody in.
        send(owner, "DELETE", "/api/me")
        assert visit(attacker)["id"] != ""  # (signed in as the owner: a new guest now)
        assert code_of(passkey_sign_in(attacker, key)) == "bad_passkey"


def test_guests_who_never_came_back_are_forgotten(site: Site) -> None:
    with browser(site) as gone, browser(site) as kept, browser(site) as regular:
        lost = visit(gone)
        visit(kept)
        claim(kept, "kept")
        visit(regular)
        site.clock.now += 60 * 86_400
        assert regular.get("/api/me").status_code == 200  # seen again: kept
        site.clock.now += 31 * 86_400
        forgotten = regular.portal.call(site.players.tidy)  # type: ignore[union-attr]
        assert forgotten == 1
        assert regular.get(f"/api/players/{lost['id']}").status_code == 404
        assert gone.get("/api/me").status_code == 201  # a visitor again
        # The claimed profile stays; its session expired (90 days unused), it signs in again.
        assert kept.get("/api/me").status_code == 201
        visit(kept)
        back = send(kept, "POST", "/api/session", {"username": "kept", "password": "correct horse"})
        assert back.status_code == 200


def test_a_flood_of_sign_ins_cannot_queue_up_hashing(tmp_path: Path) -> None:
    """Many addresses signing in at once: beyond the hashing queue they are refused at once
    (rate_limited) rather than queued ahead of everybody else's sign-in."""

    class Slow(Passwords):
        def verify(self, password_hash: str | None, password: str) -> bool:
            time.sleep(0.05)
            return False

    roomy = {a: Budget(1000, 100.0) for a in Attempt}
    site = Site(tmp_path / "flood.db", LocalThrottle(roomy), Slow(time_cost=1, memory_kib=1024))

    async def flood() -> list[str]:
        await site.players.store.open()  # type: ignore[attr-defined]
        try:
            tries = [
                site.players.sign_in("ann", "password1", f"10.0.{i // 250}.{i % 250}", None)
                for i in range(HASHING + HASHING_QUEUE + 10)
            ]
            answers = await asyncio.gather(*tries, return_exceptions=True)
        finally:
            await site.players.store.close()  # type: ignore[attr-defined]
        return [str(a.code) for a in answers if isinstance(a, PlayerError)]

    codes = asyncio.run(flood())
    assert codes.count("rate_limited") == 10
    assert codes.count("bad_credentials") == HASHING + HASHING_QUEUE


def test_sign_one_other_device_out(site: Site) -> None:
    with browser(site) as phone, browser(site) as laptop, browser(site) as stranger:
        visit(phone)
        claim(phone, "ann")
        visit(laptop)
        send(laptop, "POST", "/api/session", {"username": "ann", "password": "correct horse"})
        listed = phone.get("/api/me/sessions").json()["sessions"]
        assert len(listed) == 2 and sum(s["current"] for s in listed) == 1
        other = next(s["id"] for s in listed if not s["current"])
        token = laptop.cookies.get(SESSION_COOKIE) or ""
        assert token not in str(listed)
        # Somebody else cannot end it, even knowing its id.
        visit(stranger)
        refused = send(stranger, "DELETE", f"/api/me/sessions/{other}")
        assert refused.status_code == 404 and code_of(refused) == "no_such_session"
        assert send(phone, "DELETE", f"/api/me/sessions/{other}").status_code == 200
        assert laptop.get("/api/me/games").status_code == 401
        assert phone.get("/api/me/games").status_code == 200
        assert send(phone, "DELETE", f"/api/me/sessions/{other}").status_code == 404
        assert send(phone, "DELETE", "/api/me/sessions/%25").status_code == 404
