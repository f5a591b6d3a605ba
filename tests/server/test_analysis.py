"""Round analysis in the server: due when a round ends, made once in a worker process,
stored and served (docs/protocol.md, section 2, "analysis"), a seat's own decisions while
the match is played, everyone's once it is over."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx

from fouronefour import bots
from fouronefour.engine import Match, Rules
from fouronefour.server.background.analyst import Analyst
from fouronefour.server.storage import (
    Change,
    ChangeExtra,
    NewMatch,
    StoredAnalysis,
    StoredSeat,
    StoredTable,
)
from fouronefour.server.storage.sqlite import GroupCommitStorage, SqliteStorage
from fouronefour.server.tables.model import TableOptions, hash_token

from .conftest import Harness, ThreadServer
from .test_round_end import play_to_round_end

RULES = Rules(players=2)
SEED = 7
TOKENS = ["token-of-seat-0", "token-of-seat-1"]


def greedy_match(rounds: int | None = None, extra: int = 0) -> Match:
    """A 2-player match played by the greedy bot: ``rounds`` rounds and ``extra`` moves of
    the next (None: to its end)."""
    bot, rng = bots.get("greedy"), random.Random(1)
    match = Match(RULES, SEED)
    left = extra
    while not match.is_over:
        if rounds is not None and len(match.results) >= rounds:
            if left == 0:
                break
            left -= 1
        r = match.round
        assert r.to_act is not None
        match = match.apply(bot.choose(r.view(r.to_act), r.legal_moves(), rng))
    return match


def write_table(
    storage: SqliteStorage, code: str, match: Match, due: tuple[int, int] | None = None
) -> None:
    """A table of two players (with :data:`TOKENS`) whose match 1 is ``match``."""
    options = TableOptions(RULES, turn_seconds=3600.0).to_dict()
    seats = [StoredSeat(s, f"P{s}", "human", hash_token(TOKENS[s])) for s in range(2)]
    storage.create_table(StoredTable(code, options, 0, "lobby", 1, 0, seats))
    status = "finished" if match.is_over else "playing"
    result = (match.winning_team, len(match.results)) if match.winning_team is not None else None
    storage.commit(Change(code, 2, "playing", 1, new_match=NewMatch(1, SEED, RULES.to_dict())))
    storage.commit(
        Change(
            code,
            3,
            status,
            1,
            moves=tuple(match.moves),
            match_over=match.is_over,
            extra=ChangeExtra(result=result, analysis=due),
        )
    )


def round_moves(match: Match, number: int) -> int:
    """How many decisions round ``number`` of ``match`` took."""
    from fouronefour.analysis import match_rounds

    return len(list(match_rounds(RULES, SEED, match.moves))[number - 1][1])


def ask(server: ThreadServer, code: str, round_number: int, **headers: str) -> httpx.Response:
    return httpx.get(
        f"{server.url}/api/tables/{code}/analysis", params={"round": round_number}, headers=headers
    )


def ready(server: ThreadServer, code: str, round_number: int, **headers: str) -> dict[str, Any]:
    """The analysis, once made (asking again as the server's hint says, sooner)."""
    deadline = time.monotonic() + 60
    while True:
        answer = ask(server, code, round_number, **headers)
        if answer.status_code == 200:
            return answer.json()  # type: ignore[no-any-return]
        assert answer.status_code == 202, answer.text  # (202 Accepted: not an error)
        assert answer.json()["error"]["code"] == "analysis_pending"
        assert int(answer.headers["Retry-After"]) >= 1
        assert time.monotonic() < deadline, "the analysis was not made"
        time.sleep(0.05)


def test_rounds_are_analysed_once_off_the_loop_and_shown_to_whom_they_may_be(
    tmp_path: Path, make_server: Callable[..., ThreadServer]
) -> None:
    """PLAYING: its first round ended (due) and its second is being played when the server
    starts: it is analysed without anybody asking, and each seat sees its own decisions
    only. DONE: a match over before analysis was on: analysed when asked, everyone sees
    everything. A restarted server serves both from the database and analyses nothing."""
    db = str(tmp_path / "tables.db")
    playing, done = greedy_match(rounds=1, extra=3), greedy_match()
    storage = SqliteStorage(db)
    write_table(storage, "PRAYNG", playing, due=(1, 1))
    write_table(storage, "DNEDNE", done)
    storage.close()

    server = make_server(db=db, analysis_processes=1, analysis_worlds=2)
    analyst: Analyst = server.app.state.analyst
    deadline = time.monotonic() + 60
    while analyst.analysed < 1:  # nobody asked: the start-up sweep found it due
        assert time.monotonic() < deadline, "the round due was not analysed"
        time.sleep(0.05)

    mine = [ready(server, "PRAYNG", 1, **{"X-Token": token}) for token in TOKENS]
    assert [view["seat"] for view in mine] == [0, 1]
    for seat, view in enumerate(mine):
        assert view["decisions"] and {d["seat"] for d in view["decisions"]} == {seat}
        # The graph's value mixes every seat's estimate: served once the round is over,
        # when the end-of-round pause has shown every hand.
        assert all(isinstance(d["graph_chance"], float) for d in view["decisions"])
        assert view["worlds"] == 2 and (view["match"], view["round_number"]) == (1, 1)
    assert sum(len(view["decisions"]) for view in mine) == round_moves(playing, 1)
    refusals = {
        "match_in_progress": ask(server, "PRAYNG", 1),  # a spectator
        "bad_token": ask(server, "PRAYNG", 1, **{"X-Token": "not-a-seat's"}),
        "not_finished": ask(server, "PRAYNG", 2, **{"X-Token": TOKENS[0]}),
        "bad_message": ask(server, "PRAYNG", 0, **{"X-Token": TOKENS[0]}),
    }
    for error, answer in refusals.items():
        assert answer.json()["error"]["code"] == error, answer.text
        assert "win_chance" not in answer.text

    everything = ready(server, "DNEDNE", 2)  # a spectator, once the match is over
    assert everything["seat"] is None
    assert len(everything["decisions"]) == round_moves(done, 2)
    assert {d["seat"] for d in everything["decisions"]} == {0, 1}
    assert all(isinstance(d["graph_chance"], float) for d in everything["decisions"])
    assert ask(server, "DNEDNE", 99).json()["error"]["code"] == "replay_not_found"
    assert ask(server, "DNEDNE", 2).json() == everything  # stored: not made again
    assert analyst.analysed == 2
    server.__exit__()

    again = make_server(db=db)  # no analysis: what is stored is served still
    assert ask(again, "DNEDNE", 2).json() == everything
    assert ask(again, "PRAYNG", 1, **{"X-Token": TOKENS[1]}).json() == mine[1]
    assert ask(again, "DNEDNE", 1).json()["error"]["code"] == "no_analysis"
    assert again.app.state.analyst.analysed == 0


def test_a_round_is_analysed_in_parts_while_played_and_gives_what_it_gives_whole(
    tmp_path: Path,
) -> None:
    """While round 2 is played the idle worker analyses its decisions so far; when it ends
    only the rest is left, and what is stored is the round's whole analysis."""
    from fouronefour.analysis import analyse_match_round

    partway, whole = greedy_match(rounds=1, extra=30), greedy_match(rounds=2)
    assert whole.moves[: len(partway.moves)] == partway.moves

    async def scenario() -> StoredAnalysis | None:
        storage = GroupCommitStorage(str(tmp_path / "tables.db"))  # (unbound: immediate)
        write_table(storage, "PARTS2", partway)
        analyst = Analyst(storage, processes=1, worlds=2)
        analyst.start()
        try:
            analyst.round_progressed("PARTS2", 1, 2, len(partway.moves), seq=0)
            deadline = time.monotonic() + 60
            while analyst.parts_analysed < 1:
                assert time.monotonic() < deadline, "no part was analysed while played"
                await asyncio.sleep(0.05)
            storage.commit(
                Change(
                    "PARTS2",
                    4,
                    "playing",
                    1,
                    moves=tuple(whole.moves[len(partway.moves) :]),
                    first_move_index=len(partway.moves),
                    extra=ChangeExtra(analysis=(1, 2)),
                )
            )
            analyst.round_ended("PARTS2", 1, 2, seq=0)
            while analyst.analysed < 1:
                assert time.monotonic() < deadline, "the round was not analysed"
                await asyncio.sleep(0.05)
            return await storage.fetch_analysis("PARTS2", 1, 2)
        finally:
            await analyst.shutdown()
            storage.close()

    stored = asyncio.run(scenario())
    assert stored is not None and stored.error is None
    assert stored.decisions == analyse_match_round(RULES, SEED, whole.moves, 2, worlds=2)


def test_a_round_that_ends_is_due_and_queued_once_written(harness: Harness) -> None:
    """The change that ends a round makes it due in the database and queues it; a full
    queue refuses more (they stay due for the sweep)."""
    analyst = Analyst(harness.storage, processes=1, queue_limit=1)
    table, _ = harness.table(humans=2, hooking=False, round_pause_seconds=15.0, start=False)
    table.services = replace(table.services, analyst=analyst)
    table.start(0)
    play_to_round_end(harness, table, humans=2)
    key = (table.code, 1, 1)
    assert harness.storage.load_analysis(*key) == StoredAnalysis(1, 1)
    assert analyst.queue(key)  # (queued already: once)
    assert not analyst.queue((table.code, 1, 2))  # the queue holds one
    assert analyst.retry_after(key) >= 1
    # A round somebody asks for goes before those nobody asked for.
    later = Analyst(harness.storage, processes=1)
    for number in (1, 2, 3):
        later.queue((table.code, 1, number))
    later.queue((table.code, 1, 3), asked=True)
    assert later.retry_after((table.code, 1, 3)) < later.retry_after((table.code, 1, 1))
