"""The events of clubs, kept in the players' database (SQLite or PostgreSQL: one SQL for
both over players.sqlstore's ``Db``), so that a restarted server, or another process of a
cluster, carries an event on where it was.

Who may change what is the service's to check; the store keeps each change safe against a
second process doing the same: an event starts once (``status = 'open'``), a round is
paired once (``round = round - 1``), a game is decided once.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar

import orjson

from ..players.sqlstore import Db, Row
from ..players.values import FORMER_PLAYER
from .history import FINAL_COLUMNS, FinalRow
from .values import Event, Game, Player, Setup

R = TypeVar("R")
P = ParamSpec("P")

_EVENT = "id, club_id, setup, status, round, seed, created_by, created_at, seeds"
_GAME = "round, number, north, east, code, invite, status, winner, level_difference, created_at"


def _event(row: Row) -> Event:
    setup = orjson.loads(row[2])
    return Event(
        id=row[0],
        club_id=row[1],
        setup=Setup(**setup),
        status=row[3],
        round=int(row[4]),
        seed=int(row[5]),
        created_by=row[6],
        created_at=int(row[7]),
        seeds=tuple(orjson.loads(row[8])),
    )


def _game(row: Row) -> Game:
    return Game(
        round=int(row[0]),
        number=int(row[1]),
        north=tuple(orjson.loads(row[2])),
        east=tuple(orjson.loads(row[3])),
        code=row[4],
        invite=row[5],
        status=row[6],
        winner=row[7],
        level_difference=int(row[8]),
        created_at=int(row[9]),
    )


def _json(value: object) -> str:
    return orjson.dumps(value).decode()


class Full(Exception):
    """The event has its maximum of entrants."""


class Taken(Exception):
    """A player named is registered for the event already."""


def _on_db(
    operation: Callable[Concatenate[EventStore, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[EventStore, P], Coroutine[Any, Any, R]]:
    """An operation of the store, run by its database (:meth:`Db.run`)."""

    async def run(self: EventStore, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await self.db.run(operation(self, *args, **kwargs))

    run.__name__, run.__doc__ = operation.__name__, operation.__doc__
    return run


class EventStore:
    """The events over the players' :class:`Db`."""

    def __init__(self, db: Db) -> None:
        self.db = db

    @_on_db
    async def create(self, event: Event) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                f"INSERT INTO tournament_events ({_EVENT}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                event.id,
                event.club_id,
                _json(event.setup.to_dict()),
                event.status,
                event.round,
                event.seed,
                event.created_by,
                event.created_at,
                _json(list(event.seeds)),
            )

    @_on_db
    async def get(self, event_id: str) -> Event | None:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                f"SELECT {_EVENT} FROM tournament_events WHERE id = ?", event_id
            )
        return _event(rows[0]) if rows else None

    @_on_db
    async def of_club(self, club_id: str, limit: int) -> list[Event]:
        """The club's events, newest first."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                f"SELECT {_EVENT} FROM tournament_events WHERE club_id = ?"
                " ORDER BY created_at DESC, id LIMIT ?",
                club_id,
                limit,
            )
        return [_event(row) for row in rows]

    @_on_db
    async def count_unfinished(self, club_id: str) -> int:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT COUNT(*) FROM tournament_events WHERE club_id = ? AND status <> 'finished'",
                club_id,
            )
        return int(rows[0][0])

    @_on_db
    async def running(self) -> list[Event]:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                f"SELECT {_EVENT} FROM tournament_events WHERE status = 'running' ORDER BY id"
            )
        return [_event(row) for row in rows]

    @_on_db
    async def register(
        self, event_id: str, team: str, profiles: Sequence[str], now: int, max_teams: int
    ) -> None:
        """Register ``profiles`` as ``team`` for an open event: :class:`Taken` if one is
        registered already, :class:`Full` if the event has ``max_teams`` teams,
        LookupError if the event is not open (nothing registered)."""
        async with self.db.write() as conn:
            found = await conn.fetch(
                f"SELECT status FROM tournament_events WHERE id = ?{self.db.for_update}", event_id
            )
            if not found or found[0][0] != "open":
                raise LookupError(event_id)
            rows = await conn.fetch(
                "SELECT profile_id, team FROM tournament_players WHERE event_id = ?", event_id
            )
            if any(row[0] in profiles for row in rows):
                raise Taken()
            if len({row[1] for row in rows}) >= max_teams:
                raise Full()
            await conn.executemany(
                "INSERT INTO tournament_players (event_id, profile_id, team, registered_at)"
                " VALUES (?, ?, ?, ?)",
                [(event_id, profile, team, now) for profile in profiles],
            )

    @_on_db
    async def unregister(self, event_id: str, profile_id: str) -> bool:
        """Take the profile's team (a pair: both partners) off an open event."""
        async with self.db.write() as conn:
            found = await conn.fetch(
                f"SELECT status FROM tournament_events WHERE id = ?{self.db.for_update}", event_id
            )
            if not found or found[0][0] != "open":
                return False
            team = await conn.fetch(
                "SELECT team FROM tournament_players WHERE event_id = ? AND profile_id = ?",
                event_id,
                profile_id,
            )
            if not team:
                return False
            await conn.execute(
                "DELETE FROM tournament_players WHERE event_id = ? AND team = ?",
                event_id,
                team[0][0],
            )
            return True

    @_on_db
    async def players(self, event_id: str) -> list[Player]:
        """The registered players, with their profile's name now (a deleted profile's is
        :data:`FORMER_PLAYER`), in registration order (who registered a pair first)."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT t.profile_id, t.team, p.name, t.registered_at, p.deleted"
                " FROM tournament_players t LEFT JOIN player_profiles p ON p.id = t.profile_id"
                " WHERE t.event_id = ? ORDER BY t.registered_at, t.team,"
                " CASE WHEN t.profile_id = t.team THEN 0 ELSE 1 END, t.profile_id",
                event_id,
            )
        return [
            Player(
                row[0],
                row[1],
                FORMER_PLAYER if row[4] or not row[2] else row[2],
                int(row[3]),
                gone=bool(row[4]) or row[2] is None,
            )
            for row in rows
        ]

    @_on_db
    async def start(
        self,
        event_id: str,
        seeds: Sequence[str],
        teams: dict[str, str],
        dropped: Sequence[str] = (),
    ) -> bool:
        """Start an open event with its draw (``seeds``) and the teams formed at the start
        (``teams``: profile -> team, for players who came without a partner), without the
        ``dropped`` players (no longer in the club); False if it was started (or is gone)
        meanwhile."""
        async with self.db.write() as conn:
            changed = await conn.execute(
                "UPDATE tournament_events SET status = 'running', seeds = ?"
                " WHERE id = ? AND status = 'open'",
                _json(list(seeds)),
                event_id,
            )
            if not changed:
                return False
            for profile in dropped:
                await conn.execute(
                    "DELETE FROM tournament_players WHERE event_id = ? AND profile_id = ?",
                    event_id,
                    profile,
                )
            for profile, team in teams.items():
                await conn.execute(
                    "UPDATE tournament_players SET team = ? WHERE event_id = ? AND profile_id = ?",
                    team,
                    event_id,
                    profile,
                )
            return True

    @_on_db
    async def add_round(self, event_id: str, number: int, games: Sequence[Game]) -> bool:
        """Round ``number``'s games (its tables not made yet, and its byes); False if that
        round was paired meanwhile (another process: its games stand)."""
        async with self.db.write() as conn:
            changed = await conn.execute(
                "UPDATE tournament_events SET round = ? WHERE id = ? AND round = ?"
                " AND status = 'running'",
                number,
                event_id,
                number - 1,
            )
            if not changed:
                return False
            await conn.executemany(
                f"INSERT INTO tournament_games ({_GAME}, event_id)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        game.round,
                        game.number,
                        _json(list(game.north)),
                        _json(list(game.east)),
                        game.code,
                        game.invite,
                        game.status,
                        game.winner,
                        game.level_difference,
                        game.created_at,
                        event_id,
                    )
                    for game in games
                ],
            )
            return True

    @_on_db
    async def games(self, event_id: str) -> list[Game]:
        async with self.db.read() as conn:
            rows = await conn.fetch(
                f"SELECT {_GAME} FROM tournament_games WHERE event_id = ? ORDER BY round, number",
                event_id,
            )
        return [_game(row) for row in rows]

    @_on_db
    async def set_game(self, event_id: str, game: Game, was: str) -> bool:
        """Write ``game``'s table, status and result, if it is still in status ``was``."""
        async with self.db.write() as conn:
            changed = await conn.execute(
                "UPDATE tournament_games SET code = ?, invite = ?, status = ?, winner = ?,"
                " level_difference = ?, created_at = ?"
                " WHERE event_id = ? AND round = ? AND number = ? AND status = ?",
                game.code,
                game.invite,
                game.status,
                game.winner,
                game.level_difference,
                game.created_at,
                event_id,
                game.round,
                game.number,
                was,
            )
            return changed > 0

    @_on_db
    async def finish(self, event_id: str, now: int, final: Sequence[FinalRow] = ()) -> bool:
        """Finish a running event with its ``final`` table (history.py) for its club's
        history: both at once, once (False: it was finished meanwhile, nothing written)."""
        async with self.db.write() as conn:
            changed = await conn.execute(
                "UPDATE tournament_events SET status = 'finished', finished_at = ?"
                " WHERE id = ? AND status = 'running'",
                now,
                event_id,
            )
            if not changed:
                return False
            if not final:
                return True
            await conn.executemany(
                f"INSERT INTO tournament_final ({FINAL_COLUMNS})"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [row.values(event_id) for row in final],
            )
            return True

    @_on_db
    async def of_profile(self, profile_id: str) -> list[dict[str, Any]]:
        """What the events keep of a profile (its export): each event it registered for."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT e.id, e.club_id, e.setup, e.status, t.team, t.registered_at"
                " FROM tournament_players t JOIN tournament_events e ON e.id = t.event_id"
                " WHERE t.profile_id = ? ORDER BY t.registered_at, e.id",
                profile_id,
            )
        return [
            {
                "event": row[0],
                "club": row[1],
                "name": orjson.loads(row[2])["name"],
                "status": row[3],
                "team": row[4],
                "registered_at": int(row[5]),
            }
            for row in rows
        ]

    @_on_db
    async def forget_profile(self, profile_id: str) -> int:
        """A deleted profile leaves the events not yet started; in those played it stays a
        nameless entrant (the other players' results), as its matches do."""
        async with self.db.write() as conn:
            return await conn.execute(
                "DELETE FROM tournament_players WHERE profile_id = ? AND event_id IN"
                " (SELECT id FROM tournament_events WHERE status = 'open')",
                profile_id,
            )


class ProfileEvents:
    """The events' data about a profile (players/service.py ``ProfileData``): in its export,
    and forgotten with it."""

    name = "events"

    def __init__(self, store: EventStore) -> None:
        self._store = store

    async def export(self, profile_id: str) -> list[dict[str, Any]]:
        return await self._store.of_profile(profile_id)

    async def forget(self, profile_id: str) -> None:
        await self._store.forget_profile(profile_id)
