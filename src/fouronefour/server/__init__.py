"""The online table: one :class:`Table` authority per table, FastAPI + WebSockets around it.

``fouronefour serve`` (see :mod:`fouronefour.server.command`) runs it; docs/protocol.md is the
wire protocol.
"""

from .tables.table import Table, TableError

__all__ = ["Table", "TableError"]
