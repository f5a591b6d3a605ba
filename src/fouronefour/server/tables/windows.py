"""Claim windows: after a single face card, a hook or an unhook, every seat that may claim
is asked at once and the nearest claimant wins (docs/protocol.md section 5).

The engine offers a claim to one seat at a time, nearest first; a table asks them all
together and, when the window closes, feeds the engine the answers in its own order:
declines up to the nearest claim. Who was asked is hidden; the window itself is public.

A window is a frozen value in the table's state, each answer a new one; the steps that
open, answer and close it are :mod:`.play`'s. :class:`ClaimWindows` keeps its timer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ...engine import PASS, Decision, Match, Round
from ..clock import Scheduler, TimerHandle
from ..errors import ErrorCode, TableError
from .events import progress_events, round_ended
from .model import ms

#: A claimable move just made: (window kind, claimed move, its player, after a claim?).
Claimable = tuple[str, str, int, bool]


@dataclass(frozen=True, slots=True)
class Window:
    """A claim window held open by the table (frozen: each answer a new value)."""

    kind: str  # "hook" | "unhook"
    rank: str
    claimed: str
    claimed_seat: int
    after_claim: bool  # follows a hook or unhook (a chain is running)
    offers: list[int]  # hidden: who may claim, nearest first
    closes_at: float | None  # None while the table is paused
    answers: Mapping[int, str] = field(default_factory=dict)
    #: Some answer is written (storage.StoredClaim), to be deleted when the window closes.
    kept: bool = False

    def answered(self, seat: int, chosen: str, kept: bool = False) -> Window:
        """The window with ``seat``'s answer (``kept``: written, as a player's is)."""
        return replace(self, answers={**self.answers, seat: chosen}, kept=self.kept or kept)

    def held(self) -> Window:
        """The table is paused: the window waits."""
        return replace(self, closes_at=None)

    def running(self, now: float, seconds: float) -> Window:
        """The table goes on: a window that waited runs again from its full length."""
        return self if self.closes_at is not None else replace(self, closes_at=now + seconds)

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


def reopened(r: Round, closes_at: float | None) -> Window | None:
    """After a restart: the window the engine is offering on ``r``, if any, asked again
    (to close at ``closes_at``; None: it waits for the table to go on)."""
    if r.decision not in (Decision.HOOK, Decision.UNHOOK) or r.top is None:
        return None
    assert r.top_seat is not None
    return Window(
        kind=str(r.decision),
        rank=r.top[0],
        claimed=r.top,
        claimed_seat=r.top_seat,
        after_claim=r.log[-1]["type"] in ("hook", "unhook"),
        offers=r.offer_queue,
        closes_at=closes_at,
    )


def window_prompts(window: Window) -> dict[int, tuple[str, list[str]]]:
    """The window's pending offers (those not answered yet)."""
    legal = window.legal()
    return {s: (window.kind, legal) for s in window.offers if s not in window.answers}


def refuse_unoffered(window: Window | None, closed_offers: frozenset[int], seat: int) -> None:
    """Raise the right refusal for an answer from a seat with no offer pending, if the
    windows explain it (answered already, or the window closed meanwhile)."""
    if window is not None and seat in window.answers:
        raise TableError(ErrorCode.ALREADY_ANSWERED, "this window is answered already")
    if seat in closed_offers:
        raise TableError(ErrorCode.NOT_YOUR_TURN, "the claim window has closed")


class ClaimWindows:
    """The open window of one table (``current``), if any, and its timer; the table hands
    it each window its steps make (:meth:`keep`)."""

    __slots__ = ("_armed", "_handle", "_scheduler", "current")

    def __init__(self, scheduler: Scheduler) -> None:
        self._scheduler = scheduler
        self.current: Window | None = None
        self._handle: TimerHandle | None = None
        #: When the window the timer was armed for closes.
        self._armed: float | None = None

    def keep(self, window: Window | None) -> None:
        """``window`` is open now (None: none); a timer for another closing time stops.
        (The timer goes by the closing time alone: a window that closes when the one it
        was armed for would have closes then too.)"""
        self.current = window
        closes_at = None if window is None else window.closes_at
        if self._handle is not None and self._armed != closes_at:
            self._handle.cancel()
            self._handle = self._armed = None

    def prompts(self) -> dict[int, tuple[str, list[str]]]:
        """The open window's pending offers (those not answered yet)."""
        assert self.current is not None
        return window_prompts(self.current)

    def arm(self, due: Callable[[float], None]) -> None:
        """Start the open window's timer, unless it runs already or the table is paused."""
        window = self.current
        if window is None or window.closes_at is None or self._handle is not None:
            return
        closes_at = window.closes_at
        self._armed = closes_at
        delay = closes_at - self._scheduler.now()
        self._handle = self._scheduler.call_later(delay, lambda: self._fire(closes_at, due))

    def _fire(self, closes_at: float, due: Callable[[float], None]) -> None:
        if self._armed == closes_at:  # (spent: the next window may arm its own)
            self._handle = self._armed = None
        due(closes_at)
