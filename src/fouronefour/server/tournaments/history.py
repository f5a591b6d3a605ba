"""A finished event's final table in its club's history (docs/tournaments.md, "The final
table"; docs/clubs.md, "History"): the standings at the finish, one row a player of each
place (players/schema.py ``TOURNAMENT_FINALS_STEP``), written with the event's finish in
one transaction (:meth:`.store.EventStore.finish`), so a cluster's two processes, or a
restart, never write it twice. The clubs' history reads it through :class:`ClubEvents`
(clubs/service.py ``Clubs.chapters``); a player's rows are in their export and lose their
profile when it is deleted (shown as a former player)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from ..players.sqlstore import Db, on_db
from ..players.values import FORMER_PLAYER
from .standings import Standing
from .values import Event, Player

#: The places of each event a club's history gives (the whole table is on its page): a
#: history of 30 events of 64 pairs each reads 480 rows, not 3,840.
HISTORY_PLACES = 8

#: The columns of a final row, in the order :meth:`FinalRow.values` gives them.
FINAL_COLUMNS = (
    "event_id, place, member, entrant, profile_id, points, buchholz, level_difference,"
    " head_to_head, played, won, byes"
)


@dataclass(frozen=True)
class FinalRow:
    """One player of one place of the final table (a pair's partners: member 0 and 1)."""

    standing: Standing
    member: int
    profile_id: str

    def values(self, event_id: str) -> tuple[Any, ...]:
        s = self.standing
        return (event_id, s.place, self.member, s.entrant, self.profile_id, s.points, s.buchholz,
                s.level_difference, s.head_to_head, s.played, s.won, s.byes)  # fmt: skip


def final_rows(
    event: Event, players: Sequence[Player], table: Sequence[Standing]
) -> list[FinalRow]:
    """The rows of ``event``'s final ``table``: each place's players in registration order
    (a pair whose partner was a bot has one)."""
    individuals = event.setup.entry == "individuals"
    rows = []
    for standing in table:
        members = [p for p in players
                   if (p.profile_id if individuals else p.team) == standing.entrant]  # fmt: skip
        rows += [FinalRow(standing, i, p.profile_id) for i, p in enumerate(members)]
    return rows


class ClubEvents:
    """The finished events of a club as entries of its history (``kind`` "event"), and what
    the final tables keep of a profile (players/service.py ``ProfileData``: in its export,
    under :attr:`name`, and forgotten with it)."""

    name = "event_results"

    def __init__(self, db: Db) -> None:
        self.db = db

    async def export(self, profile_id: str) -> list[dict[str, Any]]:
        return await self.of_profile(profile_id)

    async def forget(self, profile_id: str) -> None:
        await self.forget_profile(profile_id)

    @on_db
    async def club_history(
        self, club_id: str, limit: int, places: int = HISTORY_PLACES
    ) -> list[dict[str, Any]]:
        """The club's last ``limit`` events finished, newest first, each with the first
        ``places`` of its final standings and how many there are (names as they are now:
        a deleted profile's is a former player's)."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "WITH page AS (SELECT id, setup, finished_at FROM tournament_events"
                " WHERE club_id = ? AND status = 'finished' AND finished_at IS NOT NULL"
                " ORDER BY finished_at DESC, id LIMIT ?)"
                " SELECT page.id, page.setup, page.finished_at, f.place, f.member, f.profile_id,"
                " p.name, p.deleted, f.points, f.buchholz, f.level_difference, f.head_to_head,"
                " f.played, f.won, f.byes,"
                " (SELECT MAX(a.place) FROM tournament_final a WHERE a.event_id = page.id)"
                " FROM page JOIN tournament_final f ON f.event_id = page.id AND f.place <= ?"
                " LEFT JOIN player_profiles p ON p.id = f.profile_id"
                " ORDER BY page.finished_at DESC, page.id, f.place, f.member",
                club_id,
                limit,
                places,
            )
        entries: list[dict[str, Any]] = []
        for row in rows:
            if not entries or entries[-1]["event"] != row[0]:
                setup = orjson.loads(row[1])
                entries.append(
                    {
                        "kind": "event",
                        "event": row[0],
                        "name": setup["name"],
                        "format": setup["format"],
                        "entry": setup["entry"],
                        "rounds": setup["rounds"],
                        "length": setup["length"],
                        "finished_at": int(row[2]),
                        "link": f"/e/{row[0]}",
                        "places": int(row[15]),
                        "standings": [],
                    }
                )
            standings = entries[-1]["standings"]
            if not standings or standings[-1]["place"] != int(row[3]):
                standings.append(
                    {
                        "place": int(row[3]),
                        "players": [],
                        **dict(zip(("points", "buchholz", "level_difference", "head_to_head",
                                    "played", "won", "byes"), map(int, row[8:15]), strict=True)),
                    }
                )  # fmt: skip
            former = row[5] is None or bool(row[7]) or not row[6]
            standings[-1]["players"].append(
                {
                    "profile": None if former else row[5],
                    "name": FORMER_PLAYER if former else row[6],
                    "former": former,
                }
            )
        for entry in entries:
            for place in entry["standings"]:
                names = [p["name"] for p in place["players"]]
                if entry["entry"] == "pairs" and len(names) == 1:
                    names.append("bot")
                place["name"] = " & ".join(names)
        return entries

    @on_db
    async def of_profile(self, profile_id: str) -> list[dict[str, Any]]:
        """The profile's places in the final tables of the events it played (its export)."""
        async with self.db.read() as conn:
            rows = await conn.fetch(
                "SELECT f.event_id, e.club_id, e.setup, e.finished_at, f.place, f.points,"
                " f.buchholz, f.level_difference, f.head_to_head, f.played, f.won, f.byes"
                " FROM tournament_final f JOIN tournament_events e ON e.id = f.event_id"
                " WHERE f.profile_id = ? ORDER BY e.finished_at, f.event_id",
                profile_id,
            )
        keys = ("place", "points", "buchholz", "level_difference", "head_to_head", "played",
                "won", "byes")  # fmt: skip
        return [
            {
                "event": row[0],
                "club": row[1],
                "name": orjson.loads(row[2])["name"],
                "finished_at": int(row[3]),
                **dict(zip(keys, map(int, row[4:12]), strict=True)),
            }
            for row in rows
        ]

    @on_db
    async def forget_profile(self, profile_id: str) -> int:
        """A deleted profile's places stay (the other players' table) without its id: a
        former player."""
        async with self.db.write() as conn:
            return await conn.execute(
                "UPDATE tournament_final SET profile_id = NULL WHERE profile_id = ?", profile_id
            )
