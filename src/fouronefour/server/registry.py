"""All tables of a server, by invite code: creation, lookup, loading after a restart."""

from __future__ import annotations

import random
import secrets
import sqlite3
from collections.abc import Callable
from typing import Any

from .botrunner import BotRunner, available_bots
from .clock import Scheduler
from .config import ServerConfig
from .errors import ErrorCode, TableError
from .fanout import Fanout
from .storage import Storage
from .table import Table, TableOptions

#: Invite codes avoid look-alike characters (0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def seed_stream(seed: int | None) -> Callable[[], int]:
    """The seeds of successive matches: from the OS, or (tests) a stream fixed by ``seed``."""
    if seed is None:
        return lambda: secrets.randbits(62)
    rng = random.Random(seed)
    return lambda: rng.getrandbits(62)


def default_bot() -> str:
    return "greedy" if "greedy" in available_bots() else "random"


class TableRegistry:
    """Tables live here; storage and fan-out are shared by all of them."""

    def __init__(self, config: ServerConfig, storage: Storage, fanout: Fanout) -> None:
        self.config = config
        self.storage = storage
        self.fanout = fanout
        self.tables: dict[str, Table] = {}
        self._services: dict[str, Any] = {}
        self._seeds = seed_stream(config.seed)

    def start(self, scheduler: Scheduler, bots: BotRunner) -> None:
        """Load every stored table and resume its timers."""
        self._services = {
            "storage": self.storage,
            "fanout": self.fanout,
            "scheduler": scheduler,
            "bots": bots,
            "seeds": self._seeds,
            "bot_delay": self.config.bot_delay,
        }
        for stored in self.storage.load_tables():
            table = Table.restore(stored, **self._services)
            self.tables[table.code] = table
        for table in self.tables.values():
            table.resume()

    def default_options(self) -> TableOptions:
        from ..engine import Rules

        return TableOptions(
            Rules(players=4),
            turn_seconds=self.config.turn_seconds,
            hook_seconds=self.config.hook_seconds,
            hook_mode="fast" if self.config.hook_mode == "fast" else "fair",
            bot=default_bot(),
        )

    def get(self, code: str) -> Table:
        table = self.tables.get(code.upper()) if isinstance(code, str) else None
        if table is None:
            raise TableError(ErrorCode.TABLE_NOT_FOUND, f"no table {code!r}")
        return table

    def create(self, request: dict[str, Any]) -> tuple[Table, str]:
        if self.storage.failed:
            raise TableError(ErrorCode.STORAGE_ERROR, "the server cannot write its database")
        if len(self.tables) >= self.config.max_tables:
            raise TableError(ErrorCode.TOO_MANY_TABLES, "this server hosts its maximum of tables")
        options = TableOptions.from_request(request, self.default_options())
        code = self._new_code()
        try:
            table, token = Table.create(
                code, options, request.get("name"), request.get("seat", 0), **self._services
            )
        except sqlite3.Error as error:  # written at once: refuse, and keep nothing of it
            raise TableError(
                ErrorCode.STORAGE_ERROR, f"the server cannot write its database ({error})"
            ) from None
        self.tables[code] = table
        return table, token

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.tables:
                return code
