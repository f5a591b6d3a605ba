"""The lesson API of the real app (docs/protocol.md section 2, "Lessons"): stateless, typed
errors for bad input, the replay off the event loop."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fouronefour import lessons
from fouronefour.server.config import ServerConfig
from fouronefour.server.routes import lessons as lesson_routes
from tests.server.conftest import ThreadServer

Client = httpx.Client


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    """The real app under uvicorn, and an HTTP client talking to it."""
    db = tmp_path_factory.mktemp("lessons-api") / "tables.db"
    config = ServerConfig(db=str(db), bot_processes=0, bot_delay=0.0)
    with ThreadServer(config) as server, httpx.Client(base_url=server.url, trust_env=False) as http:
        yield http


def _step(client: Client, lesson: str, body: Any) -> Any:
    return client.post(f"/api/lessons/{lesson}/step", json=body)


def test_the_lessons_are_listed_in_order(client: Client) -> None:
    answer = client.get("/api/lessons")
    assert answer.status_code == 200
    listed = answer.json()["lessons"]
    assert [entry["id"] for entry in listed] == list(lessons.lessons())
    first = listed[0]
    assert first["id"] == "order" and first["order"] == 1 and first["section"] == "2"
    assert first["title"]["zh"] == "牌的大小与级牌" and first["decisions"] == 3
    assert listed[-1]["decisions"] is None  # the whole round against bots


def test_a_lesson_is_played_step_by_step(client: Client) -> None:
    start = _step(client, "order", {"moves": [], "lang": "de"}).json()
    assert start["view"]["decision"] == "play" and start["view"]["hand"] == "275R"
    assert start["say"]["task"].startswith("Rechts hat ein A ausgespielt")
    assert start["feedback"] is None and start["moves"] == 0
    wrong = _step(client, "order", {"moves": [], "try": "2", "lang": "de"}).json()
    assert wrong["feedback"]["accepted"] is False and wrong["view"] == start["view"]
    assert wrong["feedback"]["text"].startswith("Auf Level 2 würde die 2")
    right = _step(client, "order", {"moves": [], "try": "5", "lang": "de"}).json()
    assert right["feedback"]["accepted"] is True and right["moves"] == 1
    assert right["view"]["top"] == "B"
    done = _step(client, "order", {"moves": ["5", "R"], "try": "2"}).json()
    assert done["done"] is True and done["say"]["done"].startswith("You know the order")


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"", "bad_json"),  # (protocol.md s.2: an empty body is bad_json, here too)
        (b"not json", "bad_json"),
        (b"[1, 2]", "bad_json"),
        (b'{"moves": "5"}', "bad_message"),
        (b'{"moves": [5]}', "bad_message"),
        (b'{"moves": [], "try": 5}', "bad_message"),
        (b'{"moves": [], "lang": "fr"}', "bad_message"),
        (b'{"moves": [], "colour": "red"}', "bad_message"),
        (b'{"moves": ["R"]}', "bad_message"),  # not the lesson's move
        (b'{"moves": ["5", "R", "2"], "try": "7"}', "bad_message"),  # the lesson is over
        (b'{"moves": [], "try": "' + b"3" * 65 + b'"}', "bad_message"),
        (b'{"moves": [' + b",".join([b'"pass"'] * 101) + b"]}", "bad_message"),
    ],
)
def test_bad_input_gets_a_typed_error_and_changes_nothing(
    client: Client, body: bytes, code: str
) -> None:
    before = _step(client, "order", {"moves": []}).json()
    answer = client.post(
        "/api/lessons/order/step", content=body, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == code and error["message"]
    assert _step(client, "order", {"moves": []}).json() == before


def test_a_body_over_the_limit_is_refused(client: Client) -> None:
    answer = client.post("/api/lessons/order/step", content=b'{"moves": ["' + b"3" * 5000 + b'"]}')
    assert answer.status_code == 413
    assert answer.json()["error"]["code"] == "too_large"


def test_an_unknown_lesson_is_not_found(client: Client) -> None:
    answer = _step(client, "chess", {"moves": []})
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "lesson_not_found"


def test_the_learn_pages_are_the_app(client: Client) -> None:
    page = (Path(lesson_routes.__file__).parents[2] / "web" / "index.html").read_text()
    for path in ("/learn", "/learn/hooking"):
        answer = client.get(path)
        assert answer.status_code == 200 and answer.text == page


def test_the_replay_runs_off_the_event_loop(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[bool] = []
    respond = lessons.respond

    def spy(*args: Any) -> dict[str, Any]:
        try:
            asyncio.get_running_loop()
            threads.append(False)
        except RuntimeError:  # no loop in this thread: a worker thread
            threads.append(True)
        return respond(*args)

    monkeypatch.setattr(lessons, "respond", spy)
    assert _step(client, "whole-round", {"moves": ["4"]}).status_code == 200
    assert threads == [True]


def test_steps_are_limited_per_client_address(tmp_path: Path) -> None:
    """Each step replays a lesson in a worker thread: one address may ask for STEP_BURST at
    once, then STEP_RATE a second; another address is not held up meanwhile."""
    config = ServerConfig(
        db=str(tmp_path / "tables.db"), bot_processes=0, bot_delay=0.0, limit_loopback=True
    )

    def client_from(server: ThreadServer, address: str) -> Client:
        transport = httpx.HTTPTransport(local_address=address)
        return httpx.Client(base_url=server.url, transport=transport, trust_env=False)

    with ThreadServer(config) as server, client_from(server, "127.0.0.2") as busy:
        # Tokens come back while the burst is asked for (a loaded machine may take seconds):
        # the steps granted are bounded by the burst and the rate over the time it took.
        began = time.monotonic()
        granted = 0
        while (refused := _step(busy, "order", {"moves": []})).status_code == 200:
            granted += 1
            assert granted <= 3 * lesson_routes.STEP_BURST, "no step was refused"
        seconds = time.monotonic() - began
        bound = lesson_routes.STEP_BURST + lesson_routes.STEP_RATE * seconds + 1
        assert lesson_routes.STEP_BURST <= granted <= bound, (granted, seconds)
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "rate_limited"
        assert int(refused.headers["Retry-After"]) >= 1
        with client_from(server, "127.0.0.3") as other:
            assert _step(other, "order", {"moves": []}).status_code == 200
