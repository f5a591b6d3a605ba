"""Audit: every byte each connection received over whole matches; no other hand ever appears."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import httpx
import orjson

from .live import LiveServer, Player, create_table, running

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


def _check_structure(own: int | None, texts: list[str]) -> None:
    for text in texts:
        message = orjson.loads(text)
        for path, node in _walk(message):
            assert "hands" not in node, f"{path}: all hands sent to {own}"
            if "hand" in node:
                if own is None:
                    assert node["hand"] == "", f"{path}: a hand sent to a spectator"
                else:
                    assert node.get("seat") == own, f"{path}: seat {node.get('seat')} to {own}"
            if node.get("legal_moves"):
                assert own is not None and node.get("seat") == own, f"{path}: another's prompt"


def _private_hands(replay: dict[str, Any]) -> list[tuple[int, str]]:
    """(seat, hand) of every position of the match, long enough to be telling."""
    hands = [
        (seat, hand)
        for game_round in replay["rounds"]
        for seat, hand in enumerate(game_round["start"]["hands"])
    ]
    hands += [
        (seat, hand) for step in replay["steps"] for seat, hand in enumerate(step["after"]["hands"])
    ]
    public_moves = {step["move"] for step in replay["steps"]}
    # Short hands can coincide with public text (a rank order, a move just played).
    return [
        (seat, hand) for seat, hand in set(hands) if len(hand) >= 8 and hand not in public_moves
    ]


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

        async def scenario() -> None:
            everyone = [*players, *watchers]
            await asyncio.wait_for(
                asyncio.gather(*(p.play(lambda p: p.match_over, 90) for p in everyone)), 120
            )

        asyncio.run(scenario())
        replay = httpx.get(f"{server.http}/api/tables/{code}/replays/1", timeout=10).json()

    assert replay["winning_team"] in (0, 1)
    assert len(replay["rounds"]) >= 2  # tribute rounds too
    telling = _private_hands(replay)
    assert len(telling) > 100
    for connection in [*players, *watchers]:
        own = connection.seat
        assert connection.received
        _check_structure(own, connection.received)
        everything = "\n".join(connection.received)
        for seat, hand in telling:
            if seat != own:
                assert hand not in everything, f"seat {seat}'s hand {hand} reached {own}"
        if own is not None:
            # Sanity: the audit can see a hand when it is there (its own).
            assert any(hand in everything for seat, hand in telling if seat == own)
