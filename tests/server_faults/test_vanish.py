"""A player vanishes at the worst moments: the table goes on, and the player comes back."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .live import LiveServer, Player, create_table, random_policy, running, shedding_policy

Vanish = Callable[[Player, dict[str, Any]], bool]


def _prompted(decision: str) -> Vanish:
    """Vanish on receiving a prompt of ``decision`` (before answering it)."""

    def check(player: Player, message: dict[str, Any]) -> bool:
        you = message.get("you")
        return you is not None and you["decision"] == decision

    return check


def _first_turn(player: Player, message: dict[str, Any]) -> bool:
    you = message.get("you")
    return you is not None and you["decision"] == "play"


def _events_of(players: list[Player], seat: int, since: int) -> list[dict[str, Any]]:
    """Events after version ``since`` as another seat saw them (from its recorded bytes)."""
    import orjson

    events = []
    for player in players:
        if player.seat == seat:
            continue
        for text in player.received:
            message = orjson.loads(text)
            if message["type"] == "update" and message["v"] > since:
                events.extend(message["events"])
        break
    return events


@pytest.mark.parametrize(
    ("case", "policy", "vanish"),
    [
        ("own turn", shedding_policy, _first_turn),
        ("hook window", random_policy, _prompted("hook")),
        ("tribute return", shedding_policy, _prompted("return")),
    ],
)
def test_a_vanished_player_is_covered_and_comes_back(
    tmp_path: Path,
    case: str,
    policy: Callable[[int, dict[str, Any], Any], str],
    vanish: Vanish,
) -> None:
    with running(LiveServer(tmp_path / "t.db", tmp_path / "server.log")) as server:
        hook_mode = "fair" if case == "hook window" else "fast"
        code, tokens = create_table(server, hook_mode=hook_mode)
        # Only one seat vanishes: the first to meet the condition (tables deal at random).
        gone: list[int] = []

        def vanish_once(player: Player, message: dict[str, Any]) -> bool:
            if gone and gone[0] != player.seat:
                return False
            if vanish(player, message):
                gone.append(player.seat or 0)
                return True
            return False

        players = [
            Player(
                server.ws,
                code,
                token,
                seat,
                random.Random(seat),
                policy=policy,
                vanish_when=vanish_once,
                start=seat == 0,
            )
            for seat, token in enumerate(tokens)
        ]

        async def scenario() -> Player:
            tasks = [
                asyncio.create_task(p.play(lambda p: p.match_over, give_up_after=60))
                for p in players
            ]
            while not gone:
                await asyncio.sleep(0.02)
            ghost = players[gone[0]]
            seen_before = ghost.version or 0
            others = [p for p in players if p is not ghost]
            # The table goes on without them: the window closes, the timer hands the seat
            # to the bot, which plays for it.
            try:
                async with asyncio.timeout(20):
                    while not all(_covered(others, ghost.seat or 0, seen_before).values()):
                        await asyncio.sleep(0.05)
            except TimeoutError:
                raise AssertionError(_covered(others, ghost.seat or 0, seen_before)) from None
            # They come back with their token (and the last version they saw) ...
            ghost.vanished = False
            ghost.vanish_when = None
            acks_before = len(ghost.acks)
            comeback = asyncio.create_task(
                ghost.play(lambda p: len(p.acks) > acks_before + 2 or p.match_over, 30)
            )
            await asyncio.wait_for(comeback, 30)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            return ghost

        ghost = asyncio.run(scenario())
        seat = ghost.seat or 0
        assert ghost.welcomes[-1]["seat"] == seat
        assert ghost.you is not None and ghost.you["away"] is False
        # ... and play again themselves: their own moves are acknowledged.
        assert ghost.acks[-1]["seat"] == seat
        assert "Traceback" not in server.log_text()


def _covered(others: list[Player], seat: int, since: int) -> dict[str, bool]:
    """The others saw ``seat`` go offline, be marked away and have a move made for it."""
    events = _events_of(others, seat, since)
    offline = any(e["type"] == "seat" and e["seat"] == seat and not e["online"] for e in events)
    away = any(e["type"] == "seat" and e["seat"] == seat and e["away"] for e in events)
    moved = any(e["type"] in ("play", "pass", "return") and e.get("seat") == seat for e in events)
    later = max((p.version or 0) for p in others) > since + 2
    return {"offline": offline, "away": away, "moved for": moved, "went on": later}
