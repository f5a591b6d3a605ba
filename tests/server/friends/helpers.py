"""Pages of a real server for the friends' tests: a browser's cookies and CSRF header, its
profile socket."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import httpx
import orjson
import websockets

PASSWORD = "correct horse battery"


class Page:
    """One browser: its cookies (a session made at the first visit) and what it asks."""

    def __init__(self, url: str, username: str | None = None, name: str | None = None) -> None:
        self.url = url
        self.http = httpx.Client(base_url=url, timeout=20)
        self.id: str = self.http.get("/api/me").raise_for_status().json()["profile"]["id"]
        if name is not None:
            self.patch("/api/me", {"name": name}).raise_for_status()
        if username is not None:
            self.post("/api/me/claim", {"username": username, "password": PASSWORD})

    @property
    def headers(self) -> dict[str, str]:
        return {"X-CSRF-Token": self.http.cookies["fof_csrf"]}

    def post(self, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        return self.http.post(path, json=body or {}, headers=self.headers)

    def patch(self, path: str, body: dict[str, Any]) -> httpx.Response:
        return self.http.patch(path, json=body, headers=self.headers)

    def delete(self, path: str) -> httpx.Response:
        return self.http.delete(path, headers=self.headers)

    def lists(self) -> dict[str, Any]:
        return dict(self.http.get("/api/friends").raise_for_status().json())

    def ask(self, **body: Any) -> httpx.Response:
        return self.post("/api/friends/requests", body)

    def befriend(self, other: Page) -> None:
        assert self.ask(id=other.id, table=self.table_with(other)).status_code == 201
        assert other.post(f"/api/friends/requests/{self.id}/accept").status_code == 200

    def table_with(self, *others: Page) -> str:
        """A table this page made, with ``others`` seated at it (from their pages)."""
        made = self.post("/api/tables", {"name": "Host"}).raise_for_status().json()
        for seat, other in enumerate(others, start=1):
            joined = other.post(f"/api/tables/{made['code']}/join", {"name": "P", "seat": seat})
            assert joined.status_code == 200, joined.text
        return str(made["code"])

    def cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())

    async def socket(self, url: str | None = None, origin: str | None = None) -> Socket:
        headers = {"Cookie": self.cookie_header()}
        if origin is not None:
            headers["Origin"] = origin
        ws = await websockets.connect(
            (url or self.url).replace("http", "ws", 1) + "/ws/me", additional_headers=headers
        )
        return Socket(ws)


class Socket:
    """A page's profile socket: what it was sent, in order."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.got: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(orjson.dumps(message).decode())

    async def until(self, test: Any, timeout: float = 5.0) -> dict[str, Any]:
        """The first message (kept, or coming) that passes ``test``."""
        for message in self.got:
            if test(message):
                self.got.remove(message)
                return message
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError(f"nothing passed; got {self.got}")
            try:
                message = orjson.loads(await asyncio.wait_for(self.ws.recv(), left))
            except TimeoutError:
                continue
            if test(message):
                return dict(message)
            self.got.append(message)

    async def status(self, friend: str, wanted: dict[str, Any], timeout: float = 5.0) -> None:
        """Wait until ``friend``'s status is told as ``wanted``."""
        await self.until(
            lambda m: m.get("type") == "presence" and m["friends"].get(friend) == wanted, timeout
        )

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()


def presence(friend: str, status: str, table: str | None = None) -> Any:
    wanted: dict[str, Any] = {"status": status}
    if table is not None:
        wanted["table"] = table
    return lambda m: m.get("type") == "presence" and m["friends"].get(friend) == wanted
