"""A real server (uvicorn in a thread) with in-memory clubs and a notifier that keeps what
it is asked to send, and browsers (httpx clients with their own cookies) for its players."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fouronefour.server.config import ServerConfig
from fouronefour.server.notify import Notice
from fouronefour.server.routes.state import ServerState
from fouronefour.server.tournaments.access import MemoryClubs, Role
from tests.server.conftest import ThreadServer


class Kept:
    """A notifier that sends nothing and keeps every notice, by profile."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Notice]] = []

    async def notify(self, profile_id: str, notice: Notice) -> int:
        self.sent.append((profile_id, notice))
        return 1


class Browser:
    """One player's browser: a guest profile, its session cookie and CSRF token."""

    def __init__(self, url: str) -> None:
        self.http = httpx.Client(base_url=url, timeout=20)
        answer = self.http.get("/api/me")
        assert answer.status_code in (200, 201), answer.text
        self.id: str = answer.json()["profile"]["id"]
        self.csrf: str = answer.json()["csrf"]

    def get(self, path: str) -> httpx.Response:
        return self.http.get(path)

    def post(self, path: str, body: Any = None, csrf: bool = True) -> httpx.Response:
        headers = {"X-CSRF-Token": self.csrf} if csrf else {}
        return self.http.post(path, json=body if body is not None else {}, headers=headers)


class Club:
    """A server with one club, ``club1``, and its members' browsers."""

    def __init__(self, server: ThreadServer, clubs: MemoryClubs, kept: Kept) -> None:
        self.server = server
        self.clubs = clubs
        self.kept = kept

    @property
    def state(self) -> ServerState:
        state: ServerState = self.server.app.state.server
        return state

    def member(self, role: Role = "member", club: str = "club1") -> Browser:
        browser = Browser(self.server.url)
        self.clubs.clubs.setdefault(club, {})[browser.id] = role
        return browser

    def stranger(self) -> Browser:
        return Browser(self.server.url)

    def until(
        self, browser: Browser, event_id: str, done: Callable[[dict[str, Any]], bool],
        seconds: float = 90,
    ) -> dict[str, Any]:  # fmt: skip
        deadline = time.monotonic() + seconds
        while True:
            shown = browser.get(f"/api/events/{event_id}").json()
            if done(shown):
                return shown
            assert time.monotonic() < deadline, json.dumps(shown, indent=1)
            time.sleep(0.2)


def start_server(db: Path | str, clubs: MemoryClubs, kept: Kept, **overrides: Any) -> ThreadServer:
    """``db``: a SQLite file, or a PostgreSQL URL."""
    # (Claim windows wait for their time even at a table of bots: short ones here.)
    settings: dict[str, Any] = {
        "db": str(db),
        "bot_delay": 0.0,
        "bot_processes": 0,
        "hook_seconds": 0.05,
    }
    settings.update(overrides)
    server = ThreadServer(ServerConfig(**settings))
    state: ServerState = server.app.state.server
    assert state.tournaments is not None
    state.tournaments.clubs = clubs
    server.__enter__()
    # (After the start: a server with Web Push sets its own notifier as it starts.)
    state.notifier = kept
    return server


@pytest.fixture
def club(tmp_path: Path) -> Iterator[Club]:
    clubs, kept = MemoryClubs(), Kept()
    server = start_server(tmp_path / "club.db", clubs, kept)
    try:
        yield Club(server, clubs, kept)
    finally:
        server.__exit__()
