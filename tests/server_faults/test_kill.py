"""SIGKILL the server again and again under load; restart it on the same database."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import httpx

from .live import LiveServer, Player, create_table, table_summary

TABLES = 5
KILLS = 3


def _is_subsequence(needle: list[str], haystack: list[str]) -> bool:
    remaining = iter(haystack)
    return all(any(item == candidate for candidate in remaining) for item in needle)


def test_sigkill_loses_no_acknowledged_move_and_every_table_finishes(tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "tables.db", tmp_path / "server.log")
    server.start()
    try:
        codes = [create_table(server, turn_seconds=3.0) for _ in range(TABLES)]
        players = [
            Player(server.ws, code, token, seat, random.Random(n * 4 + seat), start=seat == 0)
            for n, (code, tokens) in enumerate(codes)
            for seat, token in enumerate(tokens)
        ]
        expected_reconnects = dict.fromkeys(range(len(players)), 0)

        async def scenario() -> None:
            tasks = [
                asyncio.create_task(p.play(lambda p: p.match_over, give_up_after=150))
                for p in players
            ]
            for _ in range(KILLS):
                await asyncio.sleep(2.0)
                for n, player in enumerate(players):
                    expected_reconnects[n] += not player.match_over
                server.kill()
                await asyncio.to_thread(server.start)
            await asyncio.wait_for(asyncio.gather(*tasks), 150)

        asyncio.run(scenario())

        for code, _ in codes:
            summary = table_summary(server, code)
            assert summary["status"] == "finished", summary
            assert summary["finished_matches"] == [1]
            replay = httpx.get(f"{server.http}/api/tables/{code}/replays/1", timeout=10).json()
            assert replay["winning_team"] in (0, 1)
            for seat in range(4):
                acked = [
                    a["move"]
                    for p in players
                    if p.code == code and p.seat == seat
                    for a in p.acks
                    if not a["claim"]
                ]
                stored = [
                    step["move"]
                    for step in replay["steps"]
                    if step["seat"] == seat and step["decision"] in ("play", "return")
                ]
                assert acked, f"seat {seat} at {code} had no move acknowledged"
                assert _is_subsequence(acked, stored), f"an acknowledged move of {seat} is lost"
        for n, player in enumerate(players):
            # Every kill dropped every socket of a running match; each came back by itself.
            assert player.reconnects >= expected_reconnects[n]
            assert player.versions_went_back == 0
        assert sum(expected_reconnects.values()) >= len(players)  # the kills hit live play
        assert "Traceback" not in server.log_text()
    finally:
        server.stop()
