"""An update's messages: the public one for spectators and seats with nothing new, each
seat's own (its ``you`` spliced in) encoded once, when first asked for."""

from __future__ import annotations

import orjson

from fouronefour.server.tables.model import Update


def test_each_seat_gets_the_public_message_with_only_its_own_you() -> None:
    events = [{"type": "play", "seat": 1, "move": "3"}]
    state = {"status": "playing", "turn": 2}
    you = {
        1: {"seat": 1, "hand": "4455", "decision": None, "legal_moves": []},
        2: {"seat": 2, "hand": "99K", "decision": "play", "legal_moves": ["9", "K"]},
    }
    update = Update(7, 123, events, state, dict(you))  # (the update's own)
    public = orjson.loads(update.public)
    assert public == {
        "type": "update",
        "v": 7,
        "server_time": 123,
        "events": events,
        "state": state,
    }
    assert update.message(None) == update.public
    assert update.message(0) == update.public  # nothing private changed for seat 0
    for seat in (2, 1):
        first = update.message(seat)
        assert orjson.loads(first) == {**public, "you": you[seat]}
        assert update.message(seat) is first  # encoded once
    assert b"99K" not in update.message(1) and b"4455" not in update.message(2)


def test_an_encoded_update_sends_the_same_bytes_to_every_seat() -> None:
    """What crosses the broker is the update itself: decoded in another process it gives
    each seat and spectators exactly what the publishing process would have sent."""
    you = {1: {"seat": 1, "hand": "4455"}, 3: {"seat": 3, "hand": "é中"}}
    update = Update(2**40, 5, [{"type": "pass", "seat": 0}], {"turn": 1}, dict(you))
    first = update.message(1)  # one encoded before, one not: both travel
    copy = Update.decode(update.encode())
    assert copy.v == update.v
    for seat in (None, 0, 1, 2, 3):
        assert copy.message(seat) == update.message(seat)
    assert copy.message(1) == first


def test_anything_else_is_refused_as_an_update() -> None:
    encoded = Update(1, 0, [], None, {0: {"seat": 0}}).encode()
    for bad in (b"", b"update", encoded[:-1], encoded + b"x"):
        try:
            Update.decode(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} was decoded")
