"""A table made for people the server brought together (quick match, play again): created
here (this process owns it), each person seated with a seat token of their own, bots in
the seats nobody takes, the match started. Every token is handed out only once what it
names is written, as a join's is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ErrorCode, TableError
from ..tables.invites import new_invite
from .errors import MatchError

if TYPE_CHECKING:
    from ..registry import TableRegistry


@dataclass(frozen=True, slots=True)
class Sitter:
    """Who takes a seat: their name at the table and, if they have one, their profile."""

    name: str
    profile: str | None


@dataclass(frozen=True, slots=True)
class Seated:
    """One person's seat at the new table, as a join answers it."""

    code: str
    seat: int
    token: str
    node: str | None = None
    #: A private table's invite (its link's secret), for every person seated there.
    invite: str | None = None

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "code": self.code,
            "seat": self.seat,
            "token": self.token,
            "link": f"/t/{self.code}",
        }
        if self.node is not None:
            body["node"] = self.node
        if self.invite is not None:
            body["invite"] = self.invite
            body["link"] = f"/t/{self.code}#invite={self.invite}"
        return body


async def make_table(
    registry: TableRegistry,
    seats: Sequence[Sitter | None],
    options: dict[str, Any],
    node: str | None = None,
) -> dict[int, Seated]:
    """A new table with ``options`` (a create request's; ``"private": true`` gives it an
    invite), ``seats[i]`` at seat ``i`` (None: a bot), its match started; each person's
    :class:`Seated`, by seat. The host is the first person seated."""
    hosts = [i for i, s in enumerate(seats) if s is not None]
    if not hosts:
        raise MatchError(ErrorCode.BAD_SEAT, "a table needs at least one person")
    host = hosts[0]
    host_sitter = seats[host]
    assert host_sitter is not None
    request = {**options, "name": host_sitter.name, "seat": host}
    invite, invite_hash = new_invite() if request.pop("private", False) is True else (None, None)
    try:
        table, host_token = await registry.create(request, invite_hash, host_sitter.profile)
        tokens = {host: host_token}
        for seat in hosts[1:]:
            sitter = seats[seat]
            assert sitter is not None
            tokens[seat] = table.seating.join(sitter.name, seat, None, sitter.profile)
        if len(hosts) < len(seats):
            table.seating.fill_bots(host)
        table.start(host)
        storage = registry.storage
        await storage.wait_durable(storage.staged_seq)
    except TableError as error:
        raise MatchError(error.code, error.message) from None
    return {seat: Seated(table.code, seat, token, node, invite) for seat, token in tokens.items()}
