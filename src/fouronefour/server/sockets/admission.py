"""Who may hold a WebSocket at a table (docs/protocol.md section 3, "Connections").

A seat's player is always let in: nobody holding the invite code alone can keep a player
from their seat. A seat keeps its newest ``per_seat`` connections (tabs, devices): one
more closes the oldest. Spectators are limited per table and per client address, so the
watchers of one address cannot fill a table, nor a server.
"""

from __future__ import annotations

from collections import Counter
from typing import Protocol

from ..errors import ErrorCode, TableError


class Replaceable(Protocol):
    def replaced(self) -> None:
        """Close: a newer connection of the same seat took this one's place."""
        ...

    def moved(self) -> None:
        """Close at once: the table is another process's now."""
        ...


class Admission:
    def __init__(self, per_seat: int, spectators_per_table: int, spectators_per_address: int):
        self.per_seat = per_seat
        self.spectators_per_table = spectators_per_table
        self.spectators_per_address = spectators_per_address
        self._seats: dict[tuple[str, int], list[Replaceable]] = {}
        self._spectators: Counter[str] = Counter()  # table code -> spectators
        self._addresses: Counter[str] = Counter()  # address key -> spectators
        # What each admitted connection holds, so that leaving needs no arguments.
        self._held: dict[Replaceable, tuple[str, int | None, str | None]] = {}

    def at(self, code: str) -> list[Replaceable]:
        """The connections admitted at table ``code``."""
        return [c for c, held in self._held.items() if held[0] == code]

    def at_seat(self, code: str, seat: int) -> list[Replaceable]:
        """The connections admitted for ``seat`` at table ``code``."""
        return list(self._seats.get((code, seat), ()))

    def spectators(self, code: str) -> int:
        return self._spectators[code]

    def admit_player(self, code: str, seat: int, connection: Replaceable) -> None:
        """Let a seat's connection in; close the seat's oldest beyond ``per_seat``."""
        connections = self._seats.setdefault((code, seat), [])
        connections.append(connection)
        self._held[connection] = (code, seat, None)
        while len(connections) > self.per_seat:
            oldest = connections.pop(0)
            del self._held[oldest]
            oldest.replaced()

    def admit_spectator(self, code: str, address: str | None, connection: Replaceable) -> None:
        """Let a spectator in, or raise ``too_many_connections``. ``address`` None: a client
        not limited per address (loopback)."""
        if self._spectators[code] >= self.spectators_per_table:
            raise TableError(
                ErrorCode.TOO_MANY_CONNECTIONS,
                f"this table has its maximum of {self.spectators_per_table} spectators",
            )
        if address is not None and self._addresses[address] >= self.spectators_per_address:
            raise TableError(
                ErrorCode.TOO_MANY_CONNECTIONS,
                f"{address} watches with its maximum of {self.spectators_per_address} connections",
            )
        self._spectators[code] += 1
        if address is not None:
            self._addresses[address] += 1
        self._held[connection] = (code, None, address)

    def moved(self, connection: Replaceable, seat: int) -> None:
        """A player's connection now acts for ``seat`` (the host swapped two seats)."""
        held = self._held.get(connection)
        if held is None:
            return
        code, old, address = held
        if old is None:
            return
        connections = self._seats[(code, old)]
        connections.remove(connection)
        if not connections:
            del self._seats[(code, old)]
        self._seats.setdefault((code, seat), []).append(connection)
        self._held[connection] = (code, seat, address)

    def leave(self, connection: Replaceable) -> None:
        held = self._held.pop(connection, None)
        if held is None:
            return  # never admitted, or already replaced
        code, seat, address = held
        if seat is not None:
            connections = self._seats[(code, seat)]
            connections.remove(connection)
            if not connections:
                del self._seats[(code, seat)]
            return
        _decrement(self._spectators, code)
        if address is not None:
            _decrement(self._addresses, address)


def _decrement(counter: Counter[str], key: str) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]
