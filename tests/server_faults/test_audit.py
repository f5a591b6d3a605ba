"""Audit: every byte each connection received over whole matches; no other hand ever appears.

Besides the moves, the match has end-of-round pauses (where the hands still holding cards
are shown, once the round is over), chat lines, a named spectator's presence, the host's
pause and a seat handoff: none of them may carry a hand that is not public by then, and
the handoff's secret reaches only the connection that asked for it."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import httpx
import orjson

from .live import Conn, LiveServer, Player, create_table, running

SPECTATORS = 1


def _walk(value: Any, path: str = "") -> Any:
    """Every (path, dict) inside a decoded message."""
    if isinstance(value, dict):
        yield path, value
        for key, inner in value.items():
            yield from _walk(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for n, inner in enumerate(value):
            yield from _walk(inner, f"{path}[{n}]")


def _check_structure(
    own: int | None, texts: list[str], revealed: dict[int, list[str | None]]
) -> None:
    for text in texts:
        message = orjson.loads(text)
        for path, node in _walk(message):
            if "hands" in node:
                # Only an end-of-round pause shows hands: those its round ended with.
                assert path == ".state.round_end", f"{path}: hands sent to {own}"
                assert node["hands"] == revealed[node["round_number"]], f"{path}: {node}"
            if "hand" in node:
                if own is None:
                    assert node["hand"] == "", f"{path}: a hand sent to a spectator"
                else:
                    assert node.get("seat") == own, f"{path}: seat {node.get('seat')} to {own}"
            if node.get("legal_moves"):
                assert own is not None and node.get("seat") == own, f"{path}: another's prompt"


def _round_ends(replay: dict[str, Any]) -> dict[int, list[str | None]]:
    """The hands each round ended with (null: the seat had finished), by round number."""
    return {
        step["round_number"]: [hand or None for hand in step["after"]["hands"]]
        for step in replay["steps"]
        if any(event["type"] == "round_over" for event in step["events"])
    }


def _private_hands(replay: dict[str, Any]) -> list[tuple[int, str]]:
    """(seat, hand) of every position of the match, long enough to be telling, and never
    made public (a hand a round ended with is shown to all at its end)."""
    hands = [
        (seat, hand)
        for game_round in replay["rounds"]
        for seat, hand in enumerate(game_round["start"]["hands"])
    ]
    hands += [
        (seat, hand) for step in replay["steps"] for seat, hand in enumerate(step["after"]["hands"])
    ]
    public_moves = {step["move"] for step in replay["steps"]}
    shown = [hand for hands_at_end in _round_ends(replay).values() for hand in hands_at_end if hand]
    # Short hands can coincide with public text (a rank order, a move just played); a hand
    # may be part of one shown at a round's end (the same cards but a returned one).
    return [
        (seat, hand)
        for seat, hand in set(hands)
        if len(hand) >= 8
        and hand not in public_moves
        and not any(hand in public for public in shown)
    ]


def _hands_of(replay: dict[str, Any], seat: int | None) -> set[str]:
    """Every hand ``seat`` held during the match (none for a spectator)."""
    if seat is None:
        return set()
    hands = {game_round["start"]["hands"][seat] for game_round in replay["rounds"]}
    return hands | {step["after"]["hands"][seat] or "" for step in replay["steps"]}


def test_no_connection_ever_receives_another_hand(tmp_path: Path) -> None:
    with running(LiveServer(tmp_path / "t.db", tmp_path / "server.log")) as server:
        code, tokens = create_table(server, hook_mode="fair", hook_seconds=0.05)
        players = [
            Player(server.ws, code, token, seat, random.Random(seat), start=seat == 0)
            for seat, token in enumerate(tokens)
        ]
        watchers = [
            Player(server.ws, code, None, None, random.Random(99 + n)) for n in range(SPECTATORS)
        ]
        host_tab: list[Conn] = []  # a second tab of the host's: chat and the host's tools
        secrets: list[str] = []

        async def host_tools() -> None:
            conn = await Conn.open(server.ws, code, tokens[0])
            host_tab.append(conn)
            await conn.wait_for(lambda m: m["type"] == "update" and m["state"] is not None, 0, 30)
            for n, body in enumerate(
                [
                    {"type": "chat", "text": "good luck, all"},
                    {"type": "chat", "phrase": "well_played"},
                    {"type": "pause"},
                    {"type": "resume"},
                    {"type": "handoff", "seat": 2},
                ]
            ):
                reply = await conn.request({**body, "id": f"host-{n}"})
                assert reply["type"] == "ack", reply
                if "handoff" in reply:
                    secrets.append(reply["handoff"]["secret"])
                await asyncio.sleep(0.3)

        async def scenario() -> None:
            everyone = [*players, *watchers]
            tools = asyncio.create_task(host_tools())
            watcher = await Conn.open(server.ws, code, name="Dana")
            await asyncio.wait_for(
                asyncio.gather(*(p.play(lambda p: p.match_over, 90) for p in everyone)), 120
            )
            await tools
            host_tab.append(watcher)
            for conn in host_tab:
                await conn.close()

        asyncio.run(scenario())
        replay = httpx.get(f"{server.http}/api/tables/{code}/replays/1", timeout=10).json()
        log = server.log_text()

    assert replay["winning_team"] in (0, 1)
    assert len(replay["rounds"]) >= 2  # tribute rounds too
    # A handoff secret reaches the connection that asked for it, and nothing else.
    (secret,) = secrets
    assert secret not in log
    assert secret in "\n".join(host_tab[0].texts)
    for connection in [*players, *watchers]:
        assert secret not in "\n".join(connection.received)
    assert secret not in "\n".join(host_tab[1].texts)
    revealed = _round_ends(replay)
    telling = _private_hands(replay)
    assert len(telling) > 100
    host_conn, named_watcher = host_tab
    seen: set[str] = set()
    for connection in [*players, *watchers]:
        for text in connection.received:
            seen.add(orjson.loads(text)["type"])
    # Every kind of message the table sends was audited (presence, pauses, chat).
    assert {"presence", "update", "snapshot"} <= seen
    texts = "\n".join(text for p in players for text in p.received)
    assert '"round_end":{' in texts and '"type":"paused"' in texts and "good luck, all" in texts
    assert any(
        m["type"] == "presence" and "Dana" in m["watchers"]
        for m in (orjson.loads(text) for text in watchers[0].received)
    )
    for own, texts_of in [(0, host_conn.texts), (None, named_watcher.texts)]:
        _check_structure(own, texts_of, revealed)
    for connection in [*players, *watchers]:
        own = connection.seat
        assert connection.received
        _check_structure(own, connection.received, revealed)
        everything = "\n".join(connection.received)
        # (Another seat's hand may be written inside one of this seat's own: skipped.)
        mine = _hands_of(replay, own)
        for seat, hand in telling:
            if seat != own and not any(hand in own_hand for own_hand in mine):
                assert hand not in everything, f"seat {seat}'s hand {hand} reached {own}"
        if own is not None:
            # Sanity: the audit can see a hand when it is there (its own).
            assert any(hand in everything for seat, hand in telling if seat == own)
