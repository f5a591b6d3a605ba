"""Who is online, at a table or offline, told live to their friends' profile sockets
(docs/friends.md, "Presence").

A profile is online while one of its profile sockets (``/ws/me``) is open on any process of
the cluster, and at a table while one of them reports a table its profile holds a seat at
(the table page keeps one open). Each process says, on one Redis channel, what it holds of
each profile (:data:`CHANNEL`: "online", "table:CODE" or nothing) and beats every
:data:`BEAT_SECONDS`; every process keeps the whole cluster's picture and tells its own
sockets what changed of their profiles' friends. A process not heard for
:data:`GONE_SECONDS` (killed, cut off) is forgotten: its profiles go offline, and come back
as their sockets reconnect to another process. A process that starts, or comes back to
Redis, says ``hello`` and every other one sends it all it holds; one that stops says ``bye``.
While Redis is away from a process, it hears nobody: after :data:`GONE_SECONDS` its sockets
see the friends on other processes offline, until Redis is back.

Without a broker (one process) the same messages are handled at once, here.

A friend at a table is shown "at a table"; which table only to a friend at that same table.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import orjson

if TYPE_CHECKING:
    from ..cluster.broker import Broker

log = logging.getLogger(__name__)

CHANNEL = "friends"
BEAT_SECONDS = 0.5
#: A process not heard for this long is gone (its profiles offline): "within seconds". As
#: long as the broker's own (cluster/broker.py, ALIVE_SECONDS): a process whose loop stalls
#: longer is taken for dead by the relaying too.
GONE_SECONDS = 2.0
#: What one process holds of a profile: "online", "table:CODE", or "" (nothing).
Held = str


class Listener(Protocol):
    """One profile socket: whose, and how to give it a message (never blocks)."""

    @property
    def profile(self) -> str: ...

    def send(self, message: dict[str, Any]) -> None: ...

    def close(self) -> None:
        """Close it (its profile is gone)."""
        ...


def shown(held: list[Held]) -> Held:
    """One profile's status over every process: at a table wins over online."""
    best = ""
    for value in held:
        if value.startswith("table:"):
            return value
        if value:
            best = value
    return best


class Presence:
    """The cluster's presence as this process sees it, and its own profile sockets."""

    def __init__(
        self,
        friend_ids: Callable[[str], Awaitable[list[str]]],
        broker: Broker | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._friend_ids = friend_ids
        self._broker = broker
        self._clock = clock
        self.process = broker.process if broker is not None else "here"
        #: This process's sockets, by profile, and the table each reports.
        self._sockets: dict[str, set[Listener]] = {}
        self._tables: dict[Listener, str | None] = {}
        #: Each socket's profile's friends, and who watches whom (sockets by friend).
        self._friends: dict[Listener, set[str]] = {}
        self._watchers: dict[str, set[Listener]] = {}
        #: The cluster: profile -> process -> what it holds; when each process was heard.
        self._where: dict[str, dict[str, Held]] = {}
        self._heard: dict[str, float] = {}
        #: Each profile's status as last shown.
        self._shown: dict[str, Held] = {}
        #: What this process last said it holds of each profile.
        self._said: dict[str, Held] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._pending: set[asyncio.Task[None]] = set()
        #: Statuses to send each socket at the end of this pass (:meth:`_flush`).
        self._telling: dict[Listener, dict[str, dict[str, Any]]] = {}
        self._reconnected = False
        self._channel = b""

    # ------------------------------------------------------------ running

    def start(self) -> None:
        broker = self._broker
        if broker is None:
            return
        from ..cluster.broker import channel

        self._channel = channel(CHANNEL)
        broker.subscribe(self._channel, self._received)
        broker.on_lost(self._lost)
        self._tasks = [asyncio.get_running_loop().create_task(self._beat())]

    async def stop(self) -> None:
        """Stop (a process shutting down says so: its profiles go offline for the others at
        once, not after :data:`GONE_SECONDS`)."""
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        if self._broker is not None:
            self._emit({"k": "bye", "p": self.process})
            self._broker.unsubscribe(self._channel)

    async def _beat(self) -> None:
        """Say this process lives; forget those not heard from."""
        assert self._broker is not None
        with contextlib.suppress(Exception):
            await self._broker.subscribed(self._channel)
        self._emit({"k": "hello", "p": self.process})
        while True:
            await asyncio.sleep(BEAT_SECONDS)
            if self._reconnected and self._broker.connected:
                self._reconnected = False
                self._emit({"k": "hello", "p": self.process})
            self._emit({"k": "beat", "p": self.process})
            self._forget_silent()

    def _lost(self) -> None:
        """Redis lost: what was said meanwhile is lost to us; ask again once it is back."""
        self._reconnected = True

    def _forget_silent(self) -> None:
        now = self._clock()
        for process, heard in list(self._heard.items()):
            if process != self.process and now - heard > GONE_SECONDS:
                log.info("presence: process %s not heard for %.0f s", process, now - heard)
                self._forget(process)
        self._flush()

    def _forget(self, process: str) -> None:
        """``process`` is gone: what it held of each profile too."""
        self._heard.pop(process, None)
        for profile, held in list(self._where.items()):
            if held.pop(process, None) is not None:
                if not held:
                    del self._where[profile]
                self._changed(profile)

    # ------------------------------------------------------------ this process's sockets

    async def attach(self, socket: Listener) -> None:
        """A profile socket opened: its friends are watched, it is sent their statuses, and
        its profile is online."""
        friends = set(await self._friend_ids(socket.profile))
        self._watch(socket, friends)
        self._sockets.setdefault(socket.profile, set()).add(socket)
        self._tables[socket] = None
        self._held_here(socket.profile)
        socket.send(self.snapshot(socket))

    def detach(self, socket: Listener) -> None:
        profile = socket.profile
        self._watch(socket, set())
        self._friends.pop(socket, None)
        self._tables.pop(socket, None)
        mine = self._sockets.get(profile)
        if mine is not None:
            mine.discard(socket)
            if not mine:
                del self._sockets[profile]
        self._held_here(profile)

    def at_table(self, socket: Listener, code: str | None) -> None:
        """``socket``'s page is at table ``code`` (checked: its profile holds a seat there),
        or at none."""
        if socket in self._tables:
            self._tables[socket] = code
            self._held_here(socket.profile)

    def _watch(self, socket: Listener, friends: set[str]) -> None:
        for friend in self._friends.get(socket, set()) - friends:
            watchers = self._watchers.get(friend)
            if watchers is not None:
                watchers.discard(socket)
                if not watchers:
                    del self._watchers[friend]
        for friend in friends:
            self._watchers.setdefault(friend, set()).add(socket)
        self._friends[socket] = friends

    def _held_here(self, profile: str) -> None:
        """Say what this process now holds of ``profile``."""
        sockets = self._sockets.get(profile, set())
        tables = [code for s in sockets if (code := self._tables.get(s))]
        held = f"table:{min(tables)}" if tables else ("online" if sockets else "")
        if self._said.get(profile, "") != held:
            if held:
                self._said[profile] = held
            else:
                del self._said[profile]
            self._emit({"k": "s", "p": self.process, "id": profile, "v": held})

    # ------------------------------------------------------------ what is shown

    def status(self, profile: str) -> Held:
        return self._shown.get(profile, "")

    def view(self, profile: str, viewer: str) -> dict[str, Any]:
        """``profile``'s status as ``viewer`` sees it: the table only if theirs too."""
        held = self.status(profile)
        if not held:
            return {"status": "offline"}
        if not held.startswith("table:"):
            return {"status": "online"}
        body: dict[str, Any] = {"status": "table"}
        if held == self.status(viewer):
            body["table"] = held.removeprefix("table:")
        return body

    def snapshot(self, socket: Listener) -> dict[str, Any]:
        friends = sorted(self._friends.get(socket, set()))
        return {
            "type": "presence",
            "friends": {f: self.view(f, socket.profile) for f in friends},
        }

    def _changed(self, profile: str) -> None:
        """Recompute ``profile``'s status; tell the sockets watching it if it changed (and,
        when it moved between tables, its own sockets what their friends there are)."""
        before = self._shown.get(profile, "")
        now = shown(list(self._where.get(profile, {}).values()))
        if now == before:
            return
        if now:
            self._shown[profile] = now
        else:
            self._shown.pop(profile, None)
        for socket in self._watchers.get(profile, ()):
            self._tell(socket, {profile: self.view(profile, socket.profile)})
        tables = {t for t in (before, now) if t.startswith("table:")}
        if tables:
            for socket in self._sockets.get(profile, ()):
                near = {
                    f: self.view(f, profile)
                    for f in self._friends.get(socket, ())
                    if self.status(f) in tables
                }
                if near:
                    self._tell(socket, near)

    def _tell(self, socket: Listener, friends: dict[str, dict[str, Any]]) -> None:
        """Statuses for ``socket``, sent together with the others of this pass (a process
        gone is one message a socket, not one a friend)."""
        self._telling.setdefault(socket, {}).update(friends)

    def _flush(self) -> None:
        telling, self._telling = self._telling, {}
        for socket, friends in telling.items():
            socket.send({"type": "presence", "friends": friends})

    # ------------------------------------------------------------ messages for profiles

    def tell(self, profile: str, message: dict[str, Any]) -> None:
        """Give ``message`` to every socket ``profile`` has open, on any process."""
        self._emit({"k": "to", "id": profile, "m": message})

    def drop(self, profile: str) -> None:
        """Close every socket ``profile`` has open, on any process (it was deleted)."""
        self._emit({"k": "drop", "id": profile})

    def refresh(self, *profiles: str) -> None:
        """The friends of ``profiles`` changed (a request, a friendship, a block): their
        sockets, on any process, read them again and are told (``friends_changed``)."""
        self._emit({"k": "refresh", "ids": list(profiles)})

    async def _refresh(self, profiles: list[str]) -> None:
        for profile in profiles:
            sockets = list(self._sockets.get(profile, ()))
            if not sockets:
                continue
            friends = set(await self._friend_ids(profile))
            for socket in sockets:
                if socket in self._friends:  # (still open)
                    self._watch(socket, friends)
                    socket.send(self.snapshot(socket))
                    socket.send({"type": "friends_changed"})

    # ------------------------------------------------------------ the channel

    def _emit(self, message: dict[str, Any]) -> None:
        if self._broker is None:
            self._handle(message)
        else:
            self._broker.publish(self._channel, orjson.dumps(message))

    def _received(self, data: bytes) -> None:
        message = orjson.loads(data)
        if isinstance(message, dict):
            self._handle(message)

    def _handle(self, message: dict[str, Any]) -> None:
        try:
            self._apply(message)
        finally:
            self._flush()

    def _apply(self, message: dict[str, Any]) -> None:
        kind, process = message.get("k"), message.get("p")
        if kind == "bye":
            if isinstance(process, str) and process != self.process:
                self._forget(process)
            return
        if isinstance(process, str):
            if process not in self._heard and process != self.process and kind != "hello":
                # A process we did not know (we were away from Redis): ask for everything.
                self._emit({"k": "hello", "p": self.process})
            self._heard[process] = self._clock()
        if kind == "s" and isinstance(process, str):
            self._hold(process, str(message.get("id")), str(message.get("v") or ""))
        elif kind == "all" and isinstance(process, str):
            for profile, held in dict(message.get("s") or {}).items():
                self._hold(process, str(profile), str(held))
        elif kind == "hello" and process != self.process:
            self._emit({"k": "all", "p": self.process, "s": self._mine()})
        elif kind == "to":
            profile, body = message.get("id"), message.get("m")
            if isinstance(profile, str) and isinstance(body, dict):
                for socket in list(self._sockets.get(profile, ())):
                    socket.send(body)
        elif kind == "drop":
            for socket in list(self._sockets.get(str(message.get("id")), ())):
                socket.close()
        elif kind == "refresh":
            ids = [p for p in message.get("ids") or () if isinstance(p, str)]
            task = asyncio.get_running_loop().create_task(self._refresh(ids))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    def _mine(self) -> dict[str, Held]:
        return dict(self._said)

    def _hold(self, process: str, profile: str, held: Held) -> None:
        where = self._where.setdefault(profile, {})
        if held:
            where[process] = held
        else:
            where.pop(process, None)
            if not where:
                del self._where[profile]
        self._changed(profile)

    # ------------------------------------------------------------ figures

    @property
    def sockets(self) -> int:
        return len(self._tables)

    @property
    def processes(self) -> list[str]:
        return sorted(self._heard)
