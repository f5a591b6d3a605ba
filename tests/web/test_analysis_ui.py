"""Round analysis in the browser: the replay viewer's win-chance graph, labels and "Show
me", the replay downloaded and analysed by ``fouronefour analyse`` exactly as the server
did, and a player's own decisions at the table (docs/ui.md; docs/protocol.md, section 2).

The session server analyses nothing (every round its tests play would wait in its queue):
this module runs a server of its own that analyses each round as it ends, with 2 worlds a
decision.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from fouronefour import cli
from fouronefour.analysis import MARKED

from .conftest import serve

SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "analysis"

_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@pytest.fixture(scope="module")
def analysing_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(
        tmp_path_factory.mktemp("analysing-server"), ("--bot-delay", "0", "--analysis-worlds", "2")
    ) as url:
        yield url


def _get(url: str) -> Any:
    with _DIRECT.open(url, timeout=10) as answer:
        return json.loads(answer.read())


def _finished_match(page: Any, server_url: str) -> str:
    """A 2-player match played to its end by the table's bots: its host (this page's
    browser keeps the seat's token) lets the 50 ms turn timer run out and is played for."""
    page.goto(server_url)
    created = page.evaluate(
        """async () => {
            const response = await fetch('/api/tables', {method: 'POST',
                headers: {'Content-Type': 'application/json'},
                body: JSON.stringify({name: 'Ann', players: 2, turn_seconds: 0.05,
                    hook_mode: 'fast', hook_seconds: 0.05, bot: 'greedy',
                    round_pause_seconds: 0})});
            const body = await response.json();
            localStorage.setItem(`414.table.${body.code}`,
                JSON.stringify({seat: body.seat, token: body.token}));
            return body;
        }"""
    )
    code = created["code"]
    with connect(server_url.replace("http", "ws", 1) + f"/ws/{code}") as socket:
        socket.send(json.dumps({"type": "hello", "protocol": 3, "token": created["token"]}))
        socket.send(json.dumps({"type": "fill_bots", "id": "bots"}))
        socket.send(json.dumps({"type": "start", "id": "go"}))
        while '"go"' not in str(socket.recv(timeout=10)):
            pass
    deadline = time.monotonic() + 60
    while _get(f"{server_url}/api/tables/{code}")["status"] != "finished":
        assert time.monotonic() < deadline, "the match did not end"
        time.sleep(0.1)
    return str(code)


def test_the_replay_shows_each_rounds_analysis_and_downloads_what_analyse_reads(
    analysing_server: str, new_page: Any, tmp_path: Path, axe_problems: Any
) -> None:
    server_url = analysing_server
    page = new_page("host", 1366, 657)
    code = _finished_match(page, server_url)
    # Rounds are analysed in the order they ended: once the last is, all are (the page would
    # ask again as the server's hint says, a second or more: the test saves that time;
    # asking moves the round first, so it is asked for once the match's rounds are queued).
    rounds = len(_get(f"{server_url}/api/tables/{code}/replays/1")["results"])
    deadline = time.monotonic() + 60
    while True:
        with contextlib.suppress(urllib.error.HTTPError):
            # (202 with the error analysis_pending while it is being made)
            if "error" not in _get(f"{server_url}/api/tables/{code}/analysis?round={rounds}"):
                break
        assert time.monotonic() < deadline, "the rounds were not analysed"
        time.sleep(0.1)
    page.goto(f"{server_url}/t/{code}")
    # The host's own decisions of the last round, at the table (everyone's are public now:
    # the list keeps the host's).
    mine = page.locator("[data-testid=my-analysis] [data-testid=analysis-item]")
    mine.first.wait_for(timeout=30_000)
    # each with the trick it was made in ("Leading the trick:" or "After ... :"), but a
    # tribute return, which comes before any trick
    tricks = page.locator("[data-testid=my-analysis] [data-testid=analysis-trick]")
    returns = page.locator("[data-testid=my-analysis] [data-decision=return]")
    assert tricks.count() == mine.count() - returns.count() > 0
    assert all(
        re.match(r"(Leading the trick|After .+):$", text) for text in tricks.all_inner_texts()
    )
    page.click("[data-testid=open-replay]")  # (the results dialog is shown)
    step = page.locator("[data-testid=replay-step]")
    step.wait_for()
    chart = page.locator("[data-testid=replay-analysis] [data-testid=win-chart]")
    chart.wait_for(timeout=30_000)  # (asked again as the server says, while it is made)
    assert chart.locator("polyline").count() == 2
    assert "Team A" in (chart.get_attribute("aria-label") or "")
    SHOTS.mkdir(parents=True, exist_ok=True)  # (to look at the graph: docs/analysis.md)
    chart.screenshot(path=str(SHOTS / "replay-graph.png"))
    page.click("[data-testid=replay-forward]")
    verdict = page.locator("[data-testid=replay-verdict] .analysis-label")
    assert verdict.get_attribute("data-label") in {"forced", "best", "good", *MARKED}

    # A round with marked moves: "Show me" takes the table to the move, labelled.
    options = page.locator("[data-testid=replay-round] option").all_inner_texts()
    items = page.locator("[data-testid=replay-analysis] [data-testid=analysis-item]")
    for label in options:
        page.select_option("[data-testid=replay-round]", label=label)
        chart.wait_for(timeout=30_000)
        if items.count():
            break
    else:
        raise AssertionError("no round has a marked move")
    round_number = int(re.search(r"\d+", label).group(0))  # type: ignore[union-attr]
    marked = items.last
    kind = marked.get_attribute("data-label")
    assert kind in MARKED
    assert "Better:" in marked.inner_text()
    assert marked.locator("[data-testid=analysis-trick]").count() == 1
    before = step.inner_text()
    marked.locator("[data-testid=show-me]").click()
    assert step.inner_text() != before
    assert verdict.get_attribute("data-label") == kind
    assert "Better:" in page.locator("[data-testid=replay-verdict]").inner_text()
    assert page.locator("[data-testid=win-chart-now]").count() == 1
    assert not axe_problems(page), axe_problems(page)

    # The downloaded replay is what `fouronefour analyse` reads; analysed with the server's
    # worlds and seed, it judges the round exactly as the server did.
    with page.expect_download() as download:
        page.click("[data-testid=replay-download]")
    replay = tmp_path / download.value.suggested_filename
    download.value.save_as(replay)
    out = tmp_path / "analysis.json"
    assert cli.main(
        ["analyse", str(replay), "--round", str(round_number), "--worlds", "2",
         "--json", str(out), "--out", str(tmp_path / "graph.png")]
    ) == 0  # fmt: skip
    served = _get(f"{server_url}/api/tables/{code}/analysis?round={round_number}")
    assert json.loads(out.read_text())["rounds"][0]["decisions"] == served["decisions"]
