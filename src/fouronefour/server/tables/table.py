"""One table: its matches, turns and timers; the only authority over its game.

Every method runs on the table's own thread (the server's event loop) and finishes without
waiting, so a table's actions are serialised by construction; WebSocket messages, bots,
timers and tests all go through the same methods. A change is written to storage, then
becomes the next version's :class:`Update`, then is published; a refused action raises
:class:`TableError` and changes nothing.

The table is a shell around pure steps. It holds its state as one frozen
:class:`~.state.TableState`, which a step alone changes: a function from that state (with
the time, :meth:`Table.state`) and a request or a timer to a :class:`~.state.Step`, the
next state with what everyone is told and what is written. A decision and a closed claim
window are :mod:`.play`'s, a match dealt :mod:`.matches`'s, who sits where
:mod:`.seating`'s, chat :mod:`.chat`'s, handoffs :mod:`.handoff`'s, the host's tools
:mod:`.hosttools`'s, the end-of-round pause :mod:`.roundend`'s and the turn timer
:mod:`.turntimer`'s. The table takes each (:meth:`Table.take`): it keeps the state, writes
it, fans it out and keeps the clocks (the claim window's, :mod:`.windows`; the pause's;
the turn's). What each connection sees is :mod:`.views`', bot seats :mod:`.botseats`'.
"""

from __future__ import annotations

import hmac
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ...engine import Match
from ..errors import ErrorCode, TableError
from ..storage import (
    ChangeExtra,
    StoredClaim,
    StoredTable,
)
from .botseats import BotSeats
from .chat import TableChat
from .handoff import Handoffs
from .hosttools import HostTools
from .matches import check_play_again, check_start, deal
from .model import (
    HOOK_SECONDS_RANGE,
    NAME_LENGTH,
    TURN_SECONDS_RANGE,
    Ack,
    Prompt,
    SeatState,
    Status,
    TableOptions,
    Update,
    check_name,
    hash_token,
    ms,
)
from .play import Advanced, check_decision, check_offered, close_window, decide
from .presence import Presence
from .restoring import restored_state, resumed_state
from .roundend import RoundPause
from .seating import Seating, check_seat, new_token, was_removed
from .services import TableServices
from .settings import TableSettings
from .state import Step, TableState, evolve, with_seats
from .turntimer import early, turn_deadline, turn_over
from .views import SeatViews
from .windows import ClaimWindows, Window
from .written import step_change, unversioned_change

#: Updates kept per table for reconnecting clients; older ``since`` values get a snapshot.
HISTORY = 64
#: How often a timer or bot that met an unwritable database tries again.
STORAGE_RETRY_SECONDS = 0.5
#: Client ids of accepted moves remembered per seat, to answer a resent move with its ack.
REMEMBERED_IDS = 64
__all__ = [
    "HOOK_SECONDS_RANGE",
    "NAME_LENGTH",
    "TURN_SECONDS_RANGE",
    "Ack",
    "SeatState",
    "Table",
    "TableError",
    "TableOptions",
    "TableServices",
    "Update",
    "Window",
    "check_name",
    "hash_token",
]


class Table:
    """The authority of one table. Build with :meth:`create` or :meth:`restore`."""

    def __init__(
        self,
        code: str,
        options: TableOptions,
        host_seat: int,
        services: TableServices,
        settings: TableSettings,
    ) -> None:
        #: The table as its steps see it, as last kept (the time as of that step;
        #: :meth:`state` is now), changed by a step alone (:meth:`take`, through
        #: :meth:`_keep`). An attribute, not a property: the views and the bots read it
        #: several times a decision.
        self.current = TableState(
            code=code,
            options=options,
            match_number=0,
            move_count=0,
            status="lobby",
            paused=False,
            settings=settings,
            trick_start=0,
            bots_only=False,
            analysing=False,
            seats=tuple(SeatState(s) for s in range(options.rules.players)),
            now=0.0,
            host_seat=host_seat,
        )
        self._bots_only_of: Sequence[SeatState] | None = None  # (the seats it was worked out of)
        self._bots_only_now = False
        self.services = services
        self.scheduler = services.scheduler
        self.version = 0
        self.seed: int | None = None
        self.finished_matches: list[int] = []
        #: The version at which each seat's pending decision was offered.
        self.prompt_v: dict[int, int] = {}
        # The current human turn's deadline, and whether a timer watches it. The timer is never
        # cancelled: armed for an earlier deadline, it fires, finds the deadline moved on and
        # waits again; about one timer per ``turn_seconds`` instead of one made and cancelled
        # every move.
        self.deadline: float | None = None
        self._turn_timer_armed = False
        self._storage = services.storage
        self._fanout = services.fanout
        self._history: deque[Update] = deque(maxlen=HISTORY)
        # (client id, v, move as sent) -> its ack, per seat: an exact resend is answered again
        self._accepted: dict[int, OrderedDict[tuple[str, object, object], Ack]] = {}
        self.windows = ClaimWindows(services.scheduler)
        self.views = SeatViews(self)
        self.bots = BotSeats(self)
        self.seating = Seating(self)
        self.round_pause = RoundPause(self)
        self.host = HostTools(self)
        self.chat = TableChat(self, [])
        self.presence = Presence(code, services.fanout, services.scheduler)
        self.handoffs = Handoffs(self)
        #: Another process owns the table now (:meth:`retire`).
        self.retired = False
        #: The server is stopping (:meth:`stop`).
        self.stopping = False
        #: Claim answers read back (restore), applied once the window is reopened (resume).
        self._claims: list[StoredClaim] = []

    # ------------------------------------------------------------ construction

    @classmethod
    def create(
        cls,
        code: str,
        options: TableOptions,
        host_name: object,
        host_seat: object,
        services: TableServices,
        settings: TableSettings | None = None,
        profile: str | None = None,
    ) -> tuple[Table, str]:
        """A new table with its host seated (``profile``: theirs, if signed in); returns it
        and the host's seat token. Nothing is written: the caller writes :meth:`stored`
        before the table is used."""
        name = check_name(host_name)
        seat_number = check_seat(host_seat, options.rules.players)
        table = cls(code, options, seat_number, services, settings or TableSettings())
        token, token_hash = new_token()
        host = table.seats[seat_number].with_player(name, "human", token_hash, profile)
        table._keep(with_seats(table.current, host))
        table.version = 1
        return table, token

    def stored(self) -> StoredTable:
        """The table as a new one is first written (no match yet)."""
        return StoredTable(
            self.current.code,
            self.current.options.to_dict(),
            self.host_seat,
            self.current.status,
            self.version,
            self.current.match_number,
            [s.stored() for s in self.current.seats],
            settings=self.settings.to_dict(),
        )

    @classmethod
    def restore(cls, stored: StoredTable, services: TableServices) -> Table:
        """A table as it was written; call :meth:`resume` once timers may run."""
        options = TableOptions.from_dict(stored.options)
        settings = TableSettings.from_dict(stored.settings)
        table = cls(stored.code, options, stored.host_seat, services, settings)
        if stored.match is not None:
            table.seed = stored.match.seed
        table._keep(restored_state(table.current, stored))
        table.version = stored.version
        table.finished_matches = list(stored.finished_matches)
        table.chat = TableChat(table, stored.chat)
        table._claims = stored.claims
        return table

    def resume(self) -> None:
        """After a restart: offer again whatever was pending, from full-length timers.

        Writes nothing (a server whose database has become read-only still starts): the
        next update carries every seat's private part, and a decision pending before the
        restart may be answered with the version the client last saw."""
        if self.current.status != "playing" or self.current.match is None:
            return
        self._keep(resumed_state(self.state(), self._claims))
        self._claims = []
        if self.current.round_end is not None:
            self._arm({})
            return
        prompts = self.views.prompts()
        self.prompt_v = dict.fromkeys(prompts, self.version)
        turn_seat = next(iter(prompts)) if self.windows.current is None and prompts else None
        if turn_seat is not None and not self.bot_controlled(turn_seat) and not self.current.paused:
            self.deadline = self.scheduler.now() + self.current.options.turn_seconds
        self._arm(prompts)

    # ------------------------------------------------------------ reading

    @property
    def code(self) -> str:
        return self.current.code

    @property
    def options(self) -> TableOptions:
        return self.current.options

    @property
    def settings(self) -> TableSettings:
        return self.current.settings

    @property
    def host_seat(self) -> int:
        return self.current.host_seat

    @property
    def seats(self) -> Sequence[SeatState]:
        return self.current.seats

    @property
    def status(self) -> Status:
        return self.current.status

    @property
    def match_number(self) -> int:
        return self.current.match_number

    @property
    def match(self) -> Match | None:
        return self.current.match

    @property
    def move_count(self) -> int:
        """Decisions taken in the current match (the next move's index in storage)."""
        return self.current.move_count

    @property
    def paused(self) -> bool:
        """The host paused the table (docs/protocol.md section 5)."""
        return self.current.paused

    @property
    def removed(self) -> frozenset[str]:
        """The token hashes of the players the host removed (kick): not seated here again
        unless the host hands them a seat (seating.py). Kept in the row's settings."""
        return self.current.removed

    @property
    def players(self) -> int:
        return self.current.options.rules.players

    @property
    def storage_failed(self) -> bool:
        return self.retired or self.stopping or self._storage.failed

    @property
    def staged_seq(self) -> int:
        """The storage's number of the last change staged: an answer that follows this
        table's changes waits for it to be written."""
        return self._storage.staged_seq

    def answer(self, request: Callable[[], Ack]) -> Ack:
        """Carry out a client's request: its ack, together with the update it made (the
        last, if several), which carries the ack to the client; none if it made none."""
        before = self.version
        ack = request()
        if self.version == before:
            return ack
        return replace(ack, update=self._history[-1])

    def summary(self) -> dict[str, Any]:
        return {
            "code": self.current.code,
            "status": self.current.status,
            "host_seat": self.host_seat,
            "version": self.version,
            "options": self.current.options.public(),
            "settings": self.settings.to_dict(),
            "seats": [s.public() for s in self.current.seats],
            "match_number": self.current.match_number,
            "finished_matches": list(self.finished_matches),
        }

    def seat_for_token(self, token: object) -> int | None:
        if not isinstance(token, str) or not token or len(token) > 200:
            return None
        digest = hash_token(token)
        for seat in self.current.seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                return seat.seat
        return None

    def updates_since(self, since: int) -> list[Update] | None:
        """The updates after ``since``, or None if they are not all kept (send a snapshot)."""
        if since == self.version:
            return []
        history = self._history
        if since > self.version or not history or since < history[0].v - 1:
            return None
        return [u for u in history if u.v > since]

    def snapshot(self, seat: int | None) -> dict[str, Any]:
        """Everything a fresh connection of ``seat`` (None: a spectator) needs."""
        return self.views.snapshot(seat)

    def bot_controlled(self, seat: int) -> bool:
        occupant = self.current.seats[seat]
        return occupant.kind == "bot" or occupant.away  # (SeatState.bot_controlled, inlined)

    def was_removed(self, token: object) -> bool:
        """Whether ``token`` is a player's the host removed from this table."""
        return was_removed(self.removed, token)

    # ------------------------------------------------------------ checks

    def retire(self) -> None:
        """This process no longer owns the table (another took it over): it changes nothing
        more, and its timers and bots stop."""
        self.retired = True

    def stop(self) -> None:
        """The server is stopping: the table changes nothing more, and its timers and bots
        stop. (Its players going offline as the server closes their sockets would be
        versions no client saw: after the restart a reconnect would get a snapshot, and the
        decision pending at the version it saw would be stale; docs/protocol.md section 4.)"""
        self.stopping = True

    def check_writable(self) -> None:
        """Refuse any change while the database cannot be written (nothing would be kept)."""
        if self.retired:
            raise TableError(
                ErrorCode.OWNER_UNAVAILABLE,
                "this table has moved to another server process: nothing was changed; reconnect",
            )
        if self.stopping:
            raise TableError(
                ErrorCode.STORAGE_ERROR,
                "the server is restarting: nothing was changed; reconnect in a moment",
            )
        if self._storage.failed:
            raise TableError(
                ErrorCode.STORAGE_ERROR,
                "the server cannot write its database just now: nothing was changed; try again",
            )

    def postponed(self, retry: Callable[[], None]) -> bool:
        """While the database cannot be written, run ``retry`` later instead of changing."""
        if self.retired or self.stopping:
            return True  # (and never again)
        if not self._storage.failed:
            return False
        self.scheduler.call_later(STORAGE_RETRY_SECONDS, retry)
        return True

    def check_host(self, seat: int | None) -> None:
        if seat is None or seat != self.host_seat:
            raise TableError(ErrorCode.NOT_HOST, "only the host may do that")

    # ------------------------------------------------------------ matches

    def start(self, actor: int | None, *, by_event: bool = False) -> Ack:
        self.check_writable()
        check_start(self.state(), actor, by_event=by_event)
        self._begin_match()
        return Ack(self.version)

    def play_again(self, actor: int | None) -> Ack:
        self.check_writable()
        check_play_again(self.state(), actor)
        self._begin_match()
        return Ack(self.version)

    def _begin_match(self) -> None:
        self.seed = self.services.seeds()
        self.take(deal(self.state(), self.seed))

    # ------------------------------------------------------------ playing

    def act(self, seat: int, move: object, v: object, client_id: str | None = None) -> Ack:
        """A player's decision: a move on their turn, or an answer to a claim window."""
        resend_key = (client_id, v, move) if client_id is not None else None
        if resend_key is not None:
            remembered = self._accepted.get(seat)
            earlier = remembered.get(resend_key) if remembered is not None else None
            if earlier is not None:
                return earlier
        self.check_writable()
        prompts = self.views.prompts()
        offered_at = self.prompt_v.get(seat, 0)
        move = check_decision(
            self.current.status,
            self.current.paused,
            move,
            v,
            self.version,
            offered_at,
            seat in prompts,
        )
        check_offered(self.current, seat, seat in prompts)  # (no time needed)
        ack = self.decide(seat, move, prompts[seat], by_bot=False)
        if resend_key is not None:
            remembered = self._accepted.setdefault(seat, OrderedDict())
            remembered[resend_key] = ack
            if len(remembered) > REMEMBERED_IDS:
                remembered.popitem(last=False)
        return ack

    def decide(self, seat: int, move: str, prompt: Prompt, by_bot: bool) -> Ack:
        """Take ``seat``'s ``move`` for its pending decision ``prompt`` (checked here)."""
        decided = decide(self.state(), seat, move, prompt, by_bot)
        if decided.advanced is None:
            self.take(decided.step)
        else:
            self._advance(decided.advanced)
        return Ack(self.version, decided.chosen, claim=decided.claim)

    def _advance(self, step: Advanced) -> None:
        """Take the step the match advanced by (:func:`.play.advance`), and have what the
        server analyses follow it."""
        if step.state.status == "finished":
            self.finished_matches.append(self.current.match_number)
        self.take(step.step())
        after = step.match
        analyst = self.services.analyst
        if step.analysed:
            assert analyst is not None
            analyst.round_ended(
                self.current.code,
                self.current.match_number,
                len(after.results),
                self._storage.staged_seq,
            )
        elif analyst is not None and analyst.enabled and not after.is_over and step.written.moves:
            # the round goes on: its decisions so far may be analysed while it is played
            analyst.round_progressed(
                self.current.code,
                self.current.match_number,
                len(after.results) + 1,
                self.move_count,
                self._storage.staged_seq,
            )

    # ------------------------------------------------------------ the pure steps

    def state(self) -> TableState:
        """The table as a step sees it now (:class:`.state.TableState`)."""
        analyst = self.services.analyst
        return evolve(
            self.current,
            now=self.scheduler.now(),
            version=self.version,
            bots_only=self._bots_only(),
            analysing=analyst is not None and analyst.enabled,
        )

    def carry_out(self, step: Callable[[TableState], Step]) -> Ack:
        """A request as one step: refused while the database cannot be written, else the
        step from the state now, taken; the ack of the version it made (or the table's)."""
        self.check_writable()
        self.take(step(self.state()))
        return Ack(self.version)

    def take(self, step: Step, *, send: bool = True) -> None:
        """Take a step (a decision, a closed window, a match dealt, seating, chat, handoffs,
        the host's tools, the end-of-round pause, the turn timer): its state becomes the
        table's, its events the next version, written and published (``send`` False: the
        state alone, as a connection's coming and going while the database cannot be
        written); a step without events writes what it has, versioned by nobody. The
        clocks follow the state: its window's, its pause's, the turn's."""
        if step.state.paused != self.current.paused:
            self.deadline = None  # (a turn's clock starts again in full)
        self._keep(step.state)
        for seat in step.renewed:  # (a new occupant starts afresh)
            self.chat.forget_seat(seat)
            self._accepted.pop(seat, None)
        changes = step.seat_changes
        if changes is not None and changes.swapped is not None:
            self.views.resend(*changes.swapped)
        if not send:
            return
        if step.events:
            self.commit(step)
        elif step.extra is not None:
            self.write(step.extra)

    def _bots_only(self) -> bool:
        """Whether the table's bot decides for every seat, worked out again only when the
        seats changed (they are the same tuple from one decision to the next)."""
        seats = self.current.seats
        if seats is not self._bots_only_of:
            self._bots_only_of = seats
            self._bots_only_now = all(seat.bot_controlled for seat in seats)
        return self._bots_only_now

    def _keep(self, state: TableState) -> None:
        """The table's state is ``state`` now; the claim window's and the end-of-round
        pause's timers follow it."""
        self.current = state
        self.windows.keep(state.window)
        self.round_pause.keep(state.round_end)

    # ------------------------------------------------------------ commit and timers

    def commit(self, step: Step) -> Update:
        """Write, version, publish the update ``step`` makes; then arm the timers and bots it
        calls for. ``step.new_prompts``: the decisions offered changed (a move, a window):
        their versions are this one and the turn timer starts again."""
        new_prompts = step.new_prompts
        if new_prompts:
            self.deadline = None  # (a new turn's clock starts from full)
        prompts = self.views.prompts()
        turn_seat = next(iter(prompts)) if self.windows.current is None and prompts else None
        turn = None if turn_seat is None else self.current.seats[turn_seat]
        self.deadline = turn_deadline(
            self.deadline,
            turn,
            self.current.paused,
            self.scheduler.now(),
            self.current.options.turn_seconds,
        )
        version = self.version + 1
        self._storage.commit(step_change(step, version))
        self.version = version
        if new_prompts:
            self.prompt_v = dict.fromkeys(prompts, version)
        update = Update(
            version,
            ms(self.scheduler.now()),
            list(step.events),
            self.views.state(),
            self.views.changed(prompts),
            step.seat_changes,
        )
        self._history.append(update)
        self._fanout.publish(self.current.code, update)
        self._arm(prompts)
        if new_prompts and self.deadline is not None and turn_seat is not None:
            self._turn_fell(turn_seat)
        return update

    def _turn_fell(self, seat: int) -> None:
        """A player's turn began (its clock runs): the server may tell them if they are not
        looking (push/turns.py)."""
        profile = self.current.seats[seat].profile
        watcher = self.services.turns
        if watcher is not None and profile is not None:
            watcher.turn(
                self.current.code, seat, profile, (self.current.match_number, self.move_count)
            )

    def write(self, extra: ChangeExtra) -> None:
        """Write something nobody is shown (a handoff's secret hash): no new version, but
        written before the ack that follows, like every change."""
        self._storage.commit(unversioned_change(self.current, self.version, extra))

    def _arm(self, prompts: dict[int, Prompt]) -> None:
        if self.windows.current is not None:
            self.windows.arm(self._window_due)
        if self.deadline is not None and not self._turn_timer_armed:
            self._turn_timer_armed = True
            self.scheduler.call_later(self.deadline - self.scheduler.now(), self._turn_due)
        if self.current.paused:
            return  # bots wait too
        if self.round_pause.current is not None:
            self.round_pause.arm()
        for seat in prompts:
            if self.bot_controlled(seat):
                self.bots.schedule(seat)

    def _window_due(self, closes_at: float) -> None:
        window = self.windows.current
        if window is None or window.closes_at != closes_at or self.current.paused:
            return  # closed, or held and run again since
        if not self.postponed(lambda: self._window_due(closes_at)):
            self._advance(close_window(self.state()))

    def _turn_due(self) -> None:
        self._turn_timer_armed = False
        deadline = self.deadline
        if deadline is None:
            return  # the turn was taken, or went to a bot or a claim window
        now = self.scheduler.now()
        if early(deadline, now):  # a later turn's deadline than the one it was armed for
            self._turn_timer_armed = True
            self.scheduler.call_later(deadline - now, self._turn_due)
            return
        if self.postponed(self._turn_due):
            return
        prompts = self.views.prompts()
        if self.windows.current is not None or not prompts:  # (a deadline is only a turn's)
            self.deadline = None
            return
        self.deadline = None
        self.take(turn_over(self.state(), next(iter(prompts))))
