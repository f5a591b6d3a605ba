"""The Storage contract: what every implementation (SQLite, PostgreSQL) does alike.

A table written, changed and read back by another storage over the same place (a restarted
server, another process of a cluster) is the same table; sequence numbers grow; a change
counts as written only once ``wait_durable`` says so; errors are one type.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TypeVar

import pytest

from fouronefour.server.storage import (
    Change,
    ChangeExtra,
    CodeTaken,
    MatchSummary,
    NewMatch,
    Storage,
    StoredAnalysis,
    StoredChat,
    StoredClaim,
    StoredHandoff,
    StoredMatch,
    StoredSeat,
    StoredTable,
    TableRow,
)

from .conftest import StorageFactory

T = TypeVar("T")


def run(make: StorageFactory, scenario: Callable[[Storage], Awaitable[T]]) -> T:
    async def main() -> T:
        storage = make()
        await storage.open()
        try:
            return await scenario(storage)
        finally:
            await storage.shutdown()

    return asyncio.run(main())


async def owned(storage: Storage, table: StoredTable) -> None:
    """Write a new table as a server does: owning it first (only an owner's changes are
    written)."""
    assert await storage.own(table.code)
    await storage.insert_table(table)


def new_table(code: str, players: int = 2) -> StoredTable:
    seats = [StoredSeat(0, "Ann", "human", "h0")]
    seats += [StoredSeat(s, None, "empty", None) for s in range(1, players)]
    return StoredTable(code, {"players": players, "decks": None}, 0, "lobby", 1, 0, seats)


def a_match(code: str) -> list[Change]:
    """A table's life: a seat taken, a match started, moves (one and two at a time), a seat
    event, the match over, a second match started."""
    seats = (StoredSeat(1, "Bob", "human", "hash"),)
    return [
        Change(code, 2, "lobby", 0, seats=seats),
        Change(code, 3, "playing", 1, new_match=NewMatch(1, 2**61 + 5, {"players": 2})),
        Change(code, 4, "playing", 1, moves=("3",), first_move_index=0, table_row=False),
        Change(code, 5, "playing", 1, moves=("pass", "44"), first_move_index=1, table_row=False),
        Change(code, 6, "playing", 1),  # a seat event: the version only
        Change(code, 7, "finished", 1, moves=("5",), first_move_index=3, match_over=True),
        Change(code, 8, "playing", 2, new_match=NewMatch(2, 7, {"players": 2})),
    ]


def test_a_table_reads_back_as_written_by_another_storage(
    make_storage: StorageFactory, code: Callable[[], str]
) -> None:
    name = code()

    async def write(storage: Storage) -> list[int]:
        await owned(storage, new_table(name))
        seqs = [storage.commit(change) for change in a_match(name)]
        # Written only once the storage says so; then all of it is.
        assert not storage.all_written or storage.durable_seq >= seqs[-1]
        await asyncio.wait_for(storage.wait_durable(seqs[-1]), 10)
        assert storage.durable_seq >= seqs[-1] and storage.all_written
        return seqs

    seqs = run(make_storage, write)
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)

    async def read(storage: Storage) -> tuple[StoredTable | None, StoredMatch | None, bool]:
        return (
            await storage.fetch_table(name),
            await storage.fetch_match(name, 1),
            await storage.code_taken(name),
        )

    table, first, taken = run(make_storage, read)
    assert taken
    assert table is not None
    assert (table.code, table.status, table.version, table.match_number) == (
        name,
        "playing",
        8,
        2,
    )
    assert table.options == {"players": 2, "decks": None}
    assert table.seats == [
        StoredSeat(0, "Ann", "human", "h0"),
        StoredSeat(1, "Bob", "human", "hash"),
    ]
    assert table.finished_matches == [1]
    assert table.match == StoredMatch(2, 7, {"players": 2}, [], False)
    assert first == StoredMatch(1, 2**61 + 5, {"players": 2}, ["3", "pass", "44", "5"], True)


def test_the_version_of_a_table_counts_its_moves_rows(
    make_storage: StorageFactory, code: Callable[[], str]
) -> None:
    """A change with moves only writes the moves (with their version), not the table row:
    the table read back still has the latest version."""
    name = code()

    async def scenario(storage: Storage) -> StoredTable | None:
        await owned(storage, new_table(name))
        for change in a_match(name)[:4]:
            seq = storage.commit(change)
        await storage.wait_durable(seq)
        return await storage.fetch_table(name)

    table = run(make_storage, scenario)
    assert table is not None and table.version == 5
    assert table.match is not None and table.match.moves == ["3", "pass", "44"]


def test_many_changes_of_many_tables_in_one_pass_are_all_written_in_order(
    make_storage: StorageFactory, code: Callable[[], str]
) -> None:
    names = [code() for _ in range(5)]

    async def scenario(storage: Storage) -> list[StoredTable | None]:
        for name in names:
            await owned(storage, new_table(name, players=3))
        seq = 0
        for name in names:  # the same seat changed twice in one batch: the later wins
            storage.commit(Change(name, 2, "lobby", 0, seats=(StoredSeat(1, "X", "bot", None),)))
            seq = storage.commit(
                Change(name, 3, "lobby", 0, seats=(StoredSeat(1, "Cy", "human", "c"),))
            )
        await storage.wait_durable(seq)
        return [await storage.fetch_table(name) for name in names]

    for table in run(make_storage, scenario):
        assert table is not None and table.version == 3
        assert table.seats[1] == StoredSeat(1, "Cy", "human", "c")
        assert table.seats[2] == StoredSeat(2, None, "empty", None)


def test_a_match_started_and_over_in_one_batch_is_over(
    make_storage: StorageFactory, code: Callable[[], str]
) -> None:
    name = code()

    async def scenario(storage: Storage) -> StoredMatch | None:
        await owned(storage, new_table(name))
        storage.commit(Change(name, 2, "playing", 1, new_match=NewMatch(1, 3, {})))
        seq = storage.commit(
            Change(name, 3, "finished", 1, moves=("3",), match_over=True, first_move_index=0)
        )
        await storage.wait_durable(seq)
        return await storage.fetch_match(name, 1)

    assert run(make_storage, scenario) == StoredMatch(1, 3, {}, ["3"], True)


def test_tables_are_listed_by_status(make_storage: StorageFactory, code: Callable[[], str]) -> None:
    lobby, playing = code(), code()

    async def scenario(storage: Storage) -> tuple[set[str], set[str]]:
        await owned(storage, new_table(lobby))
        await owned(storage, new_table(playing))
        seq = storage.commit(Change(playing, 2, "playing", 1, new_match=NewMatch(1, 1, {})))
        await storage.wait_durable(seq)
        ours = {lobby, playing}
        every = {t.code for t in await storage.fetch_tables()} & ours
        played = {t.code for t in await storage.fetch_tables(status="playing")} & ours
        return every, played

    every, played = run(make_storage, scenario)
    assert every == {lobby, playing} and played == {playing}


def test_a_taken_code_is_refused_and_nothing_changes(
    make_storage: StorageFactory, code: Callable[[], str]
) -> None:
    name = code()

    async def scenario(storage: Storage) -> StoredTable | None:
        await owned(storage, new_table(name))
        other = new_table(name, players=4)
        other.seats[0] = StoredSeat(0, "Mallory", "human", "m")
        with pytest.raises(CodeTaken):
            await storage.insert_table(other)
        return await storage.fetch_table(name)

    table = run(make_storage, scenario)
    assert table is not None and table.seats[0].name == "Ann" and len(table.seats) == 2


def test_unknown_codes_and_matches_are_none(
    make_storage: StorageFactory, code: Callable[[], str]
) -> None:
    name = code()

    async def scenario(storage: Storage) -> tuple[object, object, object]:
        await owned(storage, new_table(name))
        return (
            await storage.fetch_table(code()),
            await storage.code_taken(code()),
            await storage.fetch_match(name, 1),
        )

    assert run(make_storage, scenario) == (None, False, None)


def test_settings_pauses_chat_handoffs_and_results_read_back(
    make_storage: StorageFactory, code: Callable[[], str]
) -> None:
    """Protocol 3's data: what a table keeps besides seats and moves, written in one batch
    with the moves and status changes around it (the later change to a row or a handoff
    wins) and read back by another storage."""
    name = code()

    def line(version: int, match: int, text: str) -> StoredChat:
        return StoredChat(version, match, 0, 1000 + version, 1, "Bob", False, text, None)

    paused_row = TableRow(1, {"round_pause_seconds": 5}, paused=True, round_end=2)

    async def write(storage: Storage) -> None:
        table = new_table(name)
        table.settings = {"round_pause_seconds": 9}
        await owned(storage, table)
        changes = [
            Change(name, 2, "playing", 1, new_match=NewMatch(1, 5, {"players": 2})),
            Change(name, 3, "playing", 1, extra=ChangeExtra(chat=line(3, 1, "hi"))),
            Change(
                name,
                3,
                "playing",
                1,
                extra=ChangeExtra(
                    handoffs=(StoredHandoff(0, "s0", 10), StoredHandoff(1, "s1", 11))
                ),
            ),
            Change(name, 3, "playing", 1, extra=ChangeExtra(handoffs=(StoredHandoff(0, None),))),
            Change(
                name,
                4,
                "playing",
                1,
                moves=("3",),
                table_row=False,
                extra=ChangeExtra(row=TableRow(0, {"round_pause_seconds": 5})),
            ),
            Change(name, 5, "playing", 1, extra=ChangeExtra(row=paused_row)),
            Change(
                name,
                6,
                "finished",
                1,
                moves=("44",),
                first_move_index=1,
                match_over=True,
                extra=ChangeExtra(result=(1, 3)),
            ),
            Change(name, 7, "finished", 1, extra=ChangeExtra(chat=line(7, 1, "gg"))),
            Change(name, 8, "playing", 2, new_match=NewMatch(2, 6, {"players": 2})),
            # Started and over in one batch, with its result.
            Change(
                name,
                9,
                "finished",
                2,
                moves=("5",),
                match_over=True,
                extra=ChangeExtra(result=(0, 1)),
            ),
            Change(name, 10, "finished", 2, extra=ChangeExtra(chat=line(10, 2, "again"))),
        ]
        for change in changes:
            seq = storage.commit(change)
        await storage.wait_durable(seq)

    async def read(
        storage: Storage,
    ) -> tuple[StoredTable | None, list[MatchSummary], list[StoredChat]]:
        return (
            await storage.fetch_table(name),
            await storage.fetch_matches(name),
            await storage.fetch_chat(name, 1),
        )

    run(make_storage, write)
    table, matches, chat = run(make_storage, read)
    assert table is not None
    assert (table.host_seat, table.settings, table.paused, table.round_end) == (
        1,
        {"round_pause_seconds": 5},
        True,
        2,
    )
    assert (table.version, table.status, table.finished_matches) == (10, "finished", [1, 2])
    assert [c.text for c in table.chat] == ["hi", "gg", "again"]
    assert table.handoffs == [StoredHandoff(1, "s1", 11)]
    assert matches == [MatchSummary(1, 2, 1, 3), MatchSummary(2, 1, 0, 1)]
    assert chat == [line(3, 1, "hi"), line(7, 1, "gg")]


def test_claim_answers_are_kept_until_their_window_closes(
    make_storage: StorageFactory, code: Callable[[], str]
) -> None:
    """Answers to an open claim window are written (with the window's place in the match);
    when a window closes, the answers of the windows before it go, even in the same batch."""
    name = code()

    async def write(storage: Storage) -> None:
        await owned(storage, new_table(name, players=4))
        changes = [
            Change(name, 2, "playing", 1, new_match=NewMatch(1, 5, {"players": 4})),
            Change(name, 3, "playing", 1, moves=("3",), table_row=False),
            Change(name, 3, "playing", 1, extra=ChangeExtra(claims=(StoredClaim(1, 1, 2, "33"),))),
            # The window at move 1 closes (the hook is move 2); another opens and is answered.
            Change(
                name,
                4,
                "playing",
                1,
                moves=("pass", "33"),
                first_move_index=1,
                table_row=False,
                extra=ChangeExtra(claims_done=(1, 3)),
            ),
            Change(name, 4, "playing", 1, extra=ChangeExtra(claims=(StoredClaim(1, 3, 0, "3"),))),
        ]
        for change in changes:
            seq = storage.commit(change)
        await storage.wait_durable(seq)
        seq = storage.commit(
            Change(name, 4, "playing", 1, extra=ChangeExtra(claims=(StoredClaim(1, 3, 1, "pass"),)))
        )
        await storage.wait_durable(seq)

    async def read(storage: Storage) -> StoredTable | None:
        return await storage.fetch_table(name)

    run(make_storage, write)
    table = run(make_storage, read)
    assert table is not None
    assert table.claims == [StoredClaim(1, 3, 0, "3"), StoredClaim(1, 3, 1, "pass")]


def test_round_analyses_are_due_from_the_change_that_ends_the_round_until_stored(
    make_storage: StorageFactory, code: Callable[[], str]
) -> None:
    """A change may make a round's analysis due (with a move, or with the match's end); it
    stays due, oldest first, until it is stored (made or failed); storing it due again
    changes nothing, and another storage reads it back."""
    name = code()
    decisions = [{"seat": 0, "move": "3", "label": "best", "win_chance": 0.5}]

    async def write(storage: Storage) -> list[tuple[str, int, int]]:
        await owned(storage, new_table(name))
        changes = [
            Change(name, 2, "playing", 1, new_match=NewMatch(1, 5, {"players": 2})),
            Change(
                name, 3, "playing", 1, moves=("3",), table_row=False,
                extra=ChangeExtra(analysis=(1, 1)),
            ),
            Change(
                name, 4, "finished", 1, moves=("44",), first_move_index=1, match_over=True,
                extra=ChangeExtra(result=(1, 2), analysis=(1, 2)),
            ),
        ]  # fmt: skip
        for change in changes:
            seq = storage.commit(change)
        await storage.wait_durable(seq)
        due = [key for key in await storage.due_analyses(10_000) if key[0] == name]
        await storage.store_analysis(name, StoredAnalysis(1, 1, 8, decisions))
        await storage.store_analysis(name, StoredAnalysis(1, 1))  # due again: no change
        await storage.store_analysis(name, StoredAnalysis(1, 3))  # a round made due by hand
        await storage.store_analysis(name, StoredAnalysis(1, 3, 8, None, "it broke"))
        return due

    async def read(storage: Storage) -> list[object]:
        return [
            await storage.fetch_analysis(name, 1, 1),
            await storage.fetch_analysis(name, 1, 2),
            await storage.fetch_analysis(name, 1, 3),
            await storage.fetch_analysis(name, 1, 4),
            [key for key in await storage.due_analyses(10_000) if key[0] == name],
        ]

    assert run(make_storage, write) == [(name, 1, 1), (name, 1, 2)]
    made, due, failed, never, still_due = run(make_storage, read)
    assert made == StoredAnalysis(1, 1, 8, decisions)
    assert due == StoredAnalysis(1, 2) and due.due
    assert failed == StoredAnalysis(1, 3, 8, None, "it broke") and not failed.due
    assert never is None
    assert still_due == [(name, 1, 2)]


def test_seats_keep_their_profile_and_a_match_record_waits_until_recorded(
    make_storage: StorageFactory, code: Callable[[], str]
) -> None:
    """A seat's profile is written and read back; a finished match's record for the players'
    store is written with its result, listed until marked recorded, and once only."""
    c = code()

    async def scenario(storage: Storage) -> None:
        table = new_table(c)
        await owned(storage, replace(table, seats=[replace(table.seats[0], profile="p-ann")]))
        storage.commit(
            Change(c, 2, "playing", 1, (StoredSeat(1, "Bob", "human", "h1", "p-bob"),),
                   NewMatch(1, 5, {}), ("3",), 0, False)
        )  # fmt: skip
        record = ChangeExtra(result=(0, 3), record='{"n": 1}')
        storage.commit(Change(c, 3, "finished", 1, (), None, ("P",), 1, True, True, record))
        storage.commit(Change(c, 4, "finished", 1, (), None, (), 0, False, True, record))
        await storage.wait_durable(storage.staged_seq)
        again = await storage.fetch_table(c)
        assert again is not None
        assert [s.profile for s in again.seats] == ["p-ann", "p-bob"]
        assert await storage.pending_records(10) == [(c, 1, '{"n": 1}')]
        await storage.records_done([(c, 1)])
        assert await storage.pending_records(10) == []
        await storage.records_done([(c, 1)])  # (done twice: nothing more happens)

    run(make_storage, scenario)
