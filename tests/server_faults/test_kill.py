"""SIGKILL the server again and again under load; restart it on the same database. And once
during an end-of-round pause: the pause, the chat and a pending handoff survive it."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

import httpx

from .live import (
    Conn,
    LiveServer,
    Player,
    create_table,
    play_moves,
    seated_table,
    settle,
    table_summary,
)

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


def test_sigkill_during_a_round_end_pause_keeps_the_pause_chat_and_handoff(
    tmp_path: Path,
) -> None:
    server = LiveServer(tmp_path / "pause.db", tmp_path / "server.log")
    server.start()
    try:

        async def before_the_kill() -> tuple[str, list[str], dict[str, Any], str]:
            code, tokens, conns = await seated_table(
                server, hooking=False, turn_seconds=30, round_pause_seconds=60
            )
            while not (conns[0].state and conns[0].state["round_end"]):
                await play_moves(conns, 1)
                await settle(conns)
            ready = await conns[1].request({"type": "ready", "id": "r1"})
            said = await conns[2].request({"type": "chat", "id": "c", "text": "brb"})
            offer = await conns[0].request({"type": "handoff", "id": "h", "seat": 3})
            assert ready["type"] == said["type"] == offer["type"] == "ack"
            await settle(conns)
            pause = conns[0].state["round_end"]  # type: ignore[index]
            for conn in conns:
                await conn.close()
            return code, tokens, pause, offer["handoff"]["secret"]

        code, tokens, pause, secret = asyncio.run(before_the_kill())
        killed_at = time.time() * 1000
        server.kill()
        server.start()

        async def after_the_restart() -> None:
            conn = await Conn.open(server.ws, code, tokens[0])
            snapshot = next(m for m in conn.messages if m["type"] == "snapshot")
            held = snapshot["state"]["round_end"]
            for key in ("round_number", "result", "last_trick", "hands", "tributes"):
                assert held[key] == pause[key], key
            assert 1 not in held["ready"]  # said again after a restart (docs/protocol.md)
            assert held["until"] >= killed_at + 60_000 - 1  # full length again, from the restart
            assert snapshot["you"]["decision"] is None
            assert [c.get("text") for c in snapshot["chat"]] == ["brb"]
            async with httpx.AsyncClient(base_url=server.http) as http:
                claimed = await http.post(
                    f"/api/tables/{code}/claim", json={"handoff": secret, "name": "Newcomer"}
                )
            assert claimed.status_code == 200, claimed.text
            new_token = claimed.json()["token"]
            conns = [conn, *[await Conn.open(server.ws, code, t) for t in tokens[1:3]]]
            conns.append(await Conn.open(server.ws, code, new_token))
            for player in conns:
                reply = await player.request({"type": "ready", "id": "again"})
                assert reply["type"] == "ack", reply
            await settle(conns)
            assert conns[0].state is not None and conns[0].state["round_end"] is None
            assert conns[3].you is not None and conns[3].you["seat"] == 3
            for player in conns:
                await player.close()

        asyncio.run(after_the_restart())
        assert "Traceback" not in server.log_text()
        assert secret not in server.log_text()
    finally:
        server.stop()
