"""Shared fixtures: greedy-played matches, and one as the replay viewer downloads it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import fouronefour as ff
from fouronefour import bots
from fouronefour.server.storage import StoredMatch
from fouronefour.server.tables.replays import build_replay

NAMES = ["Ann", "Bob", "Cleo", "Dan"]


def play_match(seed: int, rounds: int | None = None) -> ff.Match:
    """A match of greedy (even seats) against random (odd seats), to its end or for
    ``rounds`` rounds."""
    players = [bots.get("greedy"), bots.get("random")]
    rng = random.Random(seed)
    match = ff.Match(ff.Rules(), seed=seed)
    while not match.is_over and (rounds is None or len(match.results) < rounds):
        seat = match.round.to_act
        assert seat is not None
        move = players[seat % 2].choose(match.view(seat), match.round.legal_moves(), rng)
        match = match.apply(move)
    return match


@pytest.fixture(scope="session")
def finished_match() -> ff.Match:
    return play_match(11)


@pytest.fixture(scope="session")
def replay_file(tmp_path_factory: pytest.TempPathFactory, finished_match: ff.Match) -> Path:
    """A finished match's replay JSON, built by the server's own replay builder."""
    stored = StoredMatch(
        number=1,
        seed=finished_match.seed,  # type: ignore[arg-type]
        rules=finished_match.rules.to_dict(),
        moves=finished_match.moves,
        over=True,
    )
    seats = [{"seat": s, "name": name, "kind": "bot"} for s, name in enumerate(NAMES)]
    path = tmp_path_factory.mktemp("replay") / "match.json"
    path.write_text(json.dumps(build_replay("K7M2QX", stored, seats)))
    return path
