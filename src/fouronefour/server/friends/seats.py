"""Who holds a seat at a table now: the table's owner answers (here, or relayed to it in a
cluster: the table operation :data:`SEATED`), for the friends' checks (a request to someone
one sits with, an invite to one's own table, the table a page says it is at)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from ..errors import TableError
from ..registry import Elsewhere, TableRegistry
from ..tables import invites

if TYPE_CHECKING:
    from ..cluster.relay import Operation, Relay
    from ..tables.table import Table

#: The table operation that names the profiles holding a seat at a table.
SEATED = "seated"


def seated_operation() -> Operation:
    """The operation the table's owner carries out: a private table answers only with its
    invite, as to anybody (a code that is no table is refused the same way)."""

    def seated(table: Table, body: dict[str, Any]) -> dict[str, Any]:
        if not invites.admits(table.options.invite_hash, body.get("invite")):
            raise invites.not_found(table.code)
        return {
            "profiles": sorted(
                s.profile for s in table.seats if s.kind == "human" and s.profile is not None
            )
        }

    return seated


class Seats:
    """``await seats(code, invite)``: the profiles seated at table ``code``, or None if there
    is no such table (or it is private and ``invite`` is not its own)."""

    def __init__(
        self, registry: TableRegistry, relay: Relay | None, operations: dict[str, Operation]
    ) -> None:
        self._registry = registry
        self._relay = relay
        operations[SEATED] = self._here = seated_operation()

    async def __call__(self, code: str, invite: str | None) -> set[str] | None:
        body = {"invite": invite}
        try:
            table = await self._registry.get(code)
        except TableError:
            return None
        except Elsewhere:
            return await self._relayed(code, body)
        try:
            return set(self._here(table, body)["profiles"])
        except TableError:
            return None

    async def _relayed(self, code: str, body: dict[str, Any]) -> set[str] | None:
        if self._relay is None:
            return None
        from ..cluster.relay import OwnerGone

        try:
            status, answer = await self._relay.call(code, SEATED, body, None)
        except OwnerGone:
            return None
        if status != 200:
            return None
        return set(orjson.loads(answer).get("profiles", ()))
