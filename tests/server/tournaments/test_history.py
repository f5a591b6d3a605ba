"""A finished event's final table (tournaments/history.py) on SQLite and on PostgreSQL:
written once with the finish, read as the club's history entry, in its players' exports,
and a deleted profile's place kept as a former player's."""

from __future__ import annotations

from fouronefour.server.clubs.service import Clubs
from fouronefour.server.clubs.store import ClubStore
from fouronefour.server.players.sqlstore import SqlPlayerStore
from fouronefour.server.players.values import FORMER_PLAYER
from fouronefour.server.tournaments.history import ClubEvents, final_rows
from fouronefour.server.tournaments.standings import Standing
from fouronefour.server.tournaments.store import EventStore
from fouronefour.server.tournaments.values import Event, Setup
from tests.server.playerstores import StoreFactory

from .test_store import people, run


def pairs_event(event_id: str = "ev1", club: str = "club1") -> Event:
    setup = Setup("Thursday cup", "swiss", "pairs", 2, "round", 30, "greedy")
    return Event(event_id, club, setup, "open", 0, 4242, "ann", 1_000)


def place(entrant: str, place: int, points: int, buchholz: int = 0) -> Standing:
    return Standing(entrant, place, points, buchholz, 3 - place, 0, 2, points, 0)


async def finished_pairs(players: SqlPlayerStore, events: EventStore, now: int = 50_000) -> None:
    """ev1 of club1: Ann & Bob first, Cat and a bot second, Dan & Eve third."""
    await people(players, "ann", "bob", "cat", "dan", "eve")
    await events.create(pairs_event())
    await events.register("ev1", "ann", ["ann", "bob"], 2_000, 8)
    await events.register("ev1", "cat", ["cat"], 3_000, 8)
    await events.register("ev1", "dan", ["dan", "eve"], 4_000, 8)
    assert await events.start("ev1", ["ann", "cat", "dan"], {})
    event = await events.get("ev1")
    assert event is not None
    table = [place("ann", 1, 2, 2), place("cat", 2, 1, 3), place("dan", 3, 0, 3)]
    final = final_rows(event, await events.players("ev1"), table)
    assert [(r.standing.place, r.member, r.profile_id) for r in final] == [
        (1, 0, "ann"), (1, 1, "bob"), (2, 0, "cat"), (3, 0, "dan"), (3, 1, "eve")]  # fmt: skip
    assert await events.finish("ev1", now, final)
    # A second process (or a restart) finishing it again writes nothing.
    assert not await events.finish("ev1", now + 1, final)


def test_the_final_table_is_written_once_and_read_as_a_history_entry(
    make_store: StoreFactory,
) -> None:
    async def write(players: SqlPlayerStore, events: EventStore) -> None:
        await finished_pairs(players, events)

    async def read(players: SqlPlayerStore, events: EventStore) -> None:
        history = await ClubEvents(players.db).club_history("club1", 30)
        assert len(history) == 1
        entry = history[0]
        assert {k: v for k, v in entry.items() if k != "standings"} == {
            "kind": "event", "event": "ev1", "name": "Thursday cup", "format": "swiss",
            "entry": "pairs", "rounds": 2, "length": "round", "finished_at": 50_000,
            "link": "/e/ev1", "places": 3}  # fmt: skip
        standings = entry["standings"]
        assert [(s["place"], s["name"], s["points"], s["buchholz"]) for s in standings] == [
            (1, "Ann & Bob", 2, 2), (2, "Cat & bot", 1, 3), (3, "Dan & Eve", 0, 3)]  # fmt: skip
        assert standings[0]["players"] == [
            {"profile": "ann", "name": "Ann", "former": False},
            {"profile": "bob", "name": "Bob", "former": False},
        ]
        assert set(standings[2]) == {"place", "name", "players", "points", "buchholz",
                                     "level_difference", "head_to_head", "played", "won",
                                     "byes"}  # fmt: skip
        assert await ClubEvents(players.db).club_history("club2", 30) == []
        # The history gives the first places (the whole table is on the event's page).
        first_two = (await ClubEvents(players.db).club_history("club1", 30, places=2))[0]
        assert [s["place"] for s in first_two["standings"]] == [1, 2]
        assert first_two["places"] == 3

    run(make_store, write)
    run(make_store, read)  # (another store over the same place: a restart, a process)


def test_a_deleted_profile_stays_in_the_final_table_as_a_former_player(
    make_store: StoreFactory,
) -> None:
    async def scenario(players: SqlPlayerStore, events: EventStore) -> None:
        await finished_pairs(players, events)
        finals = ClubEvents(players.db)
        exported = await finals.export("bob")
        assert exported == [{"event": "ev1", "club": "club1", "name": "Thursday cup",
                             "finished_at": 50_000, "place": 1, "points": 2, "buchholz": 2,
                             "level_difference": 2, "head_to_head": 0, "played": 2,
                             "won": 2, "byes": 0}]  # fmt: skip
        await players.delete_profile("bob")
        # Deleted, not yet forgotten by the events: the name is already gone.
        first = (await finals.club_history("club1", 30))[0]["standings"][0]
        assert first["name"] == f"Ann & {FORMER_PLAYER}"
        await finals.forget("bob")
        assert await finals.export("bob") == []
        first = (await finals.club_history("club1", 30))[0]["standings"][0]
        assert first["players"][1] == {"profile": None, "name": FORMER_PLAYER, "former": True}
        assert first["name"] == f"Ann & {FORMER_PLAYER}"  # (not "& bot": a player was there)
        assert (await finals.export("ann"))[0]["place"] == 1

    run(make_store, scenario)


def test_the_clubs_history_has_its_matches_and_its_events_newest_first(
    make_store: StoreFactory,
) -> None:
    async def scenario(players: SqlPlayerStore, events: EventStore) -> None:
        await people(players, "own")
        clubs = Clubs(ClubStore(players.db))
        made = await clubs.create("own", "Thursday")
        club_id = made["id"]
        clubs.chapters.append(ClubEvents(players.db))
        assert await clubs.history(club_id, "own") == []
        for number, now in ((1, 40_000), (2, 60_000)):
            event = pairs_event(f"ev{number}", club_id)
            await events.create(event)
            await events.register(event.id, "own", ["own"], 2_000, 8)
            assert await events.start(event.id, ["own"], {})
            await events.finish(event.id, now, final_rows(event, await events.players(event.id),
                                                          [place("own", 1, 1)]))  # fmt: skip
        history = await clubs.history(club_id, "own")
        assert [(e["kind"], e["event"]) for e in history] == [("event", "ev2"), ("event", "ev1")]
        assert history[0]["standings"][0]["name"] == "Own & bot"

    run(make_store, scenario)


def test_an_event_finished_with_no_final_rows_still_finishes(make_store: StoreFactory) -> None:
    async def scenario(players: SqlPlayerStore, events: EventStore) -> None:
        await events.create(pairs_event())
        assert await events.start("ev1", [], {})
        assert await events.finish("ev1", 5_000)
        assert await ClubEvents(players.db).club_history("club1", 30) == []

    run(make_store, scenario)
