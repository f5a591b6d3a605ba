"""All tables of a server, by invite code: creation, lookup, loading from storage."""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from .background.analyst import Analyst
from .background.botrunner import DEFAULT_LEVEL, BotRunner, available_bots
from .clock import Scheduler
from .codes import CODE_ALPHABET, CODE_LENGTH
from .config import ServerConfig
from .errors import ErrorCode, TableError
from .sockets.admission import Admission
from .storage import CodeTaken, Ownership, Storage, StorageError, ownership_of
from .tables.fanout import Fanout
from .tables.model import OPTION_KEYS
from .tables.services import TableServices, TurnWatcher
from .tables.settings import SETTING_KEYS, TableSettings
from .tables.table import Table, TableOptions

#: Every field a create request may have.
CREATE_KEYS = OPTION_KEYS | SETTING_KEYS | {"name", "seat"}

_CODE_CHARACTERS = frozenset(CODE_ALPHABET)
#: New codes drawn for one table when the drawn one was taken between look and write.
CODE_ATTEMPTS = 5


class Elsewhere(Exception):
    """Another process of the cluster owns the table (relay.py relays to it)."""

    def __init__(self, code: str) -> None:
        super().__init__(f"table {code} is owned by another process")
        self.code = code


class OwnerHooks(Protocol):
    """What happens when this process starts or stops owning a table."""

    def serve(self, table: Table) -> None: ...

    async def ready(self, code: str) -> None:
        """Return once what :meth:`serve` set up for ``code`` works (others can reach it)."""
        ...

    def stop(self, code: str, written: bool = True) -> None:
        """``written``: everything of it is written (else it was taken over: what was not
        written is dropped)."""
        ...


class _NoHooks:
    def serve(self, table: Table) -> None:
        pass

    async def ready(self, code: str) -> None:
        pass

    def stop(self, code: str, written: bool = True) -> None:
        pass


def seed_stream(seed: int | None) -> Callable[[], int]:
    """The seeds of successive matches: from the OS, or (tests) a stream fixed by ``seed``."""
    if seed is None:
        return lambda: secrets.randbits(62)
    rng = random.Random(seed)
    return lambda: rng.getrandbits(62)


def default_bot() -> str:
    """The bots of a new table unless the host picks: the Strong level (the greedy rules)."""
    return DEFAULT_LEVEL if DEFAULT_LEVEL in available_bots() else "random"


class TableRegistry:
    """Tables live here; storage and fan-out are shared by all of them.

    At most ``config.max_tables`` tables are held in memory. Tables being played always are
    (their timers and bots run); the others are read from storage when asked for, and when
    room is needed the least recently used one that is not being played, has no connection
    and was left alone for ``config.table_idle_seconds`` is dropped from memory (it stays in
    the database, as it is). So tables that people leave behind never fill a server that
    runs for months, and a restart loads only the tables being played."""

    def __init__(
        self,
        config: ServerConfig,
        storage: Storage,
        fanout: Fanout,
        clock: Callable[[], float] = time.monotonic,
        ownership: Ownership | None = None,
    ) -> None:
        self.config = config
        self.storage = storage
        #: Which tables this process may write (by default, as ``storage`` keeps it).
        self.ownership = ownership_of(storage) if ownership is None else ownership
        self.fanout = fanout
        #: The tables in memory, least recently used first.
        self.tables: OrderedDict[str, Table] = OrderedDict()
        self._used: dict[str, float] = {}  # code -> when last asked for or left
        self._holders: Counter[str] = Counter()  # code -> connections using it
        self._now = clock  # for idle times: monotonic
        self._services: TableServices | None = None
        #: Codes whose tables are being deleted (retention.py): never read back meanwhile.
        self.retiring: set[str] = set()
        #: Tables being read from storage, by code (one read each, whoever asks).
        self._loading: dict[str, asyncio.Future[Table]] = {}
        self._disowning: set[asyncio.Future[None]] = set()
        #: What a cluster does when this process starts or stops owning a table (relay.py).
        self.hooks: OwnerHooks = _NoHooks()
        #: The connections of each table here (set by the app).
        self.admission: Admission = Admission(1, 1, 1)
        self._seeds = seed_stream(config.seed)
        #: Analyses the rounds of this process's tables as they end (set by the app).
        self.analyst: Analyst | None = None
        #: Told when a turn falls to a seated profile (push/turns.py: "your turn").
        self.turns: TurnWatcher | None = None
        #: The server is stopping (:meth:`stop`).
        self.stopping = False

    async def start(self, scheduler: Scheduler, bots: BotRunner) -> None:
        """Load the tables being played that no other process owns and resume their timers;
        the others wait in storage until asked for."""
        self._services = TableServices(
            self.storage,
            self.fanout,
            scheduler,
            bots,
            self._seeds,
            self.config.bot_delay,
            self.analyst,
            self.turns,
        )
        self.ownership.on_lost(self.lost)
        restored = []
        for stored in await self.storage.fetch_tables(status="playing"):
            if await self.ownership.own(stored.code):
                table = Table.restore(stored, self._services)
                self._keep(table)
                restored.append(table)
        for table in restored:
            table.resume()
            self.hooks.serve(table)

    async def adopt_orphans(self) -> int:
        """Take over the tables being played that no process owns (their owner is gone);
        returns how many."""
        adopted = 0
        orphans = await self.ownership.orphans()
        random.shuffle(orphans)  # (processes sweeping together take different ones first)
        for code in orphans:
            if code in self.tables:
                continue
            with contextlib.suppress(TableError, Elsewhere):
                await self._load(code)
                adopted += 1
        return adopted

    def lost(self, codes: list[str]) -> None:
        """Another process took these tables over (this one could not reach the database
        meanwhile): they change nothing more here, and their connections close at once,
        dropping what was not written; their clients reconnect to the new owner."""
        for code in codes:
            table = self.tables.pop(code, None)
            self._used.pop(code, None)
            if table is None:
                continue
            table.retire()
            self.hooks.stop(code, written=False)
            for connection in self.admission.at(code):
                connection.moved()

    @property
    def services(self) -> TableServices:
        if self._services is None:
            raise RuntimeError("the registry serves tables once started")
        return self._services

    def default_options(self) -> TableOptions:
        from ..engine import Rules

        return TableOptions(
            Rules(players=4),
            turn_seconds=self.config.turn_seconds,
            hook_seconds=self.config.hook_seconds,
            hook_mode="fast" if self.config.hook_mode == "fast" else "fair",
            bot=default_bot(),
        )

    async def get(self, code: str) -> Table:
        """The table of ``code`` (any case), read from storage if it is not in memory; raises
        :class:`Elsewhere` if another process owns it."""
        key = code.upper() if isinstance(code, str) else ""
        table = self.tables.get(key)
        if table is None:
            table = await self._load(key)
        self._touch(key)
        return table

    def hold(self, code: str) -> None:
        """A connection uses the table: it stays in memory until :meth:`release`."""
        self._holders[code] += 1

    def release(self, code: str) -> None:
        self._holders[code] -= 1
        if self._holders[code] <= 0:
            del self._holders[code]
        if code in self.tables:
            self._touch(code)

    def default_settings(self) -> TableSettings:
        return TableSettings(round_pause_seconds=self.config.round_pause_seconds)

    async def create(
        self,
        request: dict[str, Any],
        invite_hash: str | None = None,
        profile: str | None = None,
        *,
        event_length: str | None = None,
    ) -> tuple[Table, str]:
        """A new table; private (invites.py) when ``invite_hash`` is given; ``profile``:
        the host's, if signed in; ``event_length``: a club event's table, whose match ends
        when the event's length decides it (its rules' ``goal``; a request cannot ask
        either)."""
        if self.storage.failed:
            raise TableError(ErrorCode.STORAGE_ERROR, "the server cannot write its database")
        unknown = set(request) - CREATE_KEYS
        if unknown:  # a misspelt option is refused, never silently ignored
            raise TableError(ErrorCode.BAD_OPTION, f"no table option {sorted(unknown)[0]!r}")
        if not isinstance(request.get("private", False), bool):
            raise TableError(ErrorCode.BAD_OPTION, "private must be true or false")
        options = TableOptions.from_request(request, self.default_options())
        if invite_hash is not None:
            options = replace(options, invite_hash=invite_hash)
        if event_length is not None:
            try:
                rules = replace(options.rules, goal=event_length)
            except ValueError as error:
                raise TableError(ErrorCode.BAD_OPTION, str(error)) from None
            options = replace(options, rules=rules, event=True)
        settings = self.default_settings().changed(request)
        self._make_room()
        for _ in range(CODE_ATTEMPTS):
            code = ""
            try:
                code = await self._new_code()
                if not await self.ownership.own(code):
                    continue  # another process is making a table of that code
                table, token = Table.create(
                    code,
                    options,
                    request.get("name"),
                    request.get("seat", 0),
                    self.services,
                    settings,
                    profile,
                )
                await self.storage.insert_table(table.stored())
            except CodeTaken:
                await self.ownership.disown(code)
                continue  # taken meanwhile by another server of the cluster: draw again
            except StorageError as error:  # written at once: refuse, and keep nothing of it
                if code:
                    with contextlib.suppress(StorageError):
                        await self.ownership.disown(code)
                raise TableError(
                    ErrorCode.STORAGE_ERROR, f"the server cannot write its database ({error})"
                ) from None
            except TableError:  # (a bad name or seat)
                await self.ownership.disown(code)
                raise
            self._make_room()  # (another request may have filled the room while we waited)
            self._keep(table)
            self.hooks.serve(table)
            # (Its link is handed out next: a join through another process must find it.)
            await self.hooks.ready(code)
            return table, token
        raise TableError(ErrorCode.STORAGE_ERROR, "no free invite code was found: try again")

    def stop(self) -> None:
        """The server is stopping (before it closes its clients' sockets): every table here
        changes nothing more (Table.stop says why)."""
        self.stopping = True
        for table in self.tables.values():
            table.stop()

    def _keep(self, table: Table) -> None:
        if self.stopping:
            table.stop()
        self.tables[table.code] = table
        self._touch(table.code)

    def _touch(self, code: str) -> None:
        self.tables.move_to_end(code)
        self._used[code] = self._now()

    async def _load(self, code: str) -> Table:
        if len(code) != CODE_LENGTH or not set(code) <= _CODE_CHARACTERS or code in self.retiring:
            raise TableError(ErrorCode.TABLE_NOT_FOUND, f"no table {code!r}")
        loading = self._loading.get(code)
        if loading is not None:  # asked for by another request meanwhile: one read
            return await asyncio.shield(loading)
        loading = asyncio.get_running_loop().create_future()
        self._loading[code] = loading
        try:
            table = await self._own_and_read(code)
        except BaseException as error:
            loading.set_exception(error)
            loading.exception()  # (retrieved: no warning when nobody else waited)
            raise
        else:
            loading.set_result(table)
        finally:
            del self._loading[code]
        return table

    async def _own_and_read(self, code: str) -> Table:
        try:
            if not await self.ownership.own(code):
                raise Elsewhere(code)
            stored = await self.storage.fetch_table(code)
        except StorageError as error:
            raise TableError(
                ErrorCode.STORAGE_ERROR, f"the server cannot read its database ({error})"
            ) from None
        if stored is None:
            await self.ownership.disown(code)
            raise TableError(ErrorCode.TABLE_NOT_FOUND, f"no table {code!r}")
        loaded = self.tables.get(code)
        if loaded is not None:
            return loaded
        try:
            self._make_room()
        except TableError:
            await self.ownership.disown(code)
            raise
        table = Table.restore(stored, self.services)
        table.resume()
        self._keep(table)
        self.hooks.serve(table)
        await self.hooks.ready(code)  # (relayed clients reconnecting meanwhile find it)
        return table

    def unload(self, code: str) -> bool:
        """Drop ``code``'s table from memory if it is left alone (not being played, no
        connection, untouched for ``table_idle_seconds``, everything written), as room is
        made; True if it is not in memory now (retention.py may then delete it)."""
        table = self.tables.get(code)
        if table is None:
            return True
        if (
            table.status == "playing"
            or code in self._holders
            or self._used[code] > self._now() - self.config.table_idle_seconds
            or not self.storage.all_written
        ):
            return False
        self._drop(code)
        return True

    async def settled(self) -> None:
        """Return once the tables dropped from memory are no longer owned here (a cluster:
        another process, or a deletion, may take them)."""
        if self._disowning:
            await asyncio.gather(*self._disowning, return_exceptions=True)

    def _drop(self, code: str) -> None:
        """Forget ``code``'s table here (everything of it is written): another process may
        own it from now on."""
        del self.tables[code]
        del self._used[code]
        self.hooks.stop(code)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # (a test driving the registry by hand, with no loop)
            return
        task = loop.create_task(self.ownership.disown(code))
        self._disowning.add(task)
        task.add_done_callback(self._disowning.discard)

    def _make_room(self) -> None:
        """Below ``max_tables`` tables in memory, or refuse."""
        excess = len(self.tables) - self.config.max_tables + 1
        if excess <= 0:
            return
        if self.storage.all_written:  # what is dropped must be read back as it is
            idle_since = self._now() - self.config.table_idle_seconds
            dropped = []
            for code, table in self.tables.items():  # least recently used first
                if self._used[code] > idle_since:
                    break  # and so are all after it
                # Every connection holds its table from before its hello to its end.
                if table.status != "playing" and code not in self._holders:
                    dropped.append(code)
                    if len(dropped) == excess:
                        break
            for code in dropped:
                self._drop(code)
            if len(dropped) == excess:
                return
        raise TableError(ErrorCode.TOO_MANY_TABLES, "this server hosts its maximum of tables")

    async def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.tables and not await self.storage.code_taken(code):
                return code
