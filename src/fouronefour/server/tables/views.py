"""What each connection of a table sees: the pending decisions, the public state, each
seat's private part (its hand and prompt), and a fresh connection's snapshot.

Hidden information is decided here: a seat's hand and prompt go only into that seat's
``you``; a spectator's view has no hand; who a claim window asked is never public.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...engine import Round
from ..errors import ErrorCode, TableError
from .model import Prompt, ms

if TYPE_CHECKING:
    from .core import TableCore as Table
    from .model import SeatState
    from .windows import Window

#: A seat's private part as compared between versions: (hand, decision, legal moves,
#: prompt version, deadline in ms, away).
Private = tuple[Any, ...]


class SeatViews:
    """The views of one table, with the caches that keep them cheap to build each move."""

    __slots__ = ("_hands", "_last_private", "_table")

    def __init__(self, table: Table) -> None:
        self._table = table
        self._hands: dict[int, tuple[object, str]] = {}
        self._last_private: dict[int, Private] = {}

    def prompts(self) -> dict[int, Prompt]:
        """Each seat's pending decision as the table offers it (several during a window)."""
        table = self._table
        state = table.current  # (one read of the table: this runs several times a decision)
        m = state.match
        if state.status != "playing" or m is None or m.is_over:
            return {}
        if table.round_pause.current is not None:
            return {}
        if table.windows.current is not None:
            return table.windows.prompts()
        r = m.round
        seat = r.to_act
        if seat is None or r.decision is None:
            return {}
        return {seat: (str(r.decision), r.legal_moves())}

    def state(self) -> dict[str, Any] | None:
        """The public state (the same for every connection); None before the first match."""
        table = self._table
        current = table.current  # (one read of the table: this runs every decision)
        m = current.match
        if m is None:
            return None
        pause = table.round_pause.current
        if pause is not None:  # the round that ended stays on show
            r = pause.ended
            return {
                "status": current.status,
                "match_number": current.match_number,
                "round_number": pause.round_number,
                "level": r.level,
                "levels": list(m.levels),
                "order": r.order,
                "turn": None,
                "leader": r.leader,
                "top": r.top,
                "top_seat": r.top_seat,
                "counts": r.card_counts(),
                "finished": r.finished,
                "tributes": r.tributes,
                "window": None,
                "deadline": None,
                "match_over": False,
                "match_winner": None,
                "round_end": table.round_pause.public(),
                "paused": current.paused,
            }
        r = m.round
        window = table.windows.current
        top, top_seat = _on_top(window, r.top, r.top_seat)
        deadline = table.deadline
        return {
            "status": current.status,
            "match_number": current.match_number,
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
            "deadline": None if deadline is None else ms(deadline),
            "match_over": m.is_over,
            "match_winner": m.winning_team,
            "round_end": None,
            "paused": current.paused,
        }

    def _shown_round(self) -> Round | None:
        """The round whose hands are shown: the one played, or during an end-of-round pause
        the one that ended."""
        table = self._table
        m = table.current.match
        if m is None:
            return None
        pause = table.round_pause.current
        return m.round if pause is None else pause.ended

    def _hand(self, seat: int, r: Round | None) -> str:
        """The seat's hand text in ``r``, cached: the engine keeps an unchanged hand's counts
        object."""
        if r is None:
            return ""
        counts = r.hand_counts(seat)
        cached = self._hands.get(seat)
        if cached is not None and cached[0] is counts:
            return cached[1]
        text = r.hand(seat)
        self._hands[seat] = (counts, text)
        return text

    def _private(self, seat: SeatState, prompts: dict[int, Prompt], r: Round | None) -> Private:
        table = self._table
        hand = self._hand(seat.seat, r)
        prompt = prompts.get(seat.seat)
        if prompt is None:
            return (hand, None, (), None, None, seat.away)
        window = table.windows.current
        deadline = window.closes_at if window is not None else table.deadline
        return (
            hand,
            prompt[0],
            tuple(prompt[1]),
            table.prompt_v.get(seat.seat),
            None if deadline is None else ms(deadline),
            seat.away,
        )

    @staticmethod
    def _private_dict(seat: int, private: Private) -> dict[str, Any]:
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

    def you(self, seat: int, prompts: dict[int, Prompt]) -> dict[str, Any]:
        """``seat``'s private part now."""
        state = self._table.current.seats[seat]
        return self._private_dict(seat, self._private(state, prompts, self._shown_round()))

    def changed(self, prompts: dict[int, Prompt]) -> dict[int, dict[str, Any]]:
        """The ``you`` of each human seat whose private part changed since it was last sent."""
        table = self._table
        private: dict[int, dict[str, Any]] = {}
        if table.current.match is None:
            return private
        last = self._last_private
        r = self._shown_round()
        for state in table.current.seats:
            if state.kind != "human":
                continue
            current = self._private(state, prompts, r)
            if last.get(state.seat) != current:
                last[state.seat] = current
                private[state.seat] = self._private_dict(state.seat, current)
        return private

    def resend(self, *seats: int) -> None:
        """The next update carries these seats' ``you`` even if unchanged: their connections
        now act for another seat (the host swapped two seats), and what they hold is the
        old seat's."""
        for seat in seats:
            self._last_private.pop(seat, None)

    def snapshot(self, seat: int | None) -> dict[str, Any]:
        """Everything a fresh connection of ``seat`` (None: a spectator) needs."""
        table = self._table
        prompts = self.prompts()
        game = None
        you = None
        if table.match is not None:
            m = table.match
            game = m.view(seat) if seat is not None else m.public_view()
            pause = table.round_pause.current
            if pause is not None:  # the round that ended, with the match's facts after it
                r = pause.ended
                shown = r.view(seat) if seat is not None else r.public_view()
                for key in ("levels", "results", "match_over", "match_winner"):
                    shown[key] = game[key]
                shown["round_number"] = pause.round_number
                game = shown
            own = prompts.get(seat) if seat is not None else None
            game["decision"], game["legal_moves"] = (own[0], list(own[1])) if own else (None, [])
            game["top"], game["top_seat"] = _on_top(
                table.windows.current, game["top"], game["top_seat"]
            )
            if seat is not None:
                you = self.you(seat, prompts)
        return {
            "type": "snapshot",
            "v": table.version,
            "server_time": ms(table.scheduler.now()),
            "table": table.summary(),
            "state": self.state(),
            "you": you,
            "game": game,
            "chat": list(table.chat.recent),
        }

    def pending_decision(self, seat: int) -> tuple[dict[str, Any], list[str]]:
        """The view and legal moves of ``seat``'s pending decision (for hints and bots)."""
        prompts = self.prompts()
        m = self._table.current.match
        if seat not in prompts or m is None:
            raise TableError(ErrorCode.NO_DECISION, f"seat {seat} has no decision to take")
        decision, legal = prompts[seat]
        view = m.view(seat)
        view["decision"], view["legal_moves"] = decision, list(legal)
        return view, list(legal)


def _on_top(window: Window | None, top: str | None, top_seat: int | None) -> tuple[Any, Any]:
    """The move on top as everyone sees it: what it would be if nobody could claim
    (docs/rules.md, section 9 and its notes). While a first single's window is open, that
    single (nobody claiming, it stands); while a window after a hook or an unhook is open,
    none (nobody claiming, the chain's trick is over and ``turn`` is the last claimer's
    lead); otherwise the engine's."""
    if window is None:
        return top, top_seat
    if window.after_claim:
        return None, None
    return window.claimed, window.claimed_seat
