"""The players' rules as tables of cases: names, usernames, device codes, passwords,
ratings (players/names.py, tokens.py, passwords.py, ratings.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fouronefour.bots import levels
from fouronefour.server.players import tokens
from fouronefour.server.players.errors import PlayerError
from fouronefour.server.players.names import check_display_name, check_password, check_username
from fouronefour.server.players.passwords import MEMORY_KIB, TIME_COST, Passwords
from fouronefour.server.players.ratings import NEWCOMER, bot_rating, rate
from fouronefour.server.players.values import MatchRecord, MatchSeat


@pytest.mark.parametrize(
    "name",
    ["Ann", "Zoë", "王小明", "Botticelli", "Robert", "Tu", "Du", "Ann (host's friend)", "R2-D2",
     "<script>", "🂡 ace"],
)  # fmt: skip
def test_names_people_have(name: str) -> None:
    assert check_display_name(f" {name} ") == name


@pytest.mark.parametrize(
    "name",
    ["you", "YOU", "(you)", "Ann (you)", "Ann(You)", "Ann (du)", "Ann (你)", "你", "आप",
     "Bot 3", "bot3", "BOT 12", "Bot", "Bot ３", "B o t 4", "Bot-7", "机器人 2", "बॉट 1",
     "Seat 2", "Beginner", "casual", "Strong bot", "Bot Expert", "Experte", "专家",
     "", "   ", "x" * 25, "a\nb", "\u202eevil", "\u200d", "e\u0301\u0301\u0301\u0301\u0301",
     None, 3],
)  # fmt: skip
def test_names_that_pass_for_the_game_or_hide(name: object) -> None:
    with pytest.raises(PlayerError) as refused:
        check_display_name(name)
    assert refused.value.code == "bad_name"


@pytest.mark.parametrize(
    ("username", "kept"),
    [("Ann", "ann"), ("ann_1", "ann_1"), ("a.b-c", "a.b-c"), ("abc", "abc"),
     ("ab", None), ("_ann", None), ("ann ann", None), ("аnn", None), ("x" * 25, None), (7, None)],
)  # fmt: skip
def test_usernames(username: object, kept: str | None) -> None:
    if kept is None:
        with pytest.raises(PlayerError):
            check_username(username)
    else:
        assert check_username(username) == kept


def test_passwords_length_and_argon2id() -> None:
    for bad in ("short", "x" * 257, None):
        with pytest.raises(PlayerError):
            check_password(bad)
    hasher = Passwords(time_cost=1, memory_kib=1024)
    stored = hasher.hash("correct horse")
    assert stored.startswith("$argon2id$")
    assert hasher.verify(stored, "correct horse") and not hasher.verify(stored, "wrong horse")
    assert not hasher.verify(None, "no password is this one")  # (the decoy's own password)
    assert not hasher.verify("not a hash", "x")
    # A hash made with older (cheaper) parameters is made again at the next sign-in.
    assert Passwords().needs_rehash(stored)
    assert f"m={MEMORY_KIB},t={TIME_COST},p=1" in Passwords().hash("x" * 8)


def test_device_codes_and_tokens() -> None:
    codes = {tokens.new_device_code() for _ in range(1000)}
    assert len(codes) == 1000
    for code in codes:
        assert tokens.normal_code(code.lower().replace("-", " ")) == code
    assert tokens.normal_code("ABCDE-FGHJ0") is None  # 0 is not in the alphabet
    assert tokens.normal_code("ABCDE") is None
    assert len(tokens.CODE_ALPHABET) ** tokens.CODE_LENGTH > 2**49
    token = tokens.new_token()
    assert len(token) >= 43 and tokens.token_hash(token) != token
    assert tokens.csrf_token(token) != tokens.csrf_token(tokens.new_token())


def seats(*who: tuple[int, int, str | None, str | None]) -> tuple[MatchSeat, ...]:
    """(team, rank, profile, bot level) a seat."""
    return tuple(
        MatchSeat(i, team, f"S{i}", rank, profile_id=pid, bot_level=bot)
        for i, (team, rank, pid, bot) in enumerate(who)
    )


def test_winners_go_up_losers_down_bots_stay() -> None:
    record = MatchRecord("R", 1, 0, True, seats(
        (0, 1, "ann", None), (1, 2, None, "expert"), (0, 1, None, "beginner"), (1, 2, "bob", None)
    ))  # fmt: skip
    after = rate(record, {})
    assert set(after) == {"ann", "bob"}
    assert after["ann"].mu > NEWCOMER.mu > after["bob"].mu
    assert after["ann"].sigma < NEWCOMER.sigma and after["ann"].matches == 1

    # Beating a stronger bot team gains more than beating a weaker one.
    def against(level: str) -> MatchRecord:
        return MatchRecord("R", 2, 0, True, seats(
            (0, 1, "ann", None), (1, 2, None, level), (0, 1, None, "beginner"), (1, 2, None, level)
        ))  # fmt: skip

    weaker, stronger = against("beginner"), against("expert")
    assert rate(stronger, {})["ann"].mu > rate(weaker, {})["ann"].mu
    measured = json.loads((Path(levels.__file__).parent / "levels.json").read_text())
    assert bot_rating("strong").mu == measured["ratings"]["strong"]["mu"]  # (bench/levels.py's)
    assert bot_rating("random") == NEWCOMER


def test_any_team_size_and_count() -> None:
    six = MatchRecord("R", 1, 0, True, seats(
        *[(i % 3, i % 3 + 1, f"p{i}", None) for i in range(6)]
    ))  # fmt: skip
    after = rate(six, {})
    assert after["p0"].mu > after["p1"].mu > after["p2"].mu
    duel = MatchRecord("R", 2, 0, True, seats((0, 2, "a", None), (1, 1, "b", None)))
    assert rate(duel, {})["b"].mu > rate(duel, {})["a"].mu


def test_no_rating_change_for_casual_or_one_team() -> None:
    casual = MatchRecord("R", 1, 0, False, seats((0, 1, "a", None), (1, 2, "b", None)))
    one_team = MatchRecord("R", 1, 0, True, seats((0, 1, "a", None), (0, 1, "b", None)))
    assert rate(casual, {}) == {} and rate(one_team, {}) == {}


def test_an_unknown_username_costs_one_verification_not_a_hash_too() -> None:
    """The decoy hash for unknown usernames is made beforehand: the first unknown name's
    answer takes no longer than the others' (made lazily, it took a hash and a check)."""
    hasher = Passwords(time_cost=1, memory_kib=1024)
    real = hasher._hasher

    class VerifyOnly:
        def verify(self, stored: str, password: str) -> bool:
            return real.verify(stored, password)

        def hash(self, password: str) -> str:
            raise AssertionError("hashed while answering a sign-in")

    hasher._hasher = VerifyOnly()  # type: ignore[assignment]
    assert not hasher.verify(None, "whatever1")
