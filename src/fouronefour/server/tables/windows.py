"""Claim windows: after a single face card, a hook or an unhook, every seat that may claim
is asked at once and the nearest claimant wins (docs/protocol.md section 5).

The engine offers a claim to one seat at a time, nearest first; a table asks them all
together and, when the window closes, feeds the engine the answers in its own order:
declines up to the nearest claim. Who was asked is hidden; the window itself is public.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...engine import PASS, Decision, Match, Round
from ..clock import Scheduler, TimerHandle
from ..errors import ErrorCode, TableError
from .events import progress_events, round_ended
from .model import ms

#: A claimable move just made: (window kind, claimed move, its player, after a claim?).
Claimable = tuple[str, str, int, bool]


@dataclass(slots=True)
class Window:
    """A claim window held open by the table."""

    kind: str  # "hook" | "unhook"
    rank: str
    claimed: str
    claimed_seat: int
    after_claim: bool  # follows a hook or unhook (a chain is running)
    offers: list[int]  # hidden: who may claim, nearest first
    closes_at: float | None  # None while the table is paused
    answers: dict[int, str] = field(default_factory=dict)
    handle: TimerHandle | None = None
    #: Some answer is written (storage.StoredClaim), to be deleted when the window closes.
    kept: bool = False

    def legal(self) -> list[str]:
        return [self.rank * 2 if self.kind == "hook" else self.rank, PASS]

    def public(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "rank": self.rank,
            "claimed": self.claimed,
            "claimed_seat": self.claimed_seat,
            "closes_at": None if self.closes_at is None else ms(self.closes_at),
        }

    def decided(self) -> bool:
        """True once the outcome cannot change: the nearest claimant is known."""
        for seat in self.offers:
            answer = self.answers.get(seat)
            if answer is None:
                return False
            if answer != PASS:
                return True
        return True


def next_window(
    match: Match,
    claimable: Claimable | None,
    hooking: bool,
    fast: bool,
    seconds: float,
    now: float,
) -> Window | None:
    """The window that ``claimable`` (just made on ``match``) calls for, if any: at a table
    that hooks, fast (held only when somebody may claim) or fair, of ``seconds`` from ``now``."""
    if claimable is None or match.is_over or not hooking:
        return None
    kind, claimed, claimer, after_claim = claimable
    r = match.round
    engine_offers = r.decision in (Decision.HOOK, Decision.UNHOOK)
    if not engine_offers and fast:
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
        closes_at=now + seconds,
    )


@dataclass(frozen=True, slots=True)
class Resolved:
    """A closed window's outcome: the match after its moves, the moves fed to the engine,
    its public events, and what its claim makes claimable next."""

    after: Match
    moves: list[str]
    events: list[dict[str, Any]]
    claimable: Claimable | None


def resolve(window: Window, match: Match, match_number: int) -> Resolved:
    """Resolve ``window`` by nearness: declines before the nearest claimant, then its
    claim, as the engine would have had them offered one by one (an offer not answered is
    a decline)."""
    after = match
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
    events: list[dict[str, Any]] = [
        {"type": "window_close", "kind": window.kind, "rank": window.rank, "claimed_by": claimant}
    ]
    claimable: Claimable | None = None
    if claimant is not None:
        claim = moves[-1]
        events.append({"type": window.kind, "seat": claimant, "move": claim})
        events.extend(progress_events(match, after, match_number))
        if not round_ended(match, after):
            claimable = ("unhook" if window.kind == "hook" else "hook", claim, claimant, True)
    return Resolved(after, moves, events, claimable)


def window_event(window: Window | None) -> dict[str, Any] | None:
    """The ``window_open`` event of a window just opened."""
    return None if window is None else {"type": "window_open", **window.public()}


class ClaimWindows:
    """The open window of one table (``current``), if any, and who the last one asked."""

    __slots__ = ("_fast", "_scheduler", "_seconds", "closed_offers", "current")

    def __init__(self, fast: bool, seconds: float, scheduler: Scheduler) -> None:
        self._fast = fast
        self._seconds = seconds
        self._scheduler = scheduler
        self.current: Window | None = None
        self.closed_offers: frozenset[int] = frozenset()

    def open(self, window: Window | None) -> None:
        """``window`` is open now (:func:`next_window`'s); any earlier one is gone."""
        self.current = window

    def reopen(self, r: Round, running: bool) -> None:
        """After a restart: the window the engine is offering, asked again from full length
        (``running``: its timer may run; else it waits for :meth:`release`)."""
        if r.decision not in (Decision.HOOK, Decision.UNHOOK) or r.top is None:
            return
        assert r.top_seat is not None
        self.current = Window(
            kind=str(r.decision),
            rank=r.top[0],
            claimed=r.top,
            claimed_seat=r.top_seat,
            after_claim=r.log[-1]["type"] in ("hook", "unhook"),
            offers=r.offer_queue,
            closes_at=self._scheduler.now() + self._seconds if running else None,
        )

    def prompts(self) -> dict[int, tuple[str, list[str]]]:
        """The open window's pending offers (those not answered yet)."""
        window = self.current
        assert window is not None
        legal = window.legal()
        return {s: (window.kind, legal) for s in window.offers if s not in window.answers}

    def refuse_unoffered(self, seat: int) -> None:
        """Raise the right refusal for an answer from a seat with no offer pending, if the
        windows explain it (answered already, or the window closed meanwhile)."""
        window = self.current
        if window is not None and seat in window.answers:
            raise TableError(ErrorCode.ALREADY_ANSWERED, "this window is answered already")
        if seat in self.closed_offers:
            raise TableError(ErrorCode.NOT_YOUR_TURN, "the claim window has closed")

    def restore_answer(self, seat: int, answer: str) -> None:
        """An answer given to the current window before a restart (acknowledged, written)."""
        assert self.current is not None
        self.current.answers[seat] = answer
        self.keep()

    def keep(self) -> None:
        """The current window's answers are being written (they go when it closes)."""
        assert self.current is not None
        self.current.kept = True

    def answer(self, seat: int, chosen: str) -> bool:
        """Record ``seat``'s answer; True if the window may close now (fast mode, decided)."""
        window = self.current
        assert window is not None
        window.answers[seat] = chosen
        return self._fast and window.decided()

    def close(
        self, match: Match, match_number: int, events: list[dict[str, Any]]
    ) -> tuple[Match, list[str], Claimable | None]:
        """Close the open window (its timer stops; who it asked is remembered for the
        answers that come late) and resolve it: :func:`resolve`."""
        window = self.current
        assert window is not None
        if window.handle is not None:
            window.handle.cancel()
        self.current = None
        self.closed_offers = frozenset(window.offers)
        closed = resolve(window, match, match_number)
        events.extend(closed.events)
        return closed.after, closed.moves, closed.claimable

    def hold(self) -> None:
        """The table is paused: the open window's timer stops."""
        window = self.current
        if window is not None:
            if window.handle is not None:
                window.handle.cancel()
                window.handle = None
            window.closes_at = None

    def release(self) -> None:
        """The table goes on: the open window runs again from its full length."""
        window = self.current
        if window is not None and window.closes_at is None:
            window.closes_at = self._scheduler.now() + self._seconds

    def arm(self, due: Callable[[Window], None]) -> None:
        """Start the open window's timer, unless it runs already or the table is paused."""
        window = self.current
        if window is not None and window.handle is None and window.closes_at is not None:
            delay = window.closes_at - self._scheduler.now()
            window.handle = self._scheduler.call_later(delay, lambda: due(window))
