"""A hypothesis-driven fuzzer against a live table: random and mutated protocol messages.

Never a crash, never a changed game except by a legal move, always a typed answer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from fouronefour.server.errors import ErrorCode
from fouronefour.server.sockets import session

from .live import Conn, LiveServer, acting, open_raw, running, seated_table, table_summary

# (Not pause and resume: the host's connections would stop the table for the rest of the run;
# tests/server/test_round_end.py covers them.)
CLIENT_TYPES = sorted(session.CLIENT_TYPES - {"pause", "resume"})
SERVER_TYPES = {"welcome", "snapshot", "update", "ack", "error", "hint", "pong", "presence"}
CODES = {str(code) for code in ErrorCode}
#: Refusals after which the server closes the connection (docs/protocol.md section 6).
CLOSING = {"too_large", "hello_required", "bad_protocol", "bad_token", "rate_limited"}
CARDS = "2345678910TJQKABRpas"

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
move_texts = st.one_of(
    st.text(CARDS, max_size=9),
    st.sampled_from(
        ["pass", "PASS", "10", "1010", "BR", "BBRR", "3", "33", "345", "44A", " 3", "3 "]
    ),
    st.text(max_size=6),
)
messages = st.fixed_dictionaries(
    {"type": st.one_of(st.sampled_from(CLIENT_TYPES), st.text(max_size=8))},
    optional={
        "id": st.one_of(st.text(max_size=70), st.integers(), json_values),
        "move": st.one_of(move_texts, json_values),
        "v": st.one_of(st.integers(min_value=-5, max_value=10_000), json_values),
        "token": st.one_of(st.text(max_size=40), json_values),
        "since": st.one_of(st.integers(min_value=-5, max_value=10_000), json_values),
        "protocol": st.one_of(st.just(1), st.just(3), json_values),
        "seat": json_values,
        "text": st.one_of(st.text(max_size=30), json_values),
        "phrase": st.one_of(st.sampled_from(["wow", "good_luck", "gg"]), json_values),
        "from": json_values,
        "to": json_values,
    },
)
raw_payloads = st.one_of(
    st.binary(max_size=40),
    st.text(max_size=40),
    json_values.map(json.dumps),
    messages.map(json.dumps),
)


class Fuzzed:
    """The live table and its connections, kept across examples."""

    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self.runner = asyncio.Runner()
        self.code, self.tokens, self.conns = self.runner.run(
            seated_table(server, hooking=False, turn_seconds=3600)
        )
        # A second connection per seat and two spectators.
        self.conns += [self.runner.run(Conn.open(server.ws, self.code, t)) for t in self.tokens]
        self.conns += [self.runner.run(Conn.open(server.ws, self.code)) for _ in range(2)]
        self.legal_moves = 0
        self.chat_lines = 0

    def seat_of(self, index: int) -> int | None:
        return index % 4 if index < 8 else None

    def reopen(self, index: int) -> None:
        token = self.tokens[index % 4] if index < 8 else None
        self.conns[index] = self.runner.run(Conn.open(self.server.ws, self.code, token))

    def close(self) -> None:
        for conn in self.conns:
            self.runner.run(conn.close())
        self.runner.close()


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    where: Path = tmp_path_factory.mktemp("fuzz")
    # No message rate limit to keep under (tests/server_faults/test_hostile.py and
    # test_abuse.py test it): the examples follow each other at once.
    extra = ("--rate", "10000", "--rate-burst", "10000")
    with running(LiveServer(where / "t.db", where / "server.log", extra=extra)) as server:
        table = Fuzzed(server)
        yield table
        table.close()
        assert server.alive()
    assert "Traceback" not in server.log_text()


def _mutations(data: st.DataObject, fuzzed: Fuzzed) -> tuple[int, str]:
    """A message built from the acting seat's real prompt, valid or slightly wrong."""
    mover = acting(fuzzed.conns[:4])
    index = fuzzed.conns.index(mover)
    you = mover.you
    assert you is not None
    body: dict[str, Any] = {
        "type": "move",
        "id": data.draw(st.text(max_size=10)),
        "v": mover.version,
        # Fixed-range draws: the prompt is live state, not part of hypothesis's data.
        "move": you["legal_moves"][data.draw(st.integers(0, 999)) % len(you["legal_moves"])],
    }
    mutation = data.draw(
        st.sampled_from(["none", "none", "v-1", "v+1", "drop", "add", "reverse", "other seat"])
    )
    if mutation == "v-1":
        body["v"] -= 1 + you["prompt_v"] - (mover.version or 0)
    elif mutation == "v+1":
        body["v"] += 1
    elif mutation == "drop" and len(body["move"]) > 1:
        body["move"] = body["move"][1:]
    elif mutation == "add":
        body["move"] += data.draw(st.sampled_from(list("3TAR")))
    elif mutation == "reverse":
        body["move"] = body["move"][::-1]
    elif mutation == "other seat":
        index = (index + data.draw(st.integers(1, 3))) % 4
    return index, orjson.dumps(body).decode()


@settings(
    max_examples=250,
    deadline=None,
    # Examples act on one live table, so a failing one cannot be replayed or shrunk alone.
    phases=[Phase.generate],
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_fuzzed_messages_get_typed_answers_and_change_nothing_illegal(
    fuzzed: Fuzzed, data: st.DataObject
) -> None:
    server = fuzzed.server
    kind = data.draw(st.sampled_from(["raw", "raw", "prompt", "fresh", "chat"]))
    if kind == "prompt" and not any(c.you and c.you["decision"] for c in fuzzed.conns[:4]):
        kind = "raw"  # an end-of-round pause: nobody to prompt
    if kind == "prompt":
        index, payload = _mutations(data, fuzzed)
    elif kind == "chat":  # a chat line, often a fine one, from anyone
        index = data.draw(st.integers(0, len(fuzzed.conns) - 1))
        line = data.draw(
            st.one_of(
                st.fixed_dictionaries({"text": st.text(max_size=210)}),
                st.fixed_dictionaries({"phrase": st.sampled_from(["wow", "thanks", "hi"])}),
            )
        )
        payload = orjson.dumps({"type": "chat", "id": "c", **line}).decode()
    else:
        index = data.draw(st.integers(0, len(fuzzed.conns) - 1))
        payload = data.draw(raw_payloads)
    conn = fuzzed.conns[index]
    if conn.closed:
        fuzzed.reopen(index)
        conn = fuzzed.conns[index]
    before = table_summary(server, fuzzed.code)["version"]
    seat = fuzzed.seat_of(index)
    legal_before = list(conn.you["legal_moves"]) if seat is not None and conn.you else []
    if kind == "fresh":  # the payload as the very first message of a new connection
        conn = fuzzed.runner.run(_fresh(f"{server.ws}/ws/{fuzzed.code}"))
        replies = fuzzed.runner.run(conn.ask(payload, timeout=5))
        fuzzed.runner.run(conn.close())
    else:
        replies = fuzzed.runner.run(conn.ask(payload, timeout=5))

    assert server.alive(), "the server died"
    for reply in replies:
        assert reply["type"] in SERVER_TYPES, reply
        if reply["type"] == "error":
            assert reply["code"] in CODES, reply
            assert isinstance(reply["message"], str) and reply["message"]
    errors = [r for r in replies if r["type"] == "error"]
    acks = [r for r in replies if r["type"] == "ack"]
    if conn.closed and kind != "fresh":
        assert any(e["code"] in CLOSING for e in errors) or conn.close_code == 1009, replies
    if not replies:
        # Only a hint may answer after the sentinel (a bot thinks in a thread).
        assert _type_of(payload) in ("hint", "ping"), payload
    after = table_summary(server, fuzzed.code)["version"]
    if after != before:
        # The only ways to change the table: a legal move of the acting seat, or a player's
        # chat line, acknowledged (the others are refused: wrong status, not the host).
        assert len(acks) == 1, (payload, replies)
        if _type_of(payload) == "chat":
            assert acks[0]["move"] is None and seat is not None, (payload, replies)
            fuzzed.chat_lines += 1
        else:
            assert acks[0]["move"] in legal_before, (acks[0], legal_before)
            fuzzed.legal_moves += 1
        assert after == acks[0]["v"]
        for other in fuzzed.conns:
            if not other.closed:
                fuzzed.runner.run(
                    other.wait_for(lambda m: m["type"] == "update" and m["v"] >= after)
                )
    else:
        assert not [a for a in acks if a.get("move")], (payload, replies)


async def _fresh(url: str) -> Conn:
    return Conn(await open_raw(url))


def _type_of(payload: str | bytes) -> Any:
    try:
        decoded = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None
    return decoded.get("type") if isinstance(decoded, dict) else None


def test_the_fuzzer_also_made_legal_moves(fuzzed: Fuzzed) -> None:
    """The fuzzer is only worth something if valid moves got through too (runs after it)."""
    assert fuzzed.legal_moves > 5
    assert fuzzed.chat_lines > 0
