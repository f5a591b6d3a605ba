"""The Table authority on a manual clock: whole matches, windows, timers, refusals, restore."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from fouronefour.engine import Match
from fouronefour.server.clock import ManualScheduler
from fouronefour.server.errors import ErrorCode, TableError
from fouronefour.server.tables.table import Table

from .conftest import Harness, find_seed


def events_of(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [event for message in messages for event in message["events"]]


def pair_holders(match: Match, seat: int, rank: str) -> list[int]:
    r = match.round
    return [s for s in range(r.rules.players) if s != seat and r.hand(s).count(rank) >= 2]


def hookable_lead(match: Match, holders_needed: int) -> str | None:
    """A single the leader may lead that exactly ``holders_needed`` other seats can hook
    (at least that many when holders_needed >= 2)."""
    r = match.round
    leader = r.to_act
    assert leader is not None
    for rank in dict.fromkeys(r.hand(leader)):
        if rank in "BR":
            continue
        count = len(pair_holders(match, leader, rank))
        if (holders_needed >= 2 and count >= holders_needed) or count == holders_needed:
            return rank
    return None


def you(table: Table, seat: int) -> dict[str, Any]:
    snapshot = table.snapshot(seat)
    assert snapshot["you"] is not None
    return snapshot["you"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("hook_mode", ["fair", "fast"])
def test_bots_and_an_absent_player_play_a_match_to_the_end(
    harness: Harness, hook_mode: str
) -> None:
    table, _ = harness.table(humans=1, hook_mode=hook_mode, turn_seconds=5.0)
    harness.scheduler.run_until_idle()
    assert table.status == "finished" and table.match is not None and table.match.is_over
    spectator = harness.recorders[None].messages
    versions = [m["v"] for m in spectator]
    assert versions == list(range(versions[0], versions[0] + len(versions)))
    events = events_of(spectator)
    assert {"type": "match_over", "match_number": 1} | {
        k: v for k, v in events[-2].items() if k in ("winning_team", "levels")
    } == {k: v for k, v in events[-2].items() if k != "type"} | {"type": "match_over"}
    # The host never acted: the turn timer made the seat away and a bot played for it.
    assert any(e["type"] == "seat" and e["seat"] == 0 and e["away"] for e in events)
    assert any(e.get("seat") == 0 and e["type"] in ("play", "pass") for e in events)
    # Every decision is in storage: the stored moves replay to the same match.
    stored = harness.storage.load_tables()[0]
    assert stored.match is not None and stored.match.over
    assert Match.replay(table.options.rules, stored.match.seed, stored.match.moves).moves == (
        table.match.moves
    )
    if hook_mode == "fair":
        # A window after every single face card that did not end the round.
        for message in spectator:
            kinds = [e["type"] for e in message["events"]]
            singles = [
                e
                for e in message["events"]
                if e["type"] == "play" and len(e["move"]) == 1 and e["move"] not in "BR"
            ]
            if singles and "round_over" not in kinds:
                assert "window_open" in kinds


def test_nobody_sees_another_hand(harness: Harness) -> None:
    table, _ = harness.table(players=4, humans=4, turn_seconds=1.0)
    harness.scheduler.run_until_idle()  # everybody times out; bots play for all of them
    assert table.status == "finished"
    for message in harness.recorders[None].messages:
        assert "you" not in message
        text = json.dumps(message)
        assert '"hand"' not in text and '"hands"' not in text
    for seat in range(4):
        for message in harness.recorders[seat].messages:
            if "you" in message:
                assert message["you"]["seat"] == seat
            public = {k: v for k, v in message.items() if k != "you"}
            assert '"hand"' not in json.dumps(public)
    # A spectator snapshot has no hand and no decision.
    snapshot = table.snapshot(None)
    assert snapshot["you"] is None and snapshot["game"]["hand"] == ""


def test_fair_window_looks_the_same_whether_or_not_anyone_can_hook(harness: Harness) -> None:
    timelines = []
    for holders in (0, 2):
        seed = find_seed(lambda m, h=holders: hookable_lead(m, h) is not None)
        harness.seeds = [seed]
        harness.recorders.clear()
        harness.fanout = type(harness.fanout)()
        table, _ = harness.table(humans=4, hook_mode="fair", hook_seconds=2.0)
        assert table.match is not None
        leader = table.match.round.to_act
        assert leader is not None
        rank = hookable_lead(table.match, holders)
        assert rank is not None
        start = harness.scheduler.now()
        table.act(leader, rank, table.version)
        harness.scheduler.advance(1.99)
        open_message = harness.recorders[None].messages[-1]
        harness.scheduler.advance(0.02)
        close_message = harness.recorders[None].messages[-1]
        state = open_message["state"]
        timelines.append(
            (
                [e["type"] for e in open_message["events"]],
                state["window"]["closes_at"] - int(start * 1000),
                state["top"] == rank and state["top_seat"] == leader,
                (state["turn"] - leader) % 4,
                [e["type"] for e in close_message["events"]],
                close_message["events"][0]["claimed_by"],
                close_message["server_time"] - int(start * 1000),
            )
        )
        # Only the seats that may hook were prompted, privately.
        prompted = [s for s in range(4) if you(table, s)["decision"] is not None]
        assert prompted == [] or len(prompted) == 1  # after the close: the turn only
        assert timelines[-1][3] == 1  # the next seat, as if nobody could hook
    assert timelines[0] == timelines[1]


@pytest.mark.parametrize("hook_mode", ["fair", "fast"])
def test_nearest_claim_wins_whatever_the_arrival_order(harness: Harness, hook_mode: str) -> None:
    harness.seeds = [find_seed(lambda m: hookable_lead(m, 2) is not None)]
    table, _ = harness.table(humans=4, hook_mode=hook_mode, hook_seconds=2.0)
    assert table.match is not None
    leader = table.match.round.to_act
    assert leader is not None
    rank = hookable_lead(table.match, 2)
    assert rank is not None
    table.act(leader, rank, table.version)
    offered = [s for s in range(4) if you(table, s)["decision"] == "hook"]
    offered.sort(key=lambda s: (s - leader) % 4)
    nearest, farther = offered[0], offered[1]
    version = table.version
    far_ack = table.act(farther, rank * 2, version)
    assert far_ack.claim and table.version == version  # recorded, not yet decided
    with pytest.raises(TableError) as repeated:
        table.act(farther, "pass", version)
    assert repeated.value.code is ErrorCode.ALREADY_ANSWERED
    near_ack = table.act(nearest, rank * 2, version)
    assert near_ack.claim
    if hook_mode == "fair":
        assert table.version == version  # a fair window closes on time only
        harness.scheduler.advance(2.0)
    hooks = [e for e in events_of(harness.recorders[None].messages) if e["type"] == "hook"]
    assert hooks == [{"type": "hook", "seat": nearest, "move": rank * 2}]
    closes = [e for e in events_of(harness.recorders[None].messages) if e["type"] == "window_close"]
    assert closes[0]["claimed_by"] == nearest


def test_each_turn_gets_its_full_time_from_when_it_was_offered(harness: Harness) -> None:
    # One timer watches a table's turns; one armed for an earlier turn must not cut a later
    # turn short, nor let it run long.
    table, _ = harness.table(humans=2, hooking=False, turn_seconds=3.0)
    scheduler = harness.scheduler
    for _ in range(2000):
        seats = [s for s in (0, 1) if you(table, s)["decision"] is not None]
        if seats:
            break
        scheduler.advance(0.0)
    first = seats[0]
    scheduler.advance(2.0)  # two of its three seconds, then the move
    move = you(table, first)["legal_moves"][-1]
    table.act(first, move, table.version)
    for _ in range(2000):  # bots may move in between; wait for the next human turn
        seats = [s for s in (0, 1) if you(table, s)["decision"] is not None]
        if seats:
            break
        scheduler.advance(0.0)
    second = seats[0]
    offered = you(table, second)["deadline"] / 1000 - 3.0
    scheduler.advance(offered + 2.9 - scheduler.now())
    assert not table.seats[second].away  # the first turn's timer fired: not this one's time
    scheduler.advance(0.2)
    assert table.seats[second].away
    assert not table.seats[first].away


def test_turn_timer_hands_an_absent_player_to_a_bot_until_they_return(harness: Harness) -> None:
    table, _ = harness.table(humans=2, hooking=False, turn_seconds=3.0)
    scheduler = harness.scheduler

    def run_to_turn_of(seat: int) -> None:
        for _ in range(2000):
            if you(table, seat)["decision"] is not None:
                return
            other = 1 - seat
            mine = you(table, other)
            if mine["decision"] is not None:
                table.act(other, mine["legal_moves"][-1], table.version)
            else:
                scheduler.advance(0.0)
        raise AssertionError("the turn never came")

    run_to_turn_of(0)
    deadline = you(table, 0)["deadline"]
    assert deadline == int((scheduler.now() + 3.0) * 1000) or deadline is not None
    version = table.version
    scheduler.advance(2.9)
    assert table.version == version  # still waiting for the player
    scheduler.advance(0.2)
    assert table.seats[0].away
    scheduler.advance(0.0)  # the bot moves for the away seat
    spectator_events = events_of(harness.recorders[None].messages)
    away_at = max(
        i
        for i, e in enumerate(spectator_events)
        if e["type"] == "seat" and e["seat"] == 0 and e["away"]
    )
    assert any(
        e.get("seat") == 0 and e["type"] in ("play", "pass") for e in spectator_events[away_at:]
    )
    ack = table.seating.back(0)
    assert not table.seats[0].away and ack.v == table.version
    with pytest.raises(TableError) as again:
        table.seating.back(0)
    assert again.value.code is ErrorCode.NOT_AWAY
    run_to_turn_of(0)
    version = table.version
    scheduler.advance(1.0)
    assert table.version == version and you(table, 0)["decision"] is not None


def assert_refused(table: Table, refusals: list[tuple[Callable[[], object], ErrorCode]]) -> None:
    for attempt, code in refusals:
        version, moves = table.version, table.match.moves if table.match else []
        with pytest.raises(TableError) as refused:
            attempt()
        assert refused.value.code is code, refused.value.message
        assert table.version == version
        assert (table.match.moves if table.match else []) == moves


def test_refused_actions_change_nothing(harness: Harness) -> None:
    table, tokens = harness.table(humans=4, start=False)
    assert table.seat_for_token(tokens[1]) == 1 and table.seat_for_token("guess") is None
    refusals = [
        (lambda: table.start(1), ErrorCode.NOT_HOST),
        (lambda: table.seating.join("", 3), ErrorCode.BAD_NAME),
        (lambda: table.seating.join("x" * 30, 3), ErrorCode.BAD_NAME),
        (lambda: table.seating.join("Eve", 1), ErrorCode.SEAT_TAKEN),
        (lambda: table.seating.join("Eve", 9), ErrorCode.BAD_SEAT),
        (lambda: table.act(0, "3", table.version), ErrorCode.WRONG_STATUS),
        (lambda: table.play_again(0), ErrorCode.WRONG_STATUS),
    ]
    assert_refused(table, refusals)
    table.start(0)
    assert table.match is not None
    r = table.match.round
    seat = r.to_act
    assert seat is not None and table.seats[seat].kind == "human"
    other = (seat + 1) % 4
    prompt_v = you(table, seat)["prompt_v"]
    refusals = [
        (lambda: table.start(0), ErrorCode.WRONG_STATUS),
        (lambda: table.seating.join("Eve", 3), ErrorCode.WRONG_STATUS),
        (lambda: table.seating.fill_bots(0), ErrorCode.WRONG_STATUS),
        (lambda: table.act(other, r.legal_moves()[0], table.version), ErrorCode.NOT_YOUR_TURN),
        (lambda: table.act(seat, "pass", table.version), ErrorCode.ILLEGAL_MOVE),
        (lambda: table.act(seat, "3345", table.version), ErrorCode.ILLEGAL_MOVE),
        (lambda: table.act(seat, "nonsense", table.version), ErrorCode.ILLEGAL_MOVE),
        (lambda: table.act(seat, 42, table.version), ErrorCode.BAD_MESSAGE),
        (lambda: table.act(seat, "3", "7"), ErrorCode.BAD_MESSAGE),
        (lambda: table.act(seat, r.legal_moves()[0], prompt_v - 1), ErrorCode.STALE_VERSION),
        (lambda: table.act(seat, r.legal_moves()[0], table.version + 1), ErrorCode.STALE_VERSION),
    ]
    assert_refused(table, refusals)
    stored = harness.storage.load_tables()[0]
    assert stored.version == table.version and stored.match is not None
    assert stored.match.moves == []
    # A move resent with the same client id is acknowledged again, not applied twice.
    move = r.legal_moves()[0]
    acted_on = table.version
    first = table.act(seat, move, acted_on, client_id="c-1")
    again = table.act(seat, move, acted_on, client_id="c-1")
    assert first == again and len(table.match.moves) == 1
    # The same id with another move is a new request, refused like any other.
    with pytest.raises(TableError):
        table.act(seat, "pass", acted_on, client_id="c-1")


def test_a_friend_takes_a_bot_seat_between_matches(harness: Harness) -> None:
    table, _ = harness.table(humans=1, turn_seconds=0.5)
    harness.scheduler.run_until_idle()
    assert table.status == "finished" and table.seats[2].kind == "bot"
    with pytest.raises(TableError) as taken:
        table.seating.join("Eve", 0)
    assert taken.value.code is ErrorCode.SEAT_TAKEN
    token = table.seating.join("Eve", 2)
    assert table.seat_for_token(token) == 2 and table.seats[2].kind == "human"
    table.play_again(0)
    assert table.status == "playing" and table.match_number == 2
    assert you(table, 2)["hand"]
    assert harness.storage.load_tables()[0].seats[2].name == "Eve"
    harness.scheduler.run_until_idle()
    # The host removes Eve between matches: her seat waits for another player or a bot.
    table.seating.kick(0, 2)
    assert table.seats[2].kind == "empty" and table.seat_for_token(token) is None
    with pytest.raises(TableError) as empty:
        table.play_again(0)
    assert empty.value.code is ErrorCode.SEATS_EMPTY and table.match_number == 2
    table.seating.fill_bots(0)
    table.play_again(0)
    assert table.match_number == 3


def test_a_removed_player_sits_again_only_through_the_hosts_handoff(harness: Harness) -> None:
    """Issue 27: a kick was not a removal: the kicked player could take a seat again at
    once. Known by their token, they are refused (``kicked``) at join and at a handoff
    another player offered, across a restart, until the host hands them a seat."""
    table, tokens = harness.table(humans=3, start=False)
    table.seating.fill_bots(0)
    table.seating.kick(0, 2)
    assert table.seats[2].kind == "empty"
    before = table.version
    for attempt in (lambda: table.seating.join("Bob", 2, tokens[2]),
                    lambda: table.seating.join("Bob again", 3, tokens[2])):  # fmt: skip
        with pytest.raises(TableError) as refused:
            attempt()
        assert refused.value.code is ErrorCode.KICKED
    assert table.version == before and table.seats[2].kind == "empty"  # nothing changed
    # A handoff offered by a player (their own seat) does not let them back ...
    secret = table.handoffs.offer(1, 1).handoff["secret"]  # type: ignore[index]
    version = table.version
    with pytest.raises(TableError) as refused:
        table.handoffs.claim(secret, "Bob", tokens[2])
    assert refused.value.code is ErrorCode.KICKED and table.version == version
    assert table.seat_for_token(tokens[1]) == 1
    # ... and the removal survives a restart (it is in the table's row).
    stored = harness.storage.load_tables()[0]
    restored = Table.restore(stored, harness.services(ManualScheduler(harness.scheduler.now())))
    assert restored.was_removed(tokens[2]) and not restored.was_removed(tokens[1])
    assert "removed" not in restored.summary()["settings"]  # (never sent)
    with pytest.raises(TableError) as refused:
        restored.seating.join("Bob", 2, tokens[2])
    assert refused.value.code is ErrorCode.KICKED
    # The host hands a bot's seat to them: they are let back.
    offer = restored.handoffs.offer(0, 3).handoff
    assert offer is not None
    seat, token = restored.handoffs.claim(offer["secret"], "Bob", tokens[2])
    assert seat == 3 and restored.seat_for_token(token) == 3
    assert not restored.was_removed(tokens[2])
    assert not harness.storage.load_tables()[0].settings.get("removed")


def test_moved_players_get_the_you_of_their_new_seat(harness: Harness) -> None:
    """Issue 27: ``seats_swapped`` carried no ``you``, so each moved connection kept its old
    seat's number and hand until the next match started."""
    table, tokens = harness.table(humans=4, turn_seconds=0.5)
    harness.scheduler.run_until_idle()
    assert table.status == "finished"
    for seat in (1, 3):
        harness.recorders[seat].messages.clear()
    table.seating.move_seat(0, 1, 3)
    assert table.seat_for_token(tokens[1]) == 3 and table.seat_for_token(tokens[3]) == 1
    for seat in (1, 3):
        (swap,) = harness.recorders[seat].messages
        assert swap["events"][0]["type"] == "seats_swapped"
        # Each moved connection is sent what a fresh connection of its new seat would be.
        assert swap["you"] == you(table, seat) and swap["you"]["seat"] == seat
    # The others' private parts did not change: nothing private goes to them.
    for seat in (0, 2):
        assert "you" not in harness.recorders[seat].messages[-1]
    assert "you" not in harness.recorders[None].messages[-1]


def test_restore_offers_an_open_window_again(harness: Harness) -> None:
    harness.seeds = [find_seed(lambda m: hookable_lead(m, 2) is not None)]
    table, tokens = harness.table(humans=4, hook_mode="fair", hook_seconds=2.0)
    assert table.match is not None
    leader = table.match.round.to_act
    assert leader is not None
    rank = hookable_lead(table.match, 2)
    assert rank is not None
    table.act(leader, rank, table.version)
    offered = [s for s in range(4) if you(table, s)["decision"] == "hook"]
    # The server dies here; a new one restores the table from storage alone.
    stored = harness.storage.load_tables()[0]
    clock = ManualScheduler(harness.scheduler.now())
    restored = Table.restore(stored, harness.services(clock))
    restored.resume()
    assert restored.version == table.version  # resuming writes nothing
    assert restored.seat_for_token(tokens[2]) == 2
    assert [s for s in range(4) if you(restored, s)["decision"] == "hook"] == offered
    assert restored.match is not None and restored.match.moves == table.match.moves
    restored.act(offered[-1], rank * 2, restored.version)
    clock.advance(2.0)
    assert restored.match.moves[-1] == rank * 2


def test_an_acknowledged_claim_survives_a_restart_and_wins(harness: Harness) -> None:
    """A claim answered (and acknowledged) before its window closes is written at once: the
    table restored from storage has it, does not ask that seat again, and closes the window
    with it; the written answers go once the window's moves are written."""
    harness.seeds = [find_seed(lambda m: hookable_lead(m, 2) is not None)]
    table, _ = harness.table(humans=4, hook_mode="fair", hook_seconds=2.0)
    assert table.match is not None
    leader = table.match.round.to_act
    assert leader is not None
    rank = hookable_lead(table.match, 2)
    assert rank is not None
    table.act(leader, rank, table.version)
    offered = sorted(
        (s for s in range(4) if you(table, s)["decision"] == "hook"),
        key=lambda s: (s - leader) % 4,
    )
    nearest = offered[0]
    assert table.act(nearest, rank * 2, table.version).claim
    # The server dies before the window closes; a new one restores the table.
    stored = harness.storage.load_tables()[0]
    assert [(c.seat, c.answer) for c in stored.claims] == [(nearest, rank * 2)]
    clock = ManualScheduler(harness.scheduler.now())
    restored = Table.restore(stored, harness.services(clock))
    restored.resume()
    assert you(restored, nearest)["decision"] is None  # answered already
    with pytest.raises(TableError) as again:
        restored.act(nearest, "pass", restored.version)
    assert again.value.code is ErrorCode.ALREADY_ANSWERED
    clock.advance(2.0)
    assert restored.match is not None and restored.match.moves[-1] == rank * 2
    assert restored.match.round.log[-1]["seat"] == nearest
    assert harness.storage.load_tables()[0].claims == []


def hook_lead(match: Match, unhookers: bool) -> tuple[str, int] | None:
    """A single the leader may lead that exactly one other seat can hook, after which
    somebody (``unhookers``) or nobody could unhook: the rank and the hooker."""
    r = match.round
    leader = r.to_act
    assert leader is not None
    for rank in dict.fromkeys(r.hand(leader)):
        if rank in "BR":
            continue
        hookers = pair_holders(match, leader, rank)
        if len(hookers) != 1:
            continue
        left = [r.hand(s).count(rank) - (s == leader) for s in range(4) if s != hookers[0]]
        if any(left) == unhookers:
            return rank, hookers[0]
    return None


def test_an_unhook_window_shows_no_move_on_top(harness: Harness) -> None:
    """While a window after a hook is open, everyone sees what they would if nobody could
    unhook: the chain's trick over, no move on top, the hooker to lead (docs/rules.md,
    section 9's note). The claimed pair used to show as `top`, and only when someone could
    unhook."""
    seen = []
    for unhookers in (True, False):
        seed = find_seed(lambda m, u=unhookers: hook_lead(m, u) is not None)
        harness.seeds = [seed]
        harness.recorders.clear()
        harness.fanout = type(harness.fanout)()
        table, _ = harness.table(humans=4, hook_mode="fair", hook_seconds=2.0)
        assert table.match is not None
        leader = table.match.round.to_act
        found = hook_lead(table.match, unhookers)
        assert leader is not None and found is not None
        rank, hooker = found
        table.act(leader, rank, table.version)
        table.act(hooker, rank * 2, table.version)  # recorded; decided at the close
        harness.scheduler.advance(2.01)
        message = harness.recorders[None].messages[-1]
        assert [e["type"] for e in message["events"]][-2:] == ["hook", "window_open"]
        state = message["state"]
        assert state["window"]["kind"] == "unhook"
        assert (state["top"], state["top_seat"], state["turn"]) == (None, None, hooker)
        bystander = next(s for s in range(4) if s not in (leader, hooker))
        game = table.snapshot(bystander)["game"]
        assert (game["top"], game["top_seat"], game["turn"]) == (None, None, hooker)
        seen.append((state["top"], state["turn"] == hooker, state["window"]["kind"]))
    assert seen[0] == seen[1]
