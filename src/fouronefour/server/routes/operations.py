"""The calls carried out at a table by its owner process, for a request here or one that
another process of the cluster relays (relay.py): its summary, taking a seat, claiming a
handed-off seat."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ErrorCode, TableError
from ..storage import Storage
from ..tables import invites
from ..tables.table import Table

if TYPE_CHECKING:
    from ..cluster.relay import Operation


#: The body's field that carries the signed-in profile to the owner (set by the route from
#: the session, never taken from the client: routes/sessions.py).
PROFILE = "_profile"


def table_operations(storage: Storage) -> dict[str, Operation]:
    """The calls carried out at a table, by its owner (here, or for another process).

    (A private table answers only with its invite, in the body, as a code that is no table
    would; a handoff's secret is enough for itself: invites.py.)"""

    def summary_of(table: Table, body: dict[str, Any]) -> dict[str, Any]:
        invited(table, body)
        if storage.failed and storage.durable_seq < storage.staged_seq:
            # A read waits for no write (it could wait as long as the outage): refused at
            # once, as it is by the other processes, which cannot reach the database.
            raise TableError(
                ErrorCode.STORAGE_ERROR, "the server cannot write its database just now"
            )
        return table.summary()

    def join_table(table: Table, body: dict[str, Any]) -> dict[str, Any]:
        invited(table, body)
        token = table.seating.join(
            body.get("name"), body.get("seat"), body.get("token"), profile_in(body)
        )
        return {"seat": table.seat_for_token(token), "token": token, "table": table.summary()}

    def claim_seat(table: Table, body: dict[str, Any]) -> dict[str, Any]:
        seat, token = table.handoffs.claim(
            body.get("handoff"), body.get("name"), body.get("token"), profile_in(body)
        )
        return {"seat": seat, "token": token, "table": table.summary()}

    def come_back(table: Table, body: dict[str, Any]) -> dict[str, Any]:
        invited(table, body)
        profile = profile_in(body)
        if profile is None:
            raise TableError(ErrorCode.NOT_SIGNED_IN, "taking your seat back needs a session")
        seat, token = table.seating.come_back(profile)
        return {"seat": seat, "token": token, "table": table.summary()}

    def invited(table: Table, body: dict[str, Any]) -> None:
        if not invites.admits(table.options.invite_hash, body.get("invite")):
            raise invites.not_found(table.code)

    return {"summary": summary_of, "join": join_table, "claim": claim_seat, "return": come_back}


def profile_in(body: dict[str, Any]) -> str | None:
    profile = body.get(PROFILE)
    return profile if isinstance(profile, str) else None
