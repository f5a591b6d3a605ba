"""One table: seats, matches, turns, claim windows and timers; the only authority over its game.

Every method runs on the table's own thread (the server's event loop) and finishes without
waiting, so a table's actions are serialised by construction; WebSocket messages, bots,
timers and tests all go through the same methods. A change is written to storage, then
becomes the next version's :class:`Update`, then is published; a refused action raises
:class:`TableError` and changes nothing.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from ..engine import PASS, Decision, IllegalMove, Match, canonical
from .botrunner import BotRunner
from .clock import Scheduler
from .errors import ErrorCode, TableError
from .events import move_event, progress_events, round_ended, round_start_event
from .fanout import Fanout
from .model import (
    HOOK_SECONDS_RANGE,
    MAX_DECKS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME_LENGTH,
    TURN_SECONDS_RANGE,
    Ack,
    SeatState,
    Status,
    TableOptions,
    Update,
    Window,
    check_name,
    hash_token,
    ms,
)
from .storage import Change, NewMatch, Storage, StoredSeat, StoredTable

log = logging.getLogger(__name__)

#: Updates kept per table for reconnecting clients; older ``since`` values get a snapshot.
HISTORY = 64
#: How often a timer or bot that met an unwritable database tries again.
STORAGE_RETRY_SECONDS = 0.5
#: Client ids of accepted moves remembered per seat, to answer a resent move with its ack.
REMEMBERED_IDS = 64
__all__ = [
    "HOOK_SECONDS_RANGE",
    "MAX_DECKS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NAME_LENGTH",
    "TURN_SECONDS_RANGE",
    "Ack",
    "SeatState",
    "Table",
    "TableError",
    "TableOptions",
    "Update",
    "Window",
    "check_name",
    "hash_token",
]

# A claimable move just made: (window kind, claimed move, claimer, after a claim?)
_Claimable = tuple[str, str, int, bool]


#: How early a timer may fire (the event loop keeps milliseconds) and still count as due.
TIMER_SLACK_SECONDS = 0.001


class Table:
    """The authority of one table. Build with :meth:`create` or :meth:`restore`."""

    def __init__(
        self,
        code: str,
        options: TableOptions,
        host_seat: int,
        *,
        storage: Storage,
        fanout: Fanout,
        scheduler: Scheduler,
        bots: BotRunner,
        seeds: Callable[[], int],
        bot_delay: float = 0.8,
    ) -> None:
        self.code = code
        self.options = options
        self.host_seat = host_seat
        self.seats = [SeatState(s) for s in range(options.rules.players)]
        self.status: Status = "lobby"
        self.version = 0
        self.match_number = 0
        self.match: Match | None = None
        self.seed: int | None = None
        self.finished_matches: list[int] = []
        self.bot_delay = bot_delay
        self._storage = storage
        self._fanout = fanout
        self._scheduler = scheduler
        self._bots = bots
        self._seeds = seeds
        self._move_count = 0
        self._window: Window | None = None
        self._prompt_v: dict[int, int] = {}
        # The current human turn's deadline, and whether a timer watches it. The timer is never
        # cancelled: armed for an earlier deadline, it fires, finds the deadline moved on and
        # waits again; about one timer per ``turn_seconds`` instead of one made and cancelled
        # every move.
        self._deadline: float | None = None
        self._turn_timer_armed = False
        self._history: deque[Update] = deque(maxlen=HISTORY)
        self._last_private: dict[int, tuple[Any, ...]] = {}
        # (client id, v, move as sent) -> its ack, per seat: an exact resend is answered again
        self._accepted: dict[int, OrderedDict[tuple[str, object, object], Ack]] = {}
        self._bot_pending: set[tuple[int, int]] = set()
        self._hands: dict[int, tuple[object, str]] = {}
        self._closed_offers: frozenset[int] = frozenset()  # who the last window offered

    # ------------------------------------------------------------ construction

    @classmethod
    def create(
        cls,
        code: str,
        options: TableOptions,
        host_name: object,
        host_seat: object,
        **services: Any,
    ) -> tuple[Table, str]:
        """A new table with its host seated; returns it and the host's seat token."""
        name = check_name(host_name)
        if (
            isinstance(host_seat, bool)
            or not isinstance(host_seat, int)
            or not (0 <= host_seat < options.rules.players)
        ):
            raise TableError(ErrorCode.BAD_SEAT, f"no seat {host_seat!r} at this table")
        table = cls(code, options, host_seat, **services)
        token = secrets.token_urlsafe(24)
        seat = table.seats[host_seat]
        seat.name, seat.kind, seat.token_hash = name, "human", hash_token(token)
        table.version = 1
        table._storage.create_table(
            StoredTable(
                code,
                options.to_dict(),
                host_seat,
                table.status,
                table.version,
                0,
                [s.stored() for s in table.seats],
            )
        )
        return table, token

    @classmethod
    def restore(cls, stored: StoredTable, **services: Any) -> Table:
        """A table as it was written; call :meth:`resume` once timers may run."""
        options = TableOptions.from_dict(stored.options)
        table = cls(stored.code, options, stored.host_seat, **services)
        for record in stored.seats:
            seat = table.seats[record.seat]
            seat.name, seat.kind, seat.token_hash = record.name, record.kind, record.token_hash
        table.status = stored.status  # type: ignore[assignment]  # written by this class
        table.version = stored.version
        table.match_number = stored.match_number
        table.finished_matches = list(stored.finished_matches)
        if stored.match is not None:
            table.seed = stored.match.seed
            table.match = Match.replay(options.rules, stored.match.seed, stored.match.moves)
            table._move_count = len(stored.match.moves)
        return table

    def resume(self) -> None:
        """After a restart: offer again whatever was pending, from full-length timers.

        Writes nothing (a server whose database has become read-only still starts): the
        next update carries every seat's private part, and a decision pending before the
        restart may be answered with the version the client last saw."""
        if self.status != "playing" or self.match is None:
            return
        r = self.match.round
        if r.decision in (Decision.HOOK, Decision.UNHOOK) and r.top is not None:
            assert r.top_seat is not None
            self._window = Window(
                kind=str(r.decision),
                rank=r.top[0],
                claimed=r.top,
                claimed_seat=r.top_seat,
                after_claim=r.log[-1]["type"] in ("hook", "unhook"),
                offers=r.offer_queue,
                closes_at=self._scheduler.now() + self.options.hook_seconds,
            )
        prompts = self._prompts()
        self._prompt_v = dict.fromkeys(prompts, self.version)
        turn_seat = next(iter(prompts)) if self._window is None and prompts else None
        if turn_seat is not None and not self._bot_controlled(turn_seat):
            self._deadline = self._scheduler.now() + self.options.turn_seconds
        self._arm(prompts, new_prompts=True)

    # ------------------------------------------------------------ reading

    @property
    def players(self) -> int:
        return self.options.rules.players

    def summary(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "status": self.status,
            "host_seat": self.host_seat,
            "version": self.version,
            "options": self.options.to_dict(),
            "seats": [s.public() for s in self.seats],
            "match_number": self.match_number,
            "finished_matches": list(self.finished_matches),
        }

    def seat_for_token(self, token: object) -> int | None:
        if not isinstance(token, str) or not token or len(token) > 200:
            return None
        digest = hash_token(token)
        for seat in self.seats:
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
        prompts = self._prompts()
        game = None
        you = None
        if self.match is not None:
            m = self.match
            game = m.view(seat) if seat is not None else m.public_view()
            own = prompts.get(seat) if seat is not None else None
            game["decision"], game["legal_moves"] = (own[0], list(own[1])) if own else (None, [])
            window = self._window
            if window is not None:  # the claimed move stays on show while its window is open
                game["top"], game["top_seat"] = window.claimed, window.claimed_seat
            if seat is not None:
                you = self._private_dict(seat, prompts)
        return {
            "type": "snapshot",
            "v": self.version,
            "server_time": ms(self._scheduler.now()),
            "table": self.summary(),
            "state": self._state(),
            "you": you,
            "game": game,
        }

    def pending_decision(self, seat: int) -> tuple[dict[str, Any], list[str]]:
        """The view and legal moves of ``seat``'s pending decision (for hints and bots)."""
        prompts = self._prompts()
        if seat not in prompts or self.match is None:
            raise TableError(ErrorCode.NO_DECISION, f"seat {seat} has no decision to take")
        decision, legal = prompts[seat]
        view = self.match.view(seat)
        view["decision"], view["legal_moves"] = decision, list(legal)
        return view, list(legal)

    # ------------------------------------------------------------ seats and lobby

    def _check_writable(self) -> None:
        """Refuse any change while the database cannot be written (nothing would be kept)."""
        if self._storage.failed:
            raise TableError(
                ErrorCode.STORAGE_ERROR,
                "the server cannot write its database just now: nothing was changed; try again",
            )

    def _postponed(self, retry: Callable[[], None]) -> bool:
        """While the database cannot be written, run ``retry`` later instead of changing."""
        if not self._storage.failed:
            return False
        self._scheduler.call_later(STORAGE_RETRY_SECONDS, retry)
        return True

    def _check_host(self, seat: int | None) -> None:
        if seat is None or seat != self.host_seat:
            raise TableError(ErrorCode.NOT_HOST, "only the host may do that")

    def join(self, name: object, seat: object) -> str:
        """Take a free (or bot) seat before a match or between matches; returns its token."""
        self._check_writable()
        clean = check_name(name)
        if self.status == "playing":
            raise TableError(
                ErrorCode.WRONG_STATUS, "seats are taken before a match starts or between matches"
            )
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise TableError(ErrorCode.BAD_SEAT, f"no seat {seat!r} at this table")
        state = self.seats[seat]
        if state.kind == "human":
            raise TableError(ErrorCode.SEAT_TAKEN, f"seat {seat} is taken by {state.name}")
        token = secrets.token_urlsafe(24)
        state.name, state.kind, state.token_hash = clean, "human", hash_token(token)
        self._commit(
            [{"type": "seat", **state.public()}], new_prompts=False, seats=(state.stored(),)
        )
        return token

    def fill_bots(self, actor: int | None) -> Ack:
        self._check_writable()
        self._check_host(actor)
        if self.status == "playing":
            raise TableError(ErrorCode.WRONG_STATUS, "bots fill seats between matches only")
        changed = []
        for state in self.seats:
            if state.kind == "empty":
                state.name, state.kind = f"Bot {state.seat + 1}", "bot"
                changed.append(state)
        if changed:
            self._commit(
                [{"type": "seat", **s.public()} for s in changed],
                new_prompts=False,
                seats=tuple(s.stored() for s in changed),
            )
        return Ack(self.version)

    def start(self, actor: int | None) -> Ack:
        self._check_writable()
        self._check_host(actor)
        if self.status != "lobby":
            raise TableError(ErrorCode.WRONG_STATUS, f"the table is {self.status}, not lobby")
        empty = [s.seat for s in self.seats if s.kind == "empty"]
        if empty:
            raise TableError(ErrorCode.SEATS_EMPTY, f"seats {empty} are empty: fill them first")
        self._begin_match()
        return Ack(self.version)

    def play_again(self, actor: int | None) -> Ack:
        self._check_writable()
        self._check_host(actor)
        if self.status != "finished":
            raise TableError(ErrorCode.WRONG_STATUS, "play again once the match is over")
        self._begin_match()
        return Ack(self.version)

    def connect(self, seat: int) -> None:
        """A player's connection arrived (a reconnect also ends being away)."""
        state = self.seats[seat]
        state.connections += 1
        if state.connections == 1 or state.away:
            state.away = False
            if not self._storage.failed:  # presence is not worth refusing a connection for
                self._commit([{"type": "seat", **state.public()}], new_prompts=False)

    def disconnect(self, seat: int) -> None:
        state = self.seats[seat]
        state.connections = max(0, state.connections - 1)
        if state.connections == 0 and not self._storage.failed:
            self._commit([{"type": "seat", **state.public()}], new_prompts=False)

    def back(self, seat: int) -> Ack:
        self._check_writable()
        state = self.seats[seat]
        if not state.away:
            raise TableError(ErrorCode.NOT_AWAY, "the seat is not away")
        state.away = False
        self._commit([{"type": "seat", **state.public()}], new_prompts=False)
        return Ack(self.version)

    # ------------------------------------------------------------ playing

    def act(self, seat: int, move: object, v: object, client_id: str | None = None) -> Ack:
        """A player's decision: a move on their turn, or an answer to a claim window."""
        resend_key = (client_id, v, move) if client_id is not None else None
        if resend_key is not None:
            remembered = self._accepted.get(seat)
            earlier = remembered.get(resend_key) if remembered is not None else None
            if earlier is not None:
                return earlier
        self._check_writable()
        if self.status != "playing":
            raise TableError(ErrorCode.WRONG_STATUS, f"no match is being played ({self.status})")
        if not isinstance(move, str) or not move or len(move) > 200:
            raise TableError(ErrorCode.BAD_MESSAGE, "move must be non-empty text")
        prompts = self._prompts()
        if seat not in prompts:
            if self._window is not None and seat in self._window.answers:
                raise TableError(ErrorCode.ALREADY_ANSWERED, "this window is answered already")
            if seat in self._closed_offers:
                raise TableError(ErrorCode.NOT_YOUR_TURN, "the claim window has closed")
            raise TableError(ErrorCode.NOT_YOUR_TURN, f"seat {seat} has no decision to take")
        if isinstance(v, bool) or not isinstance(v, int):
            raise TableError(ErrorCode.BAD_MESSAGE, "v must be an integer version")
        if v > self.version or v < self._prompt_v.get(seat, 0):
            raise TableError(
                ErrorCode.STALE_VERSION,
                f"v {v} does not match the decision offered at v {self._prompt_v.get(seat)} "
                f"(table at v {self.version})",
            )
        ack = self._decide(seat, move, prompts[seat], by_bot=False)
        if resend_key is not None:
            remembered = self._accepted.setdefault(seat, OrderedDict())
            remembered[resend_key] = ack
            if len(remembered) > REMEMBERED_IDS:
                remembered.popitem(last=False)
        return ack

    def _decide(self, seat: int, move: str, prompt: tuple[str, list[str]], by_bot: bool) -> Ack:
        decision, legal = prompt
        events: list[dict[str, Any]] = []
        window = self._window
        if window is not None:
            chosen = self._canonical(move, legal)
            window.answers[seat] = chosen
            if not by_bot and self.seats[seat].away:
                self.seats[seat].away = False
                events.append({"type": "seat", **self.seats[seat].public()})
            if self.options.hook_mode == "fast" and window.decided():
                self._close_window(events)
            elif events:
                self._commit(events, new_prompts=False)
            return Ack(self.version, chosen, claim=True)
        before = self.match
        assert before is not None
        try:
            after = before.apply(move)
        except IllegalMove as error:
            raise TableError(ErrorCode.ILLEGAL_MOVE, str(error)) from None
        chosen = move if move in legal else canonical(move)
        if not by_bot and self.seats[seat].away:
            self.seats[seat].away = False
            events.append({"type": "seat", **self.seats[seat].public()})
        events.append(move_event(before.round, decision, seat, chosen))
        events.extend(progress_events(before, after, self.match_number))
        claimable: _Claimable | None = None
        if (
            decision == "play"
            and len(chosen) == 1
            and chosen not in "BR"
            and not round_ended(before, after)
        ):
            claimable = ("hook", chosen, seat, False)
        self._advance(after, [chosen], events, claimable)
        return Ack(self.version, chosen)

    @staticmethod
    def _canonical(move: str, legal: list[str]) -> str:
        if move in legal:
            return move
        try:
            chosen = canonical(move)
        except IllegalMove as error:
            raise TableError(ErrorCode.ILLEGAL_MOVE, str(error)) from None
        if chosen not in legal:
            raise TableError(
                ErrorCode.ILLEGAL_MOVE, f"{move!r}: the choice is {' or '.join(legal)}"
            )
        return chosen

    def _advance(
        self,
        after: Match,
        moves: list[str],
        events: list[dict[str, Any]],
        claimable: _Claimable | None,
    ) -> None:
        """Take ``after`` as the match, open the next window if any, write and publish."""
        self.match = after
        first = self._move_count
        self._move_count += len(moves)
        self._window = self._next_window(after, claimable)
        if self._window is not None:
            events.append(self._window_open_event(self._window))
        over = after.is_over
        if over:
            self.status = "finished"
            self.finished_matches.append(self.match_number)
            events.append(
                {"type": "status", "status": self.status, "match_number": self.match_number}
            )
        self._commit(
            events,
            new_prompts=True,
            moves=tuple(moves),
            first_move_index=first,
            match_over=over,
            table_row=over,
        )

    def _next_window(self, match: Match, claimable: _Claimable | None) -> Window | None:
        if claimable is None or match.is_over or not self.options.rules.hooking:
            return None
        kind, claimed, claimer, after_claim = claimable
        r = match.round
        engine_offers = r.decision in (Decision.HOOK, Decision.UNHOOK)
        if not engine_offers and self.options.hook_mode == "fast":
            return None
        if engine_offers and str(r.decision) != kind:
            raise AssertionError(f"engine offers {r.decision}, table expected {kind}")
        return Window(
            kind=kind,
            rank=claimed[0],
            claimed=claimed,
            claimed_seat=claimer,
            after_claim=after_claim,
            offers=r.offer_queue if engine_offers else [],
            closes_at=self._scheduler.now() + self.options.hook_seconds,
        )

    @staticmethod
    def _window_open_event(window: Window) -> dict[str, Any]:
        return {"type": "window_open", **window.public()}

    def _close_window(self, events: list[dict[str, Any]]) -> None:
        """Resolve the claims by nearness: declines before the nearest claimant, then its
        claim, as the engine would have had them offered one by one."""
        window = self._window
        assert window is not None and self.match is not None
        if window.handle is not None:
            window.handle.cancel()
        self._closed_offers = frozenset(window.offers)
        before = self.match
        after = before
        moves: list[str] = []
        claimant: int | None = None
        for seat in window.offers:
            answer = window.answers.get(seat, PASS)
            if after.round.to_act != seat:
                raise AssertionError(f"window offers out of step at seat {seat}")
            after = after.apply(answer)
            moves.append(answer)
            if answer != PASS:
                claimant = seat
                break
        events.append(
            {
                "type": "window_close",
                "kind": window.kind,
                "rank": window.rank,
                "claimed_by": claimant,
            }
        )
        claimable: _Claimable | None = None
        if claimant is not None:
            claim = moves[-1]
            events.append({"type": window.kind, "seat": claimant, "move": claim})
            events.extend(progress_events(before, after, self.match_number))
            if not round_ended(before, after):
                claimable = ("unhook" if window.kind == "hook" else "hook", claim, claimant, True)
        self._advance(after, moves, events, claimable)

    def _begin_match(self) -> None:
        self.match_number += 1
        self.seed = self._seeds()
        self.match = Match(self.options.rules, self.seed)
        self._move_count = 0
        self._window = None
        self.status = "playing"
        for state in self.seats:
            state.away = False
        events = [
            {"type": "status", "status": self.status, "match_number": self.match_number},
            {
                "type": "match_start",
                "match_number": self.match_number,
                "levels": list(self.match.levels),
            },
            round_start_event(self.match),
        ]
        self._commit(
            events,
            new_prompts=True,
            new_match=NewMatch(self.match_number, self.seed, self.options.rules.to_dict()),
        )

    # ------------------------------------------------------------ prompts, state, commit

    def _bot_controlled(self, seat: int) -> bool:
        state = self.seats[seat]
        return state.kind == "bot" or state.away

    def _prompts(self) -> dict[int, tuple[str, list[str]]]:
        """Each seat's pending decision as the table offers it (several during a window)."""
        m = self.match
        if self.status != "playing" or m is None or m.is_over:
            return {}
        window = self._window
        if window is not None:
            legal = window.legal()
            return {s: (window.kind, legal) for s in window.offers if s not in window.answers}
        r = m.round
        seat = r.to_act
        if seat is None or r.decision is None:
            return {}
        return {seat: (str(r.decision), r.legal_moves())}

    def _state(self) -> dict[str, Any] | None:
        m = self.match
        if m is None:
            return None
        r = m.round
        window = self._window
        top, top_seat = (window.claimed, window.claimed_seat) if window else (r.top, r.top_seat)
        return {
            "status": self.status,
            "match_number": self.match_number,
            "round_number": m.round_number,
            "level": r.level,
            "levels": list(m.levels),
            "order": r.order,
            "turn": None if m.is_over else r.turn,
            "leader": r.leader,
            "top": top,
            "top_seat": top_seat,
            "counts": r.card_counts(),
            "finished": r.finished,
            "tributes": r.tributes,
            "window": window.public() if window else None,
            "deadline": None if self._deadline is None else ms(self._deadline),
            "match_over": m.is_over,
            "match_winner": m.winning_team,
        }

    def _hand(self, seat: int) -> str:
        """The seat's hand text, cached: the engine keeps an unchanged hand's counts object."""
        if self.match is None:
            return ""
        r = self.match.round
        counts = r.hand_counts(seat)
        cached = self._hands.get(seat)
        if cached is not None and cached[0] is counts:
            return cached[1]
        text = r.hand(seat)
        self._hands[seat] = (counts, text)
        return text

    def _private(self, seat: int, prompts: dict[int, tuple[str, list[str]]]) -> tuple[Any, ...]:
        hand = self._hand(seat)
        prompt = prompts.get(seat)
        if prompt is None:
            return (hand, None, (), None, None, self.seats[seat].away)
        window = self._window
        deadline = window.closes_at if window is not None else self._deadline
        return (
            hand,
            prompt[0],
            tuple(prompt[1]),
            self._prompt_v.get(seat),
            None if deadline is None else ms(deadline),
            self.seats[seat].away,
        )

    def _private_dict(self, seat: int, prompts: dict[int, tuple[str, list[str]]]) -> dict[str, Any]:
        return self._private_to_dict(seat, self._private(seat, prompts))

    @staticmethod
    def _private_to_dict(seat: int, private: tuple[Any, ...]) -> dict[str, Any]:
        hand, decision, legal, prompt_v, deadline, away = private
        return {
            "seat": seat,
            "hand": hand,
            "decision": decision,
            "legal_moves": list(legal),
            "prompt_v": prompt_v,
            "deadline": deadline,
            "away": away,
        }

    def _commit(
        self,
        events: list[dict[str, Any]],
        *,
        new_prompts: bool,
        moves: tuple[str, ...] = (),
        first_move_index: int = 0,
        seats: tuple[StoredSeat, ...] = (),
        new_match: NewMatch | None = None,
        match_over: bool = False,
        table_row: bool = True,
    ) -> Update:
        """Write, version, publish one update; then arm the timers and bots it calls for."""
        if new_prompts:
            self._deadline = None
        prompts = self._prompts()
        turn_seat = next(iter(prompts)) if self._window is None and prompts else None
        if turn_seat is not None and not self._bot_controlled(turn_seat):
            if self._deadline is None:
                self._deadline = self._scheduler.now() + self.options.turn_seconds
        else:
            self._deadline = None
        version = self.version + 1
        self._storage.commit(
            Change(
                self.code,
                version,
                self.status,
                self.match_number,
                seats,
                new_match,
                moves,
                first_move_index,
                match_over,
                table_row,
            )
        )
        self.version = version
        if new_prompts:
            self._prompt_v = dict.fromkeys(prompts, version)
        private: dict[int, dict[str, Any]] = {}
        if self.match is not None:
            for state in self.seats:
                if state.kind != "human":
                    continue
                current = self._private(state.seat, prompts)
                if self._last_private.get(state.seat) != current:
                    self._last_private[state.seat] = current
                    private[state.seat] = self._private_to_dict(state.seat, current)
        update = Update(version, ms(self._scheduler.now()), events, self._state(), private)
        self._history.append(update)
        self._fanout.publish(self.code, update)
        self._arm(prompts, new_prompts)
        return update

    def _arm(self, prompts: dict[int, tuple[str, list[str]]], new_prompts: bool) -> None:
        window = self._window
        if window is not None and window.handle is None:
            delay = window.closes_at - self._scheduler.now()
            window.handle = self._scheduler.call_later(delay, lambda: self._window_due(window))
        if self._deadline is not None and not self._turn_timer_armed:
            self._turn_timer_armed = True
            self._scheduler.call_later(self._deadline - self._scheduler.now(), self._turn_due)
        for seat in prompts:
            if self._bot_controlled(seat):
                self._schedule_bot(seat)

    def _window_due(self, window: Window) -> None:
        if self._window is window and not self._postponed(lambda: self._window_due(window)):
            self._close_window([])

    def _turn_due(self) -> None:
        self._turn_timer_armed = False
        deadline = self._deadline
        if deadline is None:
            return  # the turn was taken, or went to a bot or a claim window
        now = self._scheduler.now()
        # A later turn's deadline than the one this timer was armed for (event loop timers
        # keep milliseconds: one may fire a little early).
        if deadline - now > TIMER_SLACK_SECONDS:
            self._turn_timer_armed = True
            self._scheduler.call_later(deadline - now, self._turn_due)
            return
        if self._postponed(self._turn_due):
            return
        prompts = self._prompts()
        if self._window is not None or not prompts:  # (a deadline is only kept for a turn)
            self._deadline = None
            return
        state = self.seats[next(iter(prompts))]
        state.away = True
        self._deadline = None
        self._commit([{"type": "seat", **state.public()}], new_prompts=False)

    # ------------------------------------------------------------ bots

    def _schedule_bot(self, seat: int) -> None:
        prompt_v = self._prompt_v.get(seat, 0)
        key = (seat, prompt_v)
        if key in self._bot_pending:
            return
        self._bot_pending.add(key)
        self._scheduler.call_later(self.bot_delay, lambda: self._bot_go(seat, prompt_v))

    def _bot_still_due(self, seat: int, prompt_v: int) -> bool:
        return (
            seat in self._prompts()
            and self._prompt_v.get(seat) == prompt_v
            and self._bot_controlled(seat)
        )

    def _bot_go(self, seat: int, prompt_v: int) -> None:
        if not self._bot_still_due(seat, prompt_v):
            self._bot_pending.discard((seat, prompt_v))
            return
        view, legal = self.pending_decision(seat)
        bot_seed = hash((self.seed, self.match_number, self._move_count, seat)) & 0xFFFFFFFF
        self._bots.run(
            self.options.bot,
            view,
            legal,
            bot_seed,
            lambda move: self._bot_done(seat, prompt_v, move),
        )

    def _bot_done(self, seat: int, prompt_v: int, move: str) -> None:
        if not self._bot_still_due(seat, prompt_v):
            self._bot_pending.discard((seat, prompt_v))
            return  # the player came back, or the decision is gone
        if self._postponed(lambda: self._bot_done(seat, prompt_v, move)):
            return
        self._bot_pending.discard((seat, prompt_v))
        try:
            self._decide(seat, move, self._prompts()[seat], by_bot=True)
        except TableError as error:  # a bot bug must not stall the table
            log.error(
                "table %s: bot move %r for seat %s refused: %s",
                self.code,
                move,
                seat,
                error.message,
            )
            _, legal = self._prompts()[seat]
            self._decide(seat, legal[-1], self._prompts()[seat], by_bot=True)
