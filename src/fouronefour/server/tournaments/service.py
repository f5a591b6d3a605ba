"""An event from its setup to its last table (docs/tournaments.md): an admin of the club
sets it up, members register, an admin starts it; then each pass (:meth:`Tournaments.step`,
about every second, one process of a cluster a pass) it pairs the next round, makes its
tables through the registry with the players seated by profile, starts each table once its
players are there or the grace time is over (the absent seats are played by bots until
their player comes: the seat is away), reads each table's result when its length decides
it, and finishes after the last round. Everything is in the store, so a restart (or another
process) goes on where it was.

A table's match is as long as the event's (the rules' ``goal``: one round, or until a side
reaches a level): the table ends when its result in the event is decided.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...engine import Match
from ..background.botrunner import available_bots
from ..errors import ErrorCode, TableError
from ..notify import Notice, Notifier
from ..outage import Outage
from ..registry import Elsewhere, TableRegistry, default_bot
from ..storage import Storage, StorageError, StoredTable
from ..tables.invites import new_invite
from ..tables.model import TableOptions, check_name
from ..tables.table import Table
from ..turns import keep_taking_turns
from . import pairing
from .access import ADMINS, ClubAccess
from .errors import EventCode, EventError
from .history import final_rows
from .lengths import decided
from .standings import Result, Standing, standings
from .store import EventStore, Full, Taken
from .values import MAX_ENTRANTS, Event, Game, Player, check_setup

if TYPE_CHECKING:
    from ..cluster.broker import Broker

log = logging.getLogger(__name__)

#: How often running events are stepped (a table's start and result show this late).
STEP_SECONDS = 1.0
#: Events of one club not finished at once (a member cannot make an unbounded number).
MAX_UNFINISHED = 5
#: Events listed for a club.
LIST_LIMIT = 50
#: A profile id as the players' store makes them (longer is no profile).
ID_LENGTH = 32
#: A pair with one player takes a bot as partner: its seat's name.
BOT = None


def entrant_names(event: Event, players: Sequence[Player]) -> dict[str, str]:
    """What the standings call each entrant: a player's name, or a pair's ("Ann & Bob";
    "Ann & bot" for a player whose partner is a bot)."""
    if event.setup.entry == "individuals":
        return {p.profile_id: p.name for p in players}
    teams: dict[str, list[str]] = {}
    for player in players:
        teams.setdefault(player.team, []).append(player.name)
    return {team: " & ".join(names if len(names) > 1 else [*names, "bot"])
            for team, names in teams.items()}  # fmt: skip


class Tournaments:
    """The events of every club of this server."""

    def __init__(
        self,
        store: EventStore,
        clubs: ClubAccess,
        registry: TableRegistry,
        storage: Storage,
        notifier: Callable[[], Notifier],
        *,
        table_options: dict[str, Any] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.clubs = clubs
        self.registry = registry
        self.storage = storage
        #: Who tells a member (read when telling: the server's may be replaced at start).
        self.notifier = notifier
        #: Options of every table an event makes (turn timers, for instance; tests, bench).
        self.table_options = dict(table_options or {})
        self._clock = clock
        #: One step at a time in this process (a cluster's processes: the store's guards).
        self._stepping = asyncio.Lock()
        #: When this process first saw each of its event tables paused (ms).
        self._paused_since: dict[str, int] = {}
        self._telling: set[asyncio.Task[None]] = set()

    def _now(self) -> int:
        return int(self._clock() * 1000)

    # ---------------------------------------------------------------- who may

    async def _role(self, club_id: str, profile_id: str) -> str | None:
        if not isinstance(club_id, str) or not club_id or len(club_id) > 64:
            return None
        return await self.clubs.role(club_id, profile_id)

    async def _visible(self, event_id: str, profile_id: str) -> tuple[Event, str]:
        """The event and the asker's role in its club: ``event_not_found`` for a stranger,
        as for an event that does not exist."""
        event = None
        if isinstance(event_id, str) and 0 < len(event_id) <= 32:
            event = await self.store.get(event_id)
        role = None if event is None else await self._role(event.club_id, profile_id)
        if event is None or role is None:
            raise EventError(EventCode.EVENT_NOT_FOUND, "no such event")
        return event, role

    # ---------------------------------------------------------------- setting up

    async def set_up(self, profile_id: str, club_id: str, data: dict[str, Any]) -> Event:
        """A new event of the club, open for registration (its admins only)."""
        if await self._role(club_id, profile_id) not in ADMINS:
            raise EventError(EventCode.NOT_CLUB_ADMIN, "an event is set up by a club admin")
        setup = check_setup(data, tuple(available_bots()), default_bot())
        if await self.store.count_unfinished(club_id) >= MAX_UNFINISHED:
            raise EventError(
                EventCode.TOO_MANY_EVENTS,
                f"a club has at most {MAX_UNFINISHED} events not finished: finish one first",
            )
        event = Event(
            secrets.token_hex(6), club_id, setup, "open", 0, secrets.randbits(62), profile_id,
            self._now(),
        )  # fmt: skip
        await self.store.create(event)
        return event

    async def register(self, profile_id: str, event_id: str, data: dict[str, Any]) -> None:
        """Register the asker (with ``partner``, a member's profile id, for fixed pairs;
        without, a partner is drawn at the start, or a bot)."""
        event, _ = await self._visible(event_id, profile_id)
        unknown = set(data) - {"partner"}
        if unknown:
            raise EventError(ErrorCode.BAD_OPTION, f"no registration field {sorted(unknown)[0]!r}")
        partner = data.get("partner")
        profiles = [profile_id]
        if partner is not None:
            if event.setup.entry != "pairs":
                raise EventError(ErrorCode.BAD_OPTION, "individuals register without a partner")
            if not isinstance(partner, str) or len(partner) > ID_LENGTH or partner == profile_id:
                raise EventError(ErrorCode.BAD_OPTION, "partner must be another member's id")
            if await self._role(event.club_id, partner) is None:
                raise EventError(EventCode.NOT_CLUB_MEMBER, "the partner is not in the club")
            profiles.append(partner)
        try:
            await self.store.register(event_id, profile_id, profiles, self._now(), MAX_ENTRANTS)
        except Taken:
            raise EventError(
                EventCode.ALREADY_REGISTERED, "you (or your partner) are registered already"
            ) from None
        except Full:
            raise EventError(
                EventCode.EVENT_FULL, f"the event has its {MAX_ENTRANTS} entrants"
            ) from None
        except LookupError:
            raise EventError(ErrorCode.WRONG_STATUS, "registration is closed") from None

    async def unregister(self, profile_id: str, event_id: str) -> None:
        event, _ = await self._visible(event_id, profile_id)
        if event.status != "open":
            raise EventError(ErrorCode.WRONG_STATUS, "the event has started")
        if not await self.store.unregister(event_id, profile_id):
            raise EventError(EventCode.NOT_REGISTERED, "you are not registered")

    async def start(self, profile_id: str, event_id: str) -> Event:
        """Close registration, draw the seeds and the partners of those who came alone,
        tell the club, and pair the first round."""
        event, role = await self._visible(event_id, profile_id)
        if role not in ADMINS:
            raise EventError(EventCode.NOT_CLUB_ADMIN, "an event is started by a club admin")
        if event.status != "open":
            raise EventError(ErrorCode.WRONG_STATUS, "the event has started already")
        registered = await self.store.players(event_id)
        # Who left the club (or was removed from it) since registering does not play.
        players: list[Player] = []
        dropped: list[Player] = []
        for player in registered:
            member = await self._role(event.club_id, player.profile_id) is not None
            (players if member else dropped).append(player)
        teams = form_teams(event, players)
        entrants = sorted({teams.get(p.profile_id, p.team) for p in players})
        least = 4 if event.setup.entry == "individuals" else 2
        if len(entrants) < least:
            raise EventError(
                EventCode.TOO_FEW_ENTRANTS,
                f"an event of {event.setup.entry} needs at least {least} entrants",
            )
        seeds = pairing.seeded_order(entrants, event.seed)
        gone = [p.profile_id for p in dropped]
        if not await self.store.start(event_id, seeds, teams, gone):
            raise EventError(ErrorCode.WRONG_STATUS, "the event has started already")
        # (Told in the background: a large club's devices must not hold the answer up.)
        telling = asyncio.create_task(self._tell_club(event))
        self._telling.add(telling)
        telling.add_done_callback(self._telling.discard)
        try:
            await self.step(event_id)
        except TableError as error:  # (no table could be made now: the next pass tries)
            log.warning("event %s: its first tables wait: %s", event_id, error.message)
        started = await self.store.get(event_id)
        assert started is not None
        return started

    async def _tell_club(self, event: Event) -> None:
        notice = Notice(
            "club_event",
            f"/e/{event.id}",
            # (Its words: push_club_event_tournament_*, web/static/i18n; push/words.py.)
            {"club": event.club_id, "event": event.setup.name, "words": "tournament"},
            tag=f"event-{event.id}",
        )
        for member in await self.clubs.member_ids(event.club_id):
            try:
                await self.notifier().notify(member, notice)
            except Exception:  # (a notifier never raises for a device; a bug tells no one)
                log.exception("event %s: the club's notice failed for a member", event.id)

    # ---------------------------------------------------------------- reading

    async def club_events(self, profile_id: str, club_id: str) -> list[dict[str, Any]]:
        if await self._role(club_id, profile_id) is None:
            raise EventError(EventCode.NOT_CLUB_MEMBER, "only the club's members see its events")
        return [summary(e) for e in await self.store.of_club(club_id, LIST_LIMIT)]

    async def view(self, profile_id: str, event_id: str) -> dict[str, Any]:
        """The event as its page shows it: setup, players, each round's tables with their
        links and results, and the standings as they are now."""
        event, role = await self._visible(event_id, profile_id)
        players = await self.store.players(event_id)
        games = await self.store.games(event_id)
        names = entrant_names(event, players)
        mine = next((p for p in players if p.profile_id == profile_id), None)
        rounds: dict[int, dict[str, Any]] = {}
        for game in games:
            shown = rounds.setdefault(game.round, {"round": game.round, "tables": [], "byes": []})
            if game.status == "bye":
                shown["byes"].append({"entrant": game.north[0], "name": names.get(game.north[0])})
                continue
            shown["tables"].append(
                {
                    "number": game.number + 1,
                    "code": game.code or None,
                    "link": f"/t/{game.code}#invite={game.invite}" if game.code else None,
                    "status": game.status,
                    "north": [{"entrant": e, "name": names.get(e)} for e in game.north],
                    "east": [{"entrant": e, "name": names.get(e)} for e in game.east],
                    "winner": game.winner,
                    "level_difference": game.level_difference,
                }
            )
        table = event_standings(event, games) if event.seeds else []
        return {
            **summary(event),
            "you": {
                "admin": role in ADMINS,
                "registered": mine is not None,
                # (The asker's entrant: their tables and place are shown as theirs.)
                "entrant": None if mine is None else entrant_of(event, mine),
            },
            "players": [
                {"profile_id": p.profile_id, "name": p.name, "team": p.team} for p in players
            ],
            "schedule": [rounds[n] for n in sorted(rounds)],
            "standings": [{**s.to_dict(), "name": names.get(s.entrant)} for s in table],
        }

    # ---------------------------------------------------------------- running

    async def step_all(self) -> int:
        """One pass over every running event; returns how many there were."""
        running = await self.store.running()
        for event in running:
            try:
                await self.step(event.id)
            except (StorageError, TableError) as error:  # (the next pass tries again)
                log.warning("event %s: %s", event.id, error)
        return len(running)

    async def step(self, event_id: str) -> None:
        """Take the event as far as it goes now: pair, make and start tables, read results,
        finish."""
        async with self._stepping:
            for _ in range(2):  # (a round that ends is followed by the next one's tables)
                event = await self.store.get(event_id)
                if event is None or event.status != "running":
                    return
                games = await self.store.games(event_id)
                current = [g for g in games if g.round == event.round]
                if event.round == 0 or all(g.status in ("decided", "bye") for g in current):
                    if event.round >= event.setup.rounds:
                        # (Its final table goes to the club's history with the finish.)
                        players = await self.store.players(event_id)
                        final = final_rows(event, players, event_standings(event, games))
                        await self.store.finish(event_id, self._now(), final)
                        return
                    await self._pair(event, games)
                    continue
                players = await self.store.players(event_id)
                for game in current:
                    await self._play(event, game, players)
                return

    async def _pair(self, event: Event, games: list[Game]) -> None:
        number = event.round + 1
        # (A search of up to a few hundred milliseconds for a large field: off the loop.)
        round_ = await asyncio.to_thread(pair_round, event, games, number)
        now = self._now()
        made = [
            Game(number, i, table.north, table.east, created_at=now)
            for i, table in enumerate(round_.tables)
        ]
        made += [
            Game(number, len(made) + i, (entrant,), (), status="bye", created_at=now)
            for i, entrant in enumerate(round_.byes)
        ]
        await self.store.add_round(event.id, number, made)

    async def _play(self, event: Event, game: Game, players: list[Player]) -> None:
        if game.status == "new":
            await self._make_table(event, game, players)
        elif game.status == "lobby":
            await self._start_table(event, game)
        elif game.status == "playing":
            await self._read_result(event, game)

    def _seats(self, event: Event, game: Game, players: list[Player]) -> list[Player | None]:
        """Who sits where: north at seats 0 and 2, east at 1 and 3 (None: a bot)."""
        by_team: dict[str, list[Player]] = {}
        by_id = {p.profile_id: p for p in players}
        for player in players:
            by_team.setdefault(player.team, []).append(player)
        if event.setup.entry == "individuals":
            north = [by_id.get(e) for e in game.north]
            east = [by_id.get(e) for e in game.east]
        else:
            north = [*by_team.get(game.north[0], []), BOT][:2]
            east = [*by_team.get(game.east[0], []), BOT][:2]
        # A deleted profile's seat is a bot's: its results stay, its new matches are none.
        return [None if p is None or p.gone else p for p in (north[0], east[0], north[1], east[1])]

    async def _make_table(self, event: Event, game: Game, players: list[Player]) -> None:
        seats = self._seats(event, game, players)
        humans = [(s, p) for s, p in enumerate(seats) if p is not None]
        seats_names = [seat_name(p, s) for s, p in enumerate(seats)]
        # The host is the first player; a table of deleted profiles only has a seat with
        # no one's profile as its host, away from the start (its bot plays).
        host, host_profile = (humans[0][0], humans[0][1].profile_id) if humans else (0, None)
        request = {
            **self.table_options,
            "name": seats_names[host],
            "seat": host,
            "players": 4,
            "bot": event.setup.bot,
        }
        # Private: its seats and its watching are for the club's members, who have the
        # invite on the event's page (tables/invites.py).
        invite, invite_hash = new_invite()
        # The table's match ends when the event's length decides it (rules ``goal``,
        # docs/rules.md section 10): its players see the table decided, not play on.
        table, _ = await self.registry.create(
            request, invite_hash, host_profile, event_length=event.setup.length
        )
        for seat, player in humans[1:]:
            table.seating.join(seats_names[seat], seat, None, player.profile_id)
        if len(humans) < 4:
            table.seating.fill_bots(table.host_seat)
        await self.storage.wait_durable(self.storage.staged_seq)
        made = replace(game, code=table.code, invite=invite, status="lobby", created_at=self._now())
        await self.store.set_game(event.id, made, "new")

    async def _start_table(self, event: Event, game: Game) -> None:
        try:
            table = await self.registry.get(game.code)
        except Elsewhere:
            return  # (its owner's pass starts it)
        if table.status == "lobby":
            humans = [s for s in table.seats if s.kind == "human"]
            waited = self._now() - game.created_at >= event.setup.grace_seconds * 1000
            if not waited and not all(s.connections > 0 for s in humans):
                return
            start_with_bots(table)
            await self.storage.wait_durable(self.storage.staged_seq)
        playing = replace(game, status="playing")
        await self.store.set_game(event.id, playing, "lobby")

    async def _read_result(self, event: Event, game: Game) -> None:
        self._keep_going(event, game.code)
        match = await self._match(game.code)
        if match is None:
            return
        outcome = decided(event.setup.length, match)
        if outcome is None:
            return
        winner, difference = outcome
        done = replace(game, status="decided", winner=winner, level_difference=difference)
        self._paused_since.pop(game.code, None)
        await self.store.set_game(event.id, done, "playing")

    def _keep_going(self, event: Event, code: str) -> None:
        """A table's host is one of its players, with the host's pause: the event resumes a
        table paused for longer than its grace time, so no player holds the event up."""
        table = self.registry.tables.get(code)
        if table is None or not table.paused:
            self._paused_since.pop(code, None)
            return
        since = self._paused_since.setdefault(code, self._now())
        if self._now() - since >= event.setup.grace_seconds * 1000:
            with contextlib.suppress(TableError):  # (the database away: the next pass)
                table.answer(lambda: table.host.resume(table.host_seat))
            self._paused_since.pop(code, None)

    async def _match(self, code: str) -> Match | None:
        """The table's match as it is now: its own, if this process holds it; else as
        written (another process plays it)."""
        table = self.registry.tables.get(code)
        if table is not None:
            return table.match
        stored = await self.storage.fetch_table(code)
        return None if stored is None else written_match(stored)


def written_match(stored: StoredTable) -> Match | None:
    """A table's match as it is written (its rules, seed and moves), if it has one."""
    if stored.match is None:
        return None
    rules = TableOptions.from_dict(stored.options).rules
    return Match.replay(rules, stored.match.seed, stored.match.moves)


def start_with_bots(table: Table) -> None:
    """Start an event's table: the seats of players not connected are away (their bot
    plays until they come: docs/protocol.md section 5); seats the host emptied get bots."""
    try:
        table.answer(lambda: table.start(table.host_seat, by_event=True))
    except TableError as error:
        if error.code is not ErrorCode.SEATS_EMPTY:
            raise
        table.seating.fill_bots(table.host_seat)
        table.answer(lambda: table.start(table.host_seat, by_event=True))
    for seat in table.seats:
        if seat.kind == "human" and seat.connections == 0 and not seat.away:
            table.seating.away(seat.seat)


def seat_name(player: Player | None, seat: int) -> str:
    """A seat's name at the table: the player's, if a table may show it."""
    if player is None:
        return f"Bot {seat + 1}"
    with contextlib.suppress(TableError):
        return check_name(player.name)
    return f"Player {seat + 1}"


def entrant_of(event: Event, player: Player) -> str:
    return player.profile_id if event.setup.entry == "individuals" else player.team


def form_teams(event: Event, players: Sequence[Player]) -> dict[str, str]:
    """For fixed pairs: the players who came alone, paired in the event's draw order
    (profile -> team); the last one alone keeps a bot partner."""
    if event.setup.entry != "pairs":
        return {}
    sizes = Counter(p.team for p in players)
    alone = pairing.seeded_order([p.profile_id for p in players if sizes[p.team] == 1], event.seed)
    teams = {}
    for first, second in zip(alone[::2], alone[1::2], strict=False):
        teams[first] = teams[second] = first
    return teams


def past_of(games: Sequence[Game], individuals: bool) -> pairing.Past:
    met: Counter[pairing.Meeting] = Counter()
    partnered: Counter[pairing.Meeting] = Counter()
    byes: Counter[str] = Counter()
    for game in games:
        if game.status == "bye":
            byes[game.north[0]] += 1
            continue
        for a in game.north:
            for b in game.east:
                met[pairing.meeting(a, b)] += 1
        if individuals:
            partnered[pairing.meeting(*game.north)] += 1
            partnered[pairing.meeting(*game.east)] += 1
    return pairing.Past(met, partnered, byes)


def event_standings(event: Event, games: Sequence[Game]) -> list[Standing]:
    results = [
        Result(g.north, g.east, g.winner, g.level_difference)
        for g in games
        if g.status == "decided" and g.winner is not None
    ]
    byes = [g.north[0] for g in games if g.status == "bye"]
    return standings(event.seeds, results, byes)


def pair_round(event: Event, games: Sequence[Game], number: int) -> pairing.Round:
    """Round ``number`` of the event (from 1): round robin of pairs by the circle method;
    otherwise by the standings (Swiss) or the draw (round robin of individuals)."""
    individuals = event.setup.entry == "individuals"
    seeds = list(event.seeds)
    if event.setup.format == "round_robin" and not individuals:
        return pairing.circle_round(seeds, number - 1)
    if event.setup.format == "swiss":
        order = [s.entrant for s in event_standings(event, games)]
    else:
        order = seeds
    past = past_of(games, individuals)
    return (pairing.pair_individuals if individuals else pairing.pair_teams)(order, past)


def summary(event: Event) -> dict[str, Any]:
    return {
        "id": event.id,
        "club": event.club_id,
        **event.setup.to_dict(),
        "status": event.status,
        "round": event.round,
        "created_by": event.created_by,
        "created_at": event.created_at,
        "link": f"/e/{event.id}",
    }


async def keep_running_events(tournaments: Tournaments, broker: Broker | None) -> None:
    """Step every running event about every :data:`STEP_SECONDS`, for good (cancel to
    stop); in a cluster one process a pass (turns.py)."""
    outage = Outage(log, "running the clubs' events")
    await keep_taking_turns("tournaments", STEP_SECONDS, tournaments.step_all,
                            storage=tournaments.storage, broker=broker, outage=outage,
                            consequence="tried again every second")  # fmt: skip
