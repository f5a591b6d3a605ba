"""The end-of-round pause and the host's pause, on a manual clock (docs/protocol.md s. 5)."""

from __future__ import annotations

from typing import Any

import pytest

from fouronefour.engine import Match
from fouronefour.server.clock import ManualScheduler
from fouronefour.server.errors import ErrorCode, TableError
from fouronefour.server.tables.table import Table

from .conftest import Harness
from .test_table import events_of, you

PAUSE = 15.0


def shed(legal: list[str]) -> str:
    """The longest combination, so that rounds end soon."""
    real = [m for m in legal if m != "pass"]
    return max(real, key=len) if real else "pass"


def play_to_round_end(harness: Harness, table: Table, humans: int) -> None:
    """Every human plays at once (the bots after them) until a round ends in a pause."""
    for _ in range(5000):
        if table.round_pause.current is not None:
            return
        for seat in range(humans):
            mine = you(table, seat)
            if mine["decision"] is not None:
                table.act(seat, shed(mine["legal_moves"]), table.version)
                break
        else:
            harness.scheduler.advance(0.0)
    raise AssertionError("no round ended")


def ended_hands(table: Table) -> list[str]:
    """Each seat's hand as the engine had it at the round's end (from the stored moves)."""
    stored = harness_storage_match(table)
    match = Match(table.options.rules, stored[0])
    for move in stored[1]:
        before = match
        match = match.apply(move)
        if match.round_number != before.round_number:
            ended = before.round.apply(move)
    return [ended.hand(s) for s in range(table.players)]


def harness_storage_match(table: Table) -> tuple[int, list[str]]:
    assert table.seed is not None and table.match is not None
    return table.seed, table.match.moves


@pytest.fixture
def paused(harness: Harness) -> tuple[Table, dict[str, Any]]:
    """A table of 2 humans and 2 bots whose first round just ended; the update that ended it."""
    table, _ = harness.table(humans=2, hooking=False, turn_seconds=30.0, round_pause_seconds=PAUSE)
    play_to_round_end(harness, table, humans=2)
    return table, harness.recorders[None].messages[-1]


def test_a_round_ends_in_a_pause_that_shows_its_end_until_all_are_ready(
    harness: Harness, paused: tuple[Table, dict[str, Any]]
) -> None:
    table, ended = paused
    kinds = [e["type"] for e in ended["events"]]
    assert "round_over" in kinds and "round_start" not in kinds  # held back
    state = ended["state"]
    pause = state["round_end"]
    assert pause is not None and state["turn"] is None and state["deadline"] is None
    assert pause["round_number"] == 1 == state["round_number"]
    assert pause["until"] == int((harness.scheduler.now() + PAUSE) * 1000)
    assert pause["ready"] == [2, 3]  # the bots
    result = next(e for e in ended["events"] if e["type"] == "round_over")
    assert pause["result"] == {k: v for k, v in result.items() if k != "type"}
    # Every hand still holding cards, face up; nothing for those who finished.
    hands = ended_hands(table)
    assert pause["hands"] == [hand or None for hand in hands]
    assert [s for s, h in enumerate(pause["hands"]) if h] == sorted(pause["result"]["caught"])
    # The last trick ends with the round's last move, and is one trick: one lead.
    last = pause["last_trick"]
    moves = [e for e in ended["events"] if e["type"] in ("play", "pass", "hook", "unhook")]
    assert last[-1] == moves[-1] and last[0]["type"] == "play"
    assert all(e["type"] in ("play", "pass", "hook", "unhook") for e in last)
    # The tribute to come names payers and receivers, not cards.
    assert all(set(t) == {"from", "to"} for t in pause["tributes"])
    # Nobody is offered anything; each player's hand is what it held at the round's end.
    for seat in (0, 1):
        mine = you(table, seat)
        assert mine["decision"] is None and mine["hand"] == hands[seat]
    assert state["counts"] == [len(h) for h in hands]

    # No timer runs: the players may read as long as the pause lasts.
    version = table.version
    harness.scheduler.advance(PAUSE - 0.5)
    assert table.version == version and not table.seats[0].away
    # Ready: acknowledged, public; once more changes nothing.
    ack = table.round_pause.ready(0)
    assert ack.v == version + 1
    update = harness.recorders[None].messages[-1]
    assert update["events"] == [{"type": "ready", "seat": 0}]
    assert update["state"]["round_end"]["ready"] == [0, 2, 3]
    assert table.round_pause.ready(0).v == table.version == version + 1
    # The last player's ready starts the next round at once, in the same update.
    table.round_pause.ready(1)
    start = harness.recorders[None].messages[-1]
    assert [e["type"] for e in start["events"]] == ["ready", "round_start"]
    assert start["state"]["round_end"] is None and start["state"]["round_number"] == 2
    assert table.match is not None
    for seat in (0, 1):
        assert harness.recorders[seat].messages[-1]["you"]["hand"] == table.match.round.hand(seat)
    with pytest.raises(TableError) as late:
        table.round_pause.ready(0)
    assert late.value.code is ErrorCode.WRONG_STATUS


def test_the_pause_runs_out_and_then_the_turn_timer_runs(
    harness: Harness, paused: tuple[Table, dict[str, Any]]
) -> None:
    table, _ = paused
    harness.scheduler.advance(PAUSE - 0.01)
    assert table.round_pause.current is not None
    harness.scheduler.advance(0.02)
    assert table.round_pause.current is None
    assert harness.recorders[None].messages[-1]["events"][-1]["type"] == "round_start"
    assert not any(s.away for s in table.seats)  # nobody was away for reading the results


def test_a_spectator_sees_the_hands_of_a_round_only_once_it_is_over(
    harness: Harness, paused: tuple[Table, dict[str, Any]]
) -> None:
    table, ended = paused
    spectator = harness.recorders[None].messages
    shown_at = spectator.index(ended)
    for message in spectator[:shown_at]:
        assert message["state"] is None or message["state"]["round_end"] is None
    snapshot = table.snapshot(None)
    assert snapshot["state"]["round_end"] == ended["state"]["round_end"]
    assert snapshot["game"]["hand"] == "" and snapshot["game"]["round_number"] == 1
    assert snapshot["game"]["counts"] == ended["state"]["counts"]
    mine = table.snapshot(0)
    assert mine["you"]["hand"] == mine["game"]["hand"] == ended_hands(table)[0]


def test_a_restart_holds_the_pause_again_from_full_length(
    harness: Harness, paused: tuple[Table, dict[str, Any]]
) -> None:
    table, ended = paused
    table.round_pause.ready(0)
    harness.scheduler.advance(10.0)
    stored = harness.storage.load_tables()[0]
    assert stored.round_end == 1
    clock = ManualScheduler(harness.scheduler.now())
    restored = Table.restore(stored, harness.services(clock))
    restored.resume()
    pause = restored.round_pause.public()
    assert pause is not None
    shown = ended["state"]["round_end"]
    for key in ("round_number", "result", "last_trick", "hands", "tributes"):
        assert pause[key] == shown[key], key
    assert pause["ready"] == [2, 3]  # a ready said before the restart is said again
    assert pause["until"] == int((clock.now() + PAUSE) * 1000)
    assert restored.views.prompts() == {}
    clock.advance(PAUSE)
    assert restored.round_pause.current is None and restored.views.prompts()


def test_no_pause_at_a_table_of_bots_and_away_players(harness: Harness) -> None:
    table, _ = harness.table(humans=1, turn_seconds=0.5, round_pause_seconds=PAUSE)
    harness.scheduler.run_until_idle()  # the host is soon away: bots play it all
    assert table.status == "finished"
    assert table.round_pause.current is None
    for message in harness.recorders[None].messages:
        kinds = [e["type"] for e in message["events"]]
        if "round_over" in kinds and "match_over" not in kinds:
            after_away = any(
                e["type"] == "seat" and e["away"]
                for m in harness.recorders[None].messages
                for e in m["events"]
                if m["v"] < message["v"]
            )
            if after_away:
                assert "round_start" in kinds


def test_the_host_pauses_and_resumes_a_table(harness: Harness) -> None:
    table, _ = harness.table(humans=2, hooking=False, turn_seconds=3.0)
    scheduler = harness.scheduler
    for _ in range(100):
        if you(table, 0)["decision"] or you(table, 1)["decision"]:
            break
        scheduler.advance(0.0)
    seat = 0 if you(table, 0)["decision"] else 1
    scheduler.advance(2.0)
    with pytest.raises(TableError) as not_host:
        table.host.pause(1)
    assert not_host.value.code is ErrorCode.NOT_HOST
    table.host.pause(0)
    state = harness.recorders[None].messages[-1]["state"]
    assert state["paused"] is True and state["deadline"] is None
    assert harness.recorders[None].messages[-1]["events"] == [{"type": "paused", "paused": True}]
    assert you(table, seat)["deadline"] is None
    move = you(table, seat)["legal_moves"][0]
    with pytest.raises(TableError) as refused:
        table.act(seat, move, table.version)
    assert refused.value.code is ErrorCode.PAUSED
    version = table.version
    scheduler.advance(60.0)  # no timer, no bot
    assert table.version == version and not table.seats[seat].away
    assert harness.storage.load_tables()[0].paused
    table.host.resume(0)
    assert you(table, seat)["deadline"] == int((scheduler.now() + 3.0) * 1000)  # full time
    with pytest.raises(TableError) as again:
        table.host.resume(0)
    assert again.value.code is ErrorCode.WRONG_STATUS
    table.act(seat, move, table.version)
    assert not harness.storage.load_tables()[0].paused


def test_settings_change_for_the_next_round_and_are_checked(harness: Harness) -> None:
    table, _ = harness.table(humans=2, hooking=False, start=False)
    table.host.settings(0, {"type": "settings", "id": 3, "spectator_chat": True})
    assert table.settings.spectator_chat and table.settings.card_counter
    event = harness.recorders[None].messages[-1]["events"][0]
    assert event == {"type": "settings", "settings": table.settings.to_dict()}
    version = table.version
    for data, code in [
        ({"round_pause_seconds": 121}, ErrorCode.BAD_OPTION),
        ({"round_pause_seconds": True}, ErrorCode.BAD_OPTION),
        ({"card_counter": "no"}, ErrorCode.BAD_OPTION),
        ({"card_couter": False}, ErrorCode.BAD_OPTION),
        ({}, ErrorCode.BAD_MESSAGE),
    ]:
        with pytest.raises(TableError) as refused:
            table.host.settings(0, data)
        assert refused.value.code is code, data
    with pytest.raises(TableError) as not_host:
        table.host.settings(1, {"card_counter": False})
    assert not_host.value.code is ErrorCode.NOT_HOST
    assert table.version == version
    table.host.settings(0, {"round_pause_seconds": 5})
    assert harness.storage.load_tables()[0].settings["round_pause_seconds"] == 5.0
    table.start(0)
    play_to_round_end(harness, table, humans=2)
    pause = table.round_pause.public()
    assert pause is not None
    assert pause["until"] == int((harness.scheduler.now() + 5.0) * 1000)
    assert events_of(harness.recorders[None].messages)
