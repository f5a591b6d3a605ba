"""The players' room for a server's settings: the store in the same database as the tables
(the ``--db`` SQLite file or PostgreSQL URL) and the throttle (the cluster's Redis when
there is a broker). What ``create_app`` needs to include the players' routes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..backends import is_postgres
from .service import Players
from .sqlite import sqlite_players
from .store import PlayerStore
from .throttle import LocalThrottle, SharedThrottle, Throttle

if TYPE_CHECKING:
    from ..cluster.broker import Broker


def player_store(db: str) -> PlayerStore:
    """The players' store in the database ``db`` names (not opened yet)."""
    if is_postgres(db):
        from .postgres import postgres_players

        return postgres_players(db)
    return sqlite_players(db)


def players_for(db: str, broker: Broker | None = None) -> Players:
    """The players' service over ``db``; its store is opened with ``await
    players.store.open()`` (and closed with ``close()``) in the app's lifespan."""
    throttle: Throttle = LocalThrottle() if broker is None else SharedThrottle(broker)
    return Players(player_store(db), throttle=throttle)
