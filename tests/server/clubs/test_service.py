"""The clubs' service over a real database (SQLite and PostgreSQL): who may do what, the
invite link, kicks and bans, the limits, the owner's hand-over, the chat wall and its week,
the leaderboard and history, and a profile's club data exported and forgotten. Each test
tries the abuse it names and checks that a refusal changed nothing."""

from __future__ import annotations

from typing import Any

import pytest

from fouronefour.server.clubs import service as club_service
from fouronefour.server.clubs import store as club_store
from fouronefour.server.clubs.errors import ClubCode, ClubError
from fouronefour.server.errors import ErrorCode
from fouronefour.server.players.values import MatchRecord, MatchSeat

from .conftest import Scenario, World

DAY = 86_400.0


async def refused(code: object, work: Any) -> ClubError:
    with pytest.raises(ClubError) as caught:
        await work
    assert caught.value.code == code, caught.value.message
    return caught.value


async def club_of(w: World, owner: str, *members: str, name: str = "Thursday") -> dict[str, Any]:
    """A club made by ``owner`` that ``members`` joined by its link."""
    await w.profile(owner)
    club = await w.clubs.create(owner, name)
    for member in members:
        await w.profile(member)
        await w.clubs.join(member, club["invite"])
    return club


def test_a_club_is_made_and_its_name_is_checked_user_content(world: Scenario[object]) -> None:
    async def scenario(w: World) -> None:
        await w.profile("ann")
        for bad in ("", " x ", "x" * 41, "two\nlines", "\u202eevil", "a\x00b", "\u200b\u200b", 7):
            await refused(ClubCode.BAD_CLUB_NAME, w.clubs.create("ann", bad))
        assert await w.clubs.mine("ann") == []
        club = await w.clubs.create("ann", "  <b onclick=x>Club</b>  ")
        # Kept as typed (trimmed): the page escapes it, it is never markup.
        assert club["name"] == "<b onclick=x>Club</b>"
        assert club["role"] == "owner"
        assert [m["id"] for m in club["members"]] == ["ann"]
        assert await w.clubs.mine("ann") == [
            {"id": club["id"], "name": club["name"], "role": "owner", "members": 1}
        ]
        renamed = await w.clubs.change(club["id"], "ann", {"name": "Thursday 414"})
        assert renamed["name"] == "Thursday 414"
        await refused(ClubCode.BAD_CLUB_NAME, w.clubs.change(club["id"], "ann", {"name": "\n"}))
        await refused(ClubCode.BAD_CLUB_SETTINGS, w.clubs.change(club["id"], "ann", {"x": 1}))

    world(scenario)


def test_roles_for_the_other_rooms_and_what_non_members_learn(world: Scenario[object]) -> None:
    async def scenario(w: World) -> None:
        club = await club_of(w, "ann", "bob")
        cid = club["id"]
        await w.profile("eve")
        assert await w.clubs.role(cid, "ann") == "owner"
        assert await w.clubs.role(cid, "bob") == "member"
        assert await w.clubs.role(cid, "eve") is None
        assert await w.clubs.role("no-such-club", "ann") is None
        assert await w.clubs.role("../../etc", "ann") is None
        assert sorted(await w.clubs.member_ids(cid)) == ["ann", "bob"]
        assert await w.clubs.member_ids("nothing") == []
        # A stranger learns nothing: the same answer as for no club at all.
        for work in (
            w.clubs.page(cid, "eve"),
            w.clubs.chat(cid, "eve"),
            w.clubs.say(cid, "eve", "hi"),
            w.clubs.leaderboard(cid, "eve"),
            w.clubs.history(cid, "eve"),
            w.clubs.leave(cid, "eve"),
            w.clubs.page("nothing", "eve"),
        ):
            await refused(ClubCode.CLUB_NOT_FOUND, work)

    world(scenario)


def test_admin_only_actions_are_refused_to_members(world: Scenario[object]) -> None:
    async def scenario(w: World) -> None:
        club = await club_of(w, "ann", "bob", "cat", "dan")
        cid = club["id"]
        for work in (
            w.clubs.promote(cid, "bob", "cat"),
            w.clubs.demote(cid, "bob", "cat"),
            w.clubs.kick(cid, "bob", "cat"),
            w.clubs.ban(cid, "bob", "cat"),
            w.clubs.unban(cid, "bob", "cat"),
            w.clubs.rotate_invite(cid, "bob"),
            w.clubs.change(cid, "bob", {"name": "Mine now"}),
            w.clubs.kick(cid, "bob", "ann"),
        ):
            await refused(ClubCode.NOT_ALLOWED, work)
        page = await w.clubs.page(cid, "bob")
        assert "banned" not in page  # (admins' only)
        assert page["name"] == "Thursday" and page["invite"] == club["invite"]
        # The owner makes Bob an admin: he acts on members, never on an admin or the owner.
        await w.clubs.promote(cid, "ann", "bob")
        assert await w.clubs.role(cid, "bob") == "admin"
        await w.clubs.promote(cid, "bob", "cat")
        for work in (
            w.clubs.demote(cid, "bob", "cat"),
            w.clubs.kick(cid, "bob", "cat"),
            w.clubs.kick(cid, "bob", "ann"),
            w.clubs.ban(cid, "bob", "ann"),
            w.clubs.kick(cid, "bob", "bob"),
        ):
            await refused(ClubCode.NOT_ALLOWED, work)
        await w.clubs.demote(cid, "ann", "cat")
        assert await w.clubs.role(cid, "cat") == "member"
        await w.clubs.kick(cid, "bob", "dan")
        assert await w.clubs.role(cid, "dan") is None
        assert [m["role"] for m in (await w.clubs.page(cid, "ann"))["members"]] == [
            "owner",
            "admin",
            "member",
        ]

    world(scenario)


def test_banned_never_rejoin_kicked_only_by_a_new_link(world: Scenario[object]) -> None:
    async def scenario(w: World) -> None:
        club = await club_of(w, "ann", "bob", "cat")
        cid, old = club["id"], club["invite"]
        await w.clubs.ban(cid, "ann", "bob")
        await w.clubs.kick(cid, "ann", "cat")
        await refused(ClubCode.BARRED, w.clubs.join("bob", old))
        await refused(ClubCode.BARRED, w.clubs.join("cat", old))
        assert [b["id"] for b in (await w.clubs.page(cid, "ann"))["banned"]] == ["bob"]
        new = (await w.clubs.rotate_invite(cid, "ann"))["invite"]
        assert new != old
        # The old link is dead for everyone; the new one lets the kicked back, not the banned.
        await w.profile("dan")
        await refused(ClubCode.BAD_INVITE, w.clubs.join("dan", old))
        await refused(ClubCode.BAD_INVITE, w.clubs.preview(old))
        await refused(ClubCode.BARRED, w.clubs.join("bob", new))
        assert (await w.clubs.join("cat", new))["role"] == "member"
        await refused(ClubCode.ALREADY_MEMBER, w.clubs.join("cat", new))
        assert await w.clubs.role(cid, "bob") is None
        await w.clubs.unban(cid, "ann", "bob")
        await refused(ClubCode.NOT_MEMBER, w.clubs.unban(cid, "ann", "bob"))
        assert (await w.clubs.join("bob", new))["role"] == "member"
        for bad in ("", "x" * 65, None, 5, "a/b"):
            await refused(ClubCode.BAD_INVITE, w.clubs.join("dan", bad))
        assert (await w.clubs.preview(new))["members"] == 4 - 1 + 0  # ann, cat, bob

    world(scenario)


def test_limits_on_clubs_and_members(world: Scenario[object], monkeypatch: Any) -> None:
    monkeypatch.setattr(club_service, "MAX_CLUBS", 2)
    monkeypatch.setattr(club_store, "MAX_CLUBS", 2)
    monkeypatch.setattr(club_store, "MAX_MEMBERS", 3)

    async def scenario(w: World) -> None:
        club = await club_of(w, "ann", "bob", "cat")
        await w.profile("dan")
        await refused(ClubCode.CLUB_FULL, w.clubs.join("dan", club["invite"]))
        await w.clubs.create("ann", "Second")
        await refused(ClubCode.TOO_MANY_CLUBS, w.clubs.create("ann", "Third"))
        other = await w.clubs.create("dan", "Dan's")
        await refused(ClubCode.TOO_MANY_CLUBS, w.clubs.join("ann", other["invite"]))
        assert len(await w.clubs.mine("ann")) == 2
        assert await w.clubs.member_ids(other["id"]) == ["dan"]

    world(scenario)


def test_changes_are_throttled_per_profile(world: Scenario[object]) -> None:
    async def scenario(w: World) -> None:
        await w.profile("ann")
        made = 0
        with pytest.raises(ClubError) as caught:
            for n in range(50):
                club = await w.clubs.create("ann", f"Club {n}")
                await w.clubs.leave(club["id"], "ann")
                made += 1
        assert caught.value.code == ErrorCode.RATE_LIMITED and caught.value.retry_after
        assert made == 20  # the burst (throttle.py), then one every 3 s
        w.clock.now += 3
        await w.clubs.create("ann", "After a wait")

    world(scenario)


def test_the_owner_hands_the_club_on_when_leaving_or_deleted(world: Scenario[object]) -> None:
    async def scenario(w: World) -> None:
        club = await club_of(w, "ann", "bob", "cat", "dan")
        cid = club["id"]
        await w.clubs.promote(cid, "ann", "cat")
        await w.clubs.leave(cid, "ann")  # an admin first, though Bob joined before Cat
        assert await w.clubs.role(cid, "cat") == "owner"
        await w.clubs.say(cid, "cat", "bye all")
        assert (await w.clubs.export("cat"))["chat"][0]["text"] == "bye all"
        # Cat deletes her profile: the longest member (Bob) owns it; her lines go.
        await w.players.delete_profile("cat")
        await w.clubs.forget("cat")
        assert await w.clubs.role(cid, "bob") == "owner"
        assert await w.clubs.chat(cid, "bob") == []
        assert await w.clubs.export("cat") == {
            "memberships": [],
            "barred": [],
            "chat": [],
            "tables": [],
        }
        await w.clubs.leave(cid, "bob")
        await w.clubs.leave(cid, "dan")  # the last one: the club goes
        assert await w.clubs.store.get(cid) is None
        await refused(ClubCode.BAD_INVITE, w.clubs.join("ann", club["invite"]))

    world(scenario)


def test_guests_forgotten_by_the_players_tidying_leave_their_clubs(
    world: Scenario[object],
) -> None:
    async def scenario(w: World) -> None:
        club = await club_of(w, "ann", "bob")
        await w.clubs.say(club["id"], "bob", "hello")
        # (The players' own pass deletes a guest not seen for 90 days: it knows no clubs.)
        forgotten = await w.players.forget_guests(int(w.clock.now * 1000) + 1, 0, 10)
        assert forgotten == 2
        await w.profile("cat")
        await w.clubs.tidy()
        assert await w.clubs.store.get(club["id"]) is None
        assert await w.clubs.store.deleted_members(10) == []

    world(scenario)


def test_the_chat_wall_keeps_a_week_with_table_chat_limits(world: Scenario[object]) -> None:
    async def scenario(w: World) -> None:
        club = await club_of(w, "ann", "bob")
        cid = club["id"]
        for bad in ("", "   ", "x" * 201, "a\nb", "\u202eevil", None, 3):
            await refused(ClubCode.BAD_CHAT, w.clubs.say(cid, "ann", bad))
        said = await w.clubs.say(cid, "ann", "  <script>alert(1)</script>  ")
        assert said["text"] == "<script>alert(1)</script>"
        # A flood: a table chat's burst of 5 lines, then one every 2 s.
        for n in range(4):
            await w.clubs.say(cid, "ann", f"line {n}")
        error = await refused(ErrorCode.RATE_LIMITED, w.clubs.say(cid, "ann", "one more"))
        assert error.retry_after is not None and 0 < error.retry_after <= 2
        await w.clubs.say(cid, "bob", "Bob has his own bucket")
        lines = await w.clubs.chat(cid, "bob")
        assert [line["name"] for line in lines] == ["Ann"] * 5 + ["Bob"]
        # A week later the first lines are gone, from the wall and from the database.
        w.clock.now += 3 * DAY
        await w.clubs.say(cid, "bob", "three days on")
        w.clock.now += 4 * DAY + 1
        assert [line["text"] for line in await w.clubs.chat(cid, "ann")] == ["three days on"]
        assert await w.clubs.tidy() == 6
        assert await w.clubs.tidy() == 0

    world(scenario)


def test_a_whole_club_cannot_flood_its_wall(world: Scenario[object]) -> None:
    async def scenario(w: World) -> None:
        members = [f"m{n}" for n in range(10)]
        club = await club_of(w, "ann", *members)
        said = 0
        with pytest.raises(ClubError):
            for _ in range(5):
                for member in members:
                    await w.clubs.say(club["id"], member, "spam")
                    said += 1
        assert said == 30  # the club's own bucket

    world(scenario)


def seat(n: int, pid: str | None, rank: int, bot: str | None = None) -> MatchSeat:
    return MatchSeat(n, n % 2, pid or "Bot", rank, None, pid, bot)


def test_leaderboard_results_among_members_and_history(world: Scenario[object]) -> None:
    async def scenario(w: World) -> None:
        club = await club_of(w, "ann", "bob", "cat")
        cid = club["id"]
        await w.profile("eve")  # not a member
        now = int(w.clock.now * 1000)
        await w.clubs.store.add_table(cid, "CLUBA1", "secret", now)
        matches = [
            # At the club's table: Ann and Cat win against Bob and a bot.
            MatchRecord("CLUBA1", 1, now + 10, True,
                        (seat(0, "ann", 1), seat(1, "bob", 2), seat(2, "cat", 1),
                         seat(3, None, 2, "strong"))),
            # Elsewhere, Bob with Eve (no other member): not among members, not history.
            MatchRecord("OTHER1", 1, now + 20, True,
                        (seat(0, "bob", 1), seat(1, "eve", 2))),
            # Elsewhere, Ann and Bob together: among members, not the club's history.
            MatchRecord("OTHER2", 1, now + 30, False,
                        (seat(0, "ann", 2), seat(1, "bob", 1))),
        ]  # fmt: skip
        before = await w.clubs.leaderboard(cid, "bob")  # (read once: kept 30 s)
        assert [row["among"] for row in before] == [{"matches": 0, "wins": 0}] * 3
        for record in matches:
            await w.players.record_match(record)
        assert [row["among"] for row in await w.clubs.leaderboard(cid, "bob")] == [
            {"matches": 0, "wins": 0}
        ] * 3
        w.clock.now += 31
        board = await w.clubs.leaderboard(cid, "bob")
        by_id = {row["id"]: row for row in board}
        assert set(by_id) == {"ann", "bob", "cat"}
        assert by_id["ann"]["among"] == {"matches": 2, "wins": 1}
        assert by_id["bob"]["among"] == {"matches": 2, "wins": 1}
        assert by_id["cat"]["among"] == {"matches": 1, "wins": 1}
        ordinals = [row["rating"]["ordinal"] for row in board]
        assert ordinals == sorted(ordinals, reverse=True)
        assert [row["rank"] for row in board] == [1, 2, 3]
        history = await w.clubs.history(cid, "cat")
        assert [(h["code"], h["number"]) for h in history] == [("CLUBA1", 1)]
        assert history[0]["kind"] == "match"  # (beside the events' final tables: "event")
        assert [s["profile"] for s in history[0]["seats"]] == ["ann", "bob", "cat", None]
        # A deleted member's seat stays in the history as a former player's.
        await w.players.delete_profile("cat")
        await w.clubs.forget("cat")
        seats = (await w.clubs.history(cid, "ann"))[0]["seats"]
        assert seats[2]["former"] is True and seats[2]["profile"] is None
        assert seats[2]["name"] == "a former player"

    world(scenario)
