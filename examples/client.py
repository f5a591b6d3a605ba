"""A small client of the 414 server (docs/protocol.md): plays a whole match over the wire.

It needs a running server: start one first (``make serve`` or ``fouronefour serve``), then::

    python examples/client.py                      # 1 player + 3 bots, random play
    python examples/client.py --players 4 --humans 2 --server http://127.0.0.1:8414

The first client creates the table (and is its host), the others join it by its code; the
host fills the empty seats with bots and starts; every client plays random legal moves,
answers its hook prompts, and reconnects with ``since`` if its connection drops, until the
match is over, saying ``ready`` at each end-of-round pause. A move refused with
``rate_limited`` (the server allows each connection 20 messages a second) is sent again,
unchanged, after the ``retry_after_ms`` the error names. Uses httpx for the HTTP API and
websockets for the table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets


@dataclass
class Player:
    """One seat's connection: keeps the last version seen and the seat's private state."""

    server: str
    code: str
    token: str
    seat: int
    rng: random.Random
    host: bool = False
    version: int | None = None
    you: dict[str, Any] | None = None
    state: dict[str, Any] | None = None
    acked: list[tuple[int, str]] = field(default_factory=list)  # (version, move) of my moves
    sent: dict[str, dict[str, Any]] = field(default_factory=dict)  # unanswered moves and readies
    resent: int = 0  # moves (and readies) sent again after a rate_limited refusal
    reconnects: int = 0
    #: In a cluster, the table's owner as the server named it (``node`` in the create and
    #: join answers): asked for in the socket's URL, for a load balancer routing by it.
    node: str | None = None
    _answered: tuple[int, str] | None = None
    _readied: int | None = None  # the round whose end this player said ready to
    _counter: int = 0

    @property
    def ws_url(self) -> str:
        query = "" if self.node is None else f"?node={self.node}"
        return self.server.replace("http", "ws", 1) + f"/ws/{self.code}{query}"

    def _next_id(self) -> str:
        self._counter += 1
        return f"{self.seat}-{self._counter}"

    async def play(self, start: asyncio.Event | None = None, retry_seconds: float = 30.0) -> None:
        """Play until the match is over, reconnecting after a dropped connection."""
        deadline = asyncio.get_running_loop().time() + retry_seconds
        while True:
            try:
                if await self._session(start):
                    return
            except (OSError, websockets.ConnectionClosed):
                pass
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"seat {self.seat}: the server did not come back")
            self.reconnects += 1
            await asyncio.sleep(0.2)

    async def _session(self, start: asyncio.Event | None) -> bool:
        async with websockets.connect(self.ws_url, compression=None) as ws:
            hello: dict[str, Any] = {"type": "hello", "protocol": 3, "token": self.token}
            if self.version is not None:
                hello["since"] = self.version
            await ws.send(json.dumps(hello))
            if self.host and start is not None and not start.is_set():
                await ws.send(json.dumps({"type": "fill_bots", "id": "fill"}))
                await ws.send(json.dumps({"type": "start", "id": "start"}))
                start.set()
            self._answered = None  # after a reconnect a pending decision is offered again
            self.sent.clear()
            resends: set[asyncio.Task[None]] = set()
            self._readied = None
            async for raw in ws:
                message = json.loads(raw)
                if self._moved(message):
                    return False  # (reconnected at once, to the table's owner)
                if self._receive(message):
                    return True
                retry = self._refused_for_rate(message)
                if retry is not None:
                    task = asyncio.create_task(self._send_later(ws, *retry))
                    resends.add(task)
                    task.add_done_callback(resends.discard)
                if self._ready_due():
                    ready = {"type": "ready", "id": self._next_id()}
                    self.sent[ready["id"]] = ready
                    await ws.send(json.dumps(ready))
                move = self._choose()
                if move is not None:
                    body = {"type": "move", "id": self._next_id(), "v": self.version, "move": move}
                    self.sent[body["id"]] = body
                    await ws.send(json.dumps(body))
        return False

    def _moved(self, message: dict[str, Any]) -> bool:
        """A welcome naming another owner than the one asked for (in a cluster, the asked
        one died and the table moved): asked for from now on, so that a load balancer
        routing by ``?node=`` sends this socket to the owner rather than a relay."""
        node = message.get("node") if message["type"] == "welcome" else None
        if node is None or node == self.node:
            return False
        moved, self.node = self.node is not None, node
        return moved

    def _refused_for_rate(self, message: dict[str, Any]) -> tuple[dict[str, Any], float] | None:
        """A move (or ready) of ours refused with ``rate_limited``: it and how long to wait
        (the error names its id and ``retry_after_ms``; docs/protocol.md, section 6)."""
        if message["type"] != "error" or message["code"] != "rate_limited":
            return None
        body = self.sent.get(message.get("id"))
        if body is None:
            return None
        return body, message.get("retry_after_ms", 1000) / 1000

    async def _send_later(
        self, ws: websockets.ClientConnection, body: dict[str, Any], delay: float
    ) -> None:
        await asyncio.sleep(delay)
        if body["id"] in self.sent:  # (unless answered meanwhile)
            self.resent += 1
            with contextlib.suppress(websockets.ConnectionClosed):  # (the session reconnects)
                await ws.send(json.dumps(body))

    def _receive(self, message: dict[str, Any]) -> bool:
        kind = message["type"]
        if kind in ("ack", "error") and message.get("code") != "rate_limited":
            self.sent.pop(message.get("id"), None)  # answered
        if kind == "snapshot":
            self.version = message["v"]
            self.state = message["state"]
            self.you = message["you"]
        elif kind == "update":
            if self.version is not None and message["v"] != self.version + 1:
                raise websockets.ConnectionClosed(None, None)  # a gap: reconnect with since
            self.version = message["v"]
            self.state = message["state"]
            if "you" in message:
                self.you = message["you"]
            if "ack" in message:  # the update our own move made carries its ack
                self._receive(message["ack"])
        elif kind == "ack" and message.get("move") and not message.get("claim"):
            self.acked.append((message["v"], message["move"]))
        elif kind == "error" and message["code"] != "rate_limited" and not self._race(message):
            print(f"seat {self.seat}: {message['code']}: {message['message']}")
        return bool(self.state and self.state["match_over"])

    @staticmethod
    def _race(error: dict[str, Any]) -> bool:
        """Refusals that are no mistake: a fast window closed (and maybe opened anew, with a
        new prompt) while this client's answer to the old one was on its way."""
        return error["code"] == "stale_version" or error["message"] == (
            "the claim window has closed"
        )

    def _ready_due(self) -> bool:
        """At an end-of-round pause this seat is not ready for yet (said once a round)."""
        pause = (self.state or {}).get("round_end")
        if not pause or self.seat in pause["ready"] or self._readied == pause["round_number"]:
            return False
        self._readied = pause["round_number"]
        return True

    def _choose(self) -> str | None:
        you = self.you
        if not you or not you["decision"]:
            return None
        key = (you["prompt_v"], you["decision"])
        if key == self._answered:
            return None
        self._answered = key
        legal = you["legal_moves"]
        return str(legal[self.rng.randrange(len(legal))])


async def play_match(
    server: str,
    players: int = 4,
    humans: int = 1,
    seed: int = 0,
    options: dict[str, Any] | None = None,
) -> tuple[str, list[Player]]:
    """Create a table, seat ``humans`` clients, fill the rest with bots, play it out."""
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=server, timeout=10) as http:
        body = {"name": "Host", "players": players, **(options or {})}
        created = (await http.post("/api/tables", json=body)).raise_for_status().json()
        code = created["code"]
        clients = [
            Player(
                server,
                code,
                created["token"],
                created["seat"],
                random.Random(rng.random()),
                host=True,
                node=created.get("node"),
            )
        ]
        for seat in range(1, humans):
            joined = (
                await http.post(
                    f"/api/tables/{code}/join", json={"name": f"Guest {seat}", "seat": seat}
                )
            ).json()
            clients.append(
                Player(
                    server,
                    code,
                    joined["token"],
                    seat,
                    random.Random(rng.random()),
                    node=joined.get("node"),
                )
            )
    start = asyncio.Event()
    host, guests = clients[0], clients[1:]
    tasks = [asyncio.create_task(guest.play()) for guest in guests]
    await asyncio.sleep(0.1)  # let the guests say hello first (they would catch up anyway)
    tasks.append(asyncio.create_task(host.play(start)))
    await asyncio.gather(*tasks)
    return code, clients


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Play a whole match of 414 over the wire against a running server "
        "(start one first: make serve, or fouronefour serve).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--server", default="http://127.0.0.1:8414", help="the server's URL")
    parser.add_argument("--players", type=int, default=4, help="seats at the table")
    parser.add_argument("--humans", type=int, default=1, help="clients to seat (the rest: bots)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the clients' random play")
    parser.add_argument(
        "--hook-mode", choices=("fast", "fair"), default="fast", help="the table's hook windows"
    )
    args = parser.parse_args(argv)
    try:
        code, clients = asyncio.run(
            play_match(
                args.server,
                args.players,
                args.humans,
                args.seed,
                {"hook_mode": args.hook_mode, "hook_seconds": 1.0},
            )
        )
    except httpx.HTTPStatusError as error:
        print(f"client.py: the server refused: {error.response.text}")
        return 1
    except (httpx.HTTPError, OSError) as error:
        print(
            f"client.py: no 414 server answers at {args.server} ({error or type(error).__name__}):"
            " start one first (make serve, or fouronefour serve)"
        )
        return 1
    state = clients[0].state or {}
    print(
        f"table {code}: match over, team {state.get('match_winner')} won, levels "
        f"{state.get('levels')}; my moves acknowledged: {[len(c.acked) for c in clients]}"
        f"; sent again after rate_limited: {sum(c.resent for c in clients)}"
    )
    print(f"replay: {args.server}/api/tables/{code}/replays/1")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
