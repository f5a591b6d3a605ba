"""What only the host does to a running table: change its settings, pause and resume it
(docs/protocol.md sections 3 and 5). Seats the host changes are :mod:`.seating`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ErrorCode, TableError
from .model import Ack
from .settings import SETTING_KEYS

if TYPE_CHECKING:
    from .core import TableCore as Table


class HostTools:
    __slots__ = ("_table",)

    def __init__(self, table: Table) -> None:
        self._table = table

    def settings(self, actor: int | None, data: dict[str, Any]) -> Ack:
        """Change the settings ``data`` names (the message's other fields are its own)."""
        table = self._table
        table.check_writable()
        table.check_host(actor)
        given = {key: value for key, value in data.items() if key in SETTING_KEYS}
        unknown = set(data) - SETTING_KEYS - {"type", "id"}
        if unknown:
            raise TableError(ErrorCode.BAD_OPTION, f"no setting {sorted(unknown)[0]!r}")
        if not given:
            raise TableError(ErrorCode.BAD_MESSAGE, f"name a setting: {', '.join(SETTING_KEYS)}")
        table.change_settings(table.settings.changed(given))
        table.commit([{"type": "settings", "settings": table.settings.to_dict()}], row=True)
        return Ack(table.version)

    def pause(self, actor: int | None) -> Ack:
        """Stop the table: timers, windows, the end-of-round pause and bots wait."""
        table = self._table
        table.check_writable()
        table.check_host(actor)
        if table.status != "playing":
            raise TableError(ErrorCode.WRONG_STATUS, "only a match being played can be paused")
        if table.paused:
            raise TableError(ErrorCode.WRONG_STATUS, "the table is paused already")
        table.set_paused(True)
        table.windows.hold()
        table.round_pause.hold()
        table.commit([{"type": "paused", "paused": True}], row=True)
        return Ack(table.version)

    def resume(self, actor: int | None) -> Ack:
        """Go on where the table stopped, every timer from its full length."""
        table = self._table
        table.check_writable()
        table.check_host(actor)
        if not table.paused:
            raise TableError(ErrorCode.WRONG_STATUS, "the table is not paused")
        table.set_paused(False)
        table.windows.release()
        table.round_pause.release()
        table.commit([{"type": "paused", "paused": False}], row=True)
        return Ack(table.version)
