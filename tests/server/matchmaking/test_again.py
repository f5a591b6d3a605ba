"""Play again at the owner of the table that ended: real tables made by the server's
registry (a match played out by bots on a manual clock), offers proved by seat tokens."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from fouronefour.server.background.botrunner import InlineBotRunner
from fouronefour.server.clock import ManualScheduler
from fouronefour.server.config import ServerConfig
from fouronefour.server.errors import ErrorCode, TableError
from fouronefour.server.matchmaking.again import PlayAgain, rotated_seat
from fouronefour.server.matchmaking.tablemaker import Seated, Sitter, make_table
from fouronefour.server.notify import Notice
from fouronefour.server.registry import TableRegistry
from fouronefour.server.storage.sqlite import GroupCommitStorage
from fouronefour.server.tables.fanout import InProcessFanout
from fouronefour.server.tables.table import Table

from ..conftest import ThreadServer

OPTIONS = {"bot": "random", "turn_seconds": 5.0, "round_pause_seconds": 0.0}
PEOPLE = [Sitter("Ann", "pa"), Sitter("Bob", "pb"), Sitter("Cy", None), None]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


Scenario = Callable[[TableRegistry, ManualScheduler, Path], Awaitable[None]]


def run(tmp_path: Path, scenario: Scenario) -> None:
    async def go() -> None:
        storage = GroupCommitStorage(str(tmp_path / "tables.db"))
        scheduler = ManualScheduler()
        registry = TableRegistry(ServerConfig(seed=5), storage, InProcessFanout())
        await registry.start(scheduler, InlineBotRunner(lambda f: scheduler.call_later(0, f)))
        try:
            await scenario(registry, scheduler, tmp_path)
        finally:
            storage.close()

    asyncio.run(go())


async def finished(
    registry: TableRegistry,
    scheduler: ManualScheduler,
    people: Sequence[Sitter | None] = PEOPLE,
    **options: Any,
) -> tuple[Table, dict[int, Seated]]:
    """A table of ``people`` (None: a bot) whose match the bots played out (nobody acts)."""
    seats = await make_table(registry, people, {**OPTIONS, **options})
    table = registry.tables[seats[0].code]
    scheduler.run_until_idle()
    assert table.status == "finished"
    return table, seats


def maker(registry: TableRegistry) -> Callable[..., Awaitable[dict[int, Seated]]]:
    async def make(seats: Sequence[Sitter | None], options: dict[str, Any]) -> dict[int, Seated]:
        return await make_table(registry, seats, options)

    return make


def refused(code: ErrorCode, call: Callable[[], object]) -> None:
    with pytest.raises(TableError) as caught:
        call()
    assert caught.value.code is code


def test_rotation_changes_every_partner_and_comes_back_after_three() -> None:
    partners = set()
    seats = [0, 1, 2, 3]
    for _ in range(3):
        seats = [rotated_seat(s, 4) for s in seats]
        partner_of_first = next(p for p, s in enumerate(seats) if s == 2)
        partners.add(partner_of_first)
    assert partners == {1, 2, 3} and seats == [0, 1, 2, 3]


def test_the_same_people_play_again_rotated_those_who_decline_replaced_by_bots(
    tmp_path: Path,
) -> None:
    async def scenario(registry: TableRegistry, scheduler: ManualScheduler, _: Path) -> None:
        old, seats = await finished(registry, scheduler, rated=False)
        clock = Clock()
        again = PlayAgain(maker(registry), 30.0, clock)
        ann, bob, cy = (seats[i].token for i in range(3))
        # Only the host offers; a token that is no seat's is no player's.
        refused(ErrorCode.NOT_HOST, lambda: again.offer(old, {"token": bob}))
        refused(ErrorCode.NOT_SEATED, lambda: again.offer(old, {"token": "stranger"}))
        refused(ErrorCode.NOT_SEATED, lambda: again.look(old, {"token": None}))
        offered = again.offer(old, {"token": ann, "rotate": True})["offer"]
        assert offered["state"] == "open" and offered["rotate"] is True
        assert [p["answer"] for p in offered["people"]] == ["accepted", "waiting", "waiting"]
        refused(ErrorCode.WRONG_STATUS, lambda: again.offer(old, {"token": ann}))
        refused(ErrorCode.BAD_MESSAGE, lambda: again.answer(old, {"token": bob, "accept": 1}))
        again.answer(old, {"token": bob, "accept": True})
        refused(
            ErrorCode.ALREADY_ANSWERED, lambda: again.answer(old, {"token": bob, "accept": False})
        )
        # The last answer (a guest's: no profile, their token is their say) makes the table.
        again.answer(old, {"token": cy, "accept": False})
        await again.settled()
        bob_view = again.look(old, {"token": bob})["offer"]
        assert bob_view["state"] == "made"
        new_code = bob_view["table"]["code"]
        assert bob_view["table"]["seat"] == 2  # (rotated: seat 1 moves to 2)
        assert "table" not in again.look(old, {"token": cy})["offer"]  # (declined)
        new = registry.tables[new_code]
        assert new.status == "playing"
        # One new table a match: the host cannot offer again (tables made on demand).
        refused(ErrorCode.WRONG_STATUS, lambda: again.offer(old, {"token": ann}))
        # The old table plays on (its own Play again) and ends again: a new offer for it.
        old.play_again(old.host_seat)
        scheduler.run_until_idle()
        assert old.status == "finished" and old.match_number == 2
        assert again.look(old, {"token": bob}) == {"offer": None}
        refused(ErrorCode.WRONG_STATUS, lambda: again.answer(old, {"token": bob, "accept": True}))
        assert again.offer(old, {"token": ann})["offer"]["state"] == "open"
        assert [(s.kind, s.profile) for s in new.seats] == [
            ("human", "pa"),
            ("bot", None),
            ("human", "pb"),
            ("bot", None),
        ]
        assert new.seat_for_token(bob_view["table"]["token"]) == 2
        # The same options: casual stays casual, the bots and timers are the old ones.
        assert new.options.public() == old.options.public()
        assert new.settings.to_dict() == old.settings.to_dict()

    run(tmp_path, scenario)


def test_who_does_not_answer_in_time_is_replaced_and_rated_stays_rated(tmp_path: Path) -> None:
    async def scenario(registry: TableRegistry, scheduler: ManualScheduler, _: Path) -> None:
        old, seats = await finished(registry, scheduler, rated=True, private=True)
        clock = Clock()
        again = PlayAgain(maker(registry), 30.0, clock)
        again.offer(old, {"token": seats[0].token})  # (the same partners)
        clock.now += 31  # (Bob and Cy never answer)
        refused(
            ErrorCode.WRONG_STATUS,
            lambda: again.answer(old, {"token": seats[1].token, "accept": True}),
        )
        await again.settled()
        ann_view = again.look(old, {"token": seats[0].token})["offer"]
        assert ann_view["state"] == "made"
        assert [p["answer"] for p in ann_view["people"]] == ["accepted", "waiting", "waiting"]
        made = ann_view["table"]
        assert made["seat"] == 0 and made["invite"] and made["link"].endswith(made["invite"])
        new = registry.tables[made["code"]]
        assert new.options.rated and new.options.invite_hash is not None
        assert [s.kind for s in new.seats] == ["human", "bot", "bot", "bot"]
        # At a private table, a stranger's token finds no table at all (it stays hidden).
        refused(ErrorCode.TABLE_NOT_FOUND, lambda: again.look(old, {"token": "stranger"}))

    run(tmp_path, scenario)


class Told:
    """A notifier as Web Push is to the rooms (notify.py): here, what it was asked to send."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Notice]] = []

    async def notify(self, profile_id: str, notice: Notice) -> int:
        self.sent.append((profile_id, notice))
        return 1


def test_the_players_with_a_profile_are_told_of_the_offer(tmp_path: Path) -> None:
    async def scenario(registry: TableRegistry, scheduler: ManualScheduler, _: Path) -> None:
        old, seats = await finished(registry, scheduler)
        told = Told()
        again = PlayAgain(maker(registry), 30.0, Clock(), notifier=lambda: told)
        again.offer(old, {"token": seats[0].token})
        await again.settled()
        # Bob (a profile) is told; Cy (no profile) and Ann (who offered) are not.
        assert [(p, n.kind, n.url, n.params["from"]) for p, n in told.sent] == [
            ("pb", "invite", f"/t/{old.code}", "Ann")
        ]

    run(tmp_path, scenario)


def test_play_again_over_http_is_the_players_only(make_server: Callable[..., ThreadServer]) -> None:
    server = make_server()
    made = httpx.post(f"{server.url}/api/tables", json={"name": "Ann"}).json()
    code, token = made["code"], made["token"]
    stranger = httpx.post(f"{server.url}/api/tables/{code}/again", json={"token": "nope"})
    assert stranger.status_code == 400 and stranger.json()["error"]["code"] == "not_seated"
    early = httpx.post(f"{server.url}/api/tables/{code}/again", json={"token": token})
    assert early.status_code == 409 and early.json()["error"]["code"] == "wrong_status"
    view = httpx.post(f"{server.url}/api/tables/{code}/again/view", json={"token": token})
    assert view.json() == {"offer": None}
    answer = httpx.post(
        f"{server.url}/api/tables/{code}/again/answer", json={"token": token, "accept": True}
    )
    assert answer.json()["error"]["code"] == "wrong_status"
    nothing = httpx.post(f"{server.url}/api/tables/ZZZZZZ/again/view", json={"token": token})
    assert nothing.status_code == 404
