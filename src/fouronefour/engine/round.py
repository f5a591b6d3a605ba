"""One round of 414: deal to finish (docs/rules.md sections 5-9), tribute at its start (section 8).

A :class:`Round` is an immutable value: :meth:`Round.apply` returns the next round and
leaves the old one as it was, so replay, search and "unchanged after a rejected move"
need nothing more. Hands are rank counts; the log is a persistent linked list so that
each step copies a constant amount of state.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from functools import cache
from typing import Any

from .cards import (
    FACE_COUNT,
    INDEX,
    RANKS,
    Counts,
    deck_counts,
    hand_text,
    level_index,
    order_text,
    parse_ranks,
    power_table,
    rank_order,
)
from .errors import IllegalMove
from .movegen import follow_moves, lead_moves
from .moves import PASS, canonical, rate
from .rules import Rules

#: Face ranks that may be returned for a tribute card: 2 to 9 (face indexes 0..7).
RETURNABLE_FACES = range(0, 8)


class Decision(enum.StrEnum):
    """What the seat to act decides. A ``StrEnum``: ``Decision.PLAY == "play"``."""

    PLAY = "play"  # lead or follow
    HOOK = "hook"  # take a hook offer: the pair, or pass
    UNHOOK = "unhook"  # take an unhook offer: the single, or pass
    RETURN = "return"  # give a card back for a tribute card


# A log entry is a tuple: (type, seat, text, other_seat); see Round.log for the dict form.
Event = tuple[str, int, str, int]
_LogNode = tuple[Event, "_LogNode | None"] | None


def _previous_round(
    players: int, finished: Sequence[int] | None, caught: Sequence[int] | None
) -> tuple[list[int], list[int]]:
    """The previous round's finishing order and caught players, checked to be a round that
    can have happened (docs/rules.md section 7); ``caught`` is derived when None."""
    done = list(finished or ())
    for seat in (*done, *(caught or ())):
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat {seat!r} does not exist at {players} players")
    if not done:
        raise ValueError("previous_finished must name the previous round's finishers")
    for name, seats in (("previous_finished", done), ("previous_caught", caught or ())):
        twice = sorted({s for s in seats if list(seats).count(s) > 1})
        if twice:
            raise ValueError(f"{name} names seat {twice[0]} twice")
    teams = [list(range(team, players, 2)) for team in (0, 1)]
    for position, seat in enumerate(done):
        complete = [t for t in (0, 1) if all(s in done[: position + 1] for s in teams[t])]
        if complete and position < len(done) - 1:
            raise ValueError(
                f"previous_finished {done}: team {complete[0]} had all finished when seat "
                f"{seat} did, which ended the round, so seat {done[position + 1]} cannot "
                "have finished after"
            )
    winning_team = done[-1] % 2
    if not all(s in done for s in teams[winning_team]):
        raise ValueError(
            f"previous_finished {done} completes neither team: a round ends only when every "
            "player of one team has finished"
        )
    losing = [s for s in teams[1 - winning_team] if s not in done]
    if caught is None:
        return done, losing
    for seat in caught:
        if seat in done:
            raise ValueError(f"seat {seat} cannot have both finished and been caught")
        if seat % 2 == winning_team:
            raise ValueError(f"seat {seat} cannot be caught: its team {winning_team} won")
    missing = [s for s in losing if s not in caught]
    if missing:
        raise ValueError(
            f"seat {missing[0]} neither finished nor was caught: every player of the losing "
            "team who did not finish is caught"
        )
    return done, list(caught)


@cache
def _move_cards(move: str) -> tuple[tuple[int, int], ...]:
    """(rank, count) of each rank a canonical move uses: what leaves the hand."""
    return tuple((rank, n) for rank, n in enumerate(parse_ranks(move)) if n)


@cache
def _after(players: int, seat: int) -> tuple[int, ...]:
    """The other seats clockwise from ``seat``."""
    return (*range(seat + 1, players), *range(seat))


def _event_dict(event: Event) -> dict[str, Any]:
    kind, seat, text, other = event
    if kind in ("play", "hook", "unhook"):
        return {"type": kind, "seat": seat, "move": text}
    if kind == "pass":
        return {"type": "pass", "seat": seat}
    if kind == "finish":
        return {"type": "finish", "seat": seat, "place": other}
    if kind == "tribute":
        return {"type": "tribute", "seat": seat, "to": other, "card": text}
    if kind == "return":
        return {"type": "return", "seat": seat, "to": other, "card": text}
    return {"type": kind, "seat": seat}


class Round:
    """A round in progress or over. Build one with :meth:`from_hands` (or through a Match).

    >>> r = Round.from_hands(["33456", "789TJ", "3QKA", "3BR"], leader=0, level="2")
    >>> r.to_act, r.decision
    (0, <Decision.PLAY: 'play'>)
    >>> r.apply("3").decision  # seat 1 holds no 3, but seat 2 and 3 hold only one: no hook
    <Decision.PLAY: 'play'>
    """

    __slots__ = (
        "_caught",
        "_chained",
        "_claimed",
        "_decision",
        "_finished",
        "_hands",
        "_last_claimer",
        "_leader",
        "_legal",
        "_level",
        "_log",
        "_log_size",
        "_offers",
        "_passes",
        "_returns",
        "_rules",
        "_sizes",
        "_to_act",
        "_top",
        "_top_seat",
        "_tributes",
        "_window_rank",
        "_winning_team",
    )

    _rules: Rules
    _level: int
    _hands: tuple[Counts, ...]
    _sizes: tuple[int, ...]  # cards each seat holds: sum(_hands[seat]), kept with _hands
    _to_act: int | None
    _decision: Decision | None
    _top: str | None
    _top_seat: int | None
    _passes: int
    _finished: tuple[int, ...]
    _window_rank: int
    _claimed: int
    _chained: bool
    _last_claimer: int
    _offers: tuple[int, ...]
    _returns: tuple[tuple[int, int], ...]
    _tributes: tuple[tuple[int, int, str, str | None], ...]
    _log: _LogNode
    _log_size: int
    _legal: list[str] | None
    _caught: tuple[int, ...]
    _winning_team: int | None
    _leader: int

    # ----------------------------------------------------------------- construction

    @classmethod
    def from_hands(
        cls,
        hands: Sequence[str],
        leader: int | None = None,
        level: str | int = "2",
        rules: Rules | None = None,
        previous_finished: Sequence[int] | None = None,
        previous_caught: Sequence[int] | None = None,
    ) -> Round:
        """A round from explicit hands (rank strings, any order).

        Without ``previous_*`` the round starts at once with ``leader`` (default 0) to lead.
        With them, a round after another: with tribute on, the caught players pay tribute,
        receivers return cards and the first payer leads (``leader`` must then be None);
        with tribute off, the previous first finisher leads. ``previous_finished`` is the
        previous round's finishing order, which ends with the player who completed the
        winning team; ``previous_caught`` (the losing team's players who did not finish)
        follows from it and may be left out. A previous round that cannot have happened
        raises ValueError naming the problem.
        """
        if rules is None:
            rules = Rules(players=len(hands))
        if len(hands) != rules.players:
            raise ValueError(f"{len(hands)} hands given for {rules.players} players")
        level_i = level_index(level)
        counts = tuple(parse_ranks(hand) for hand in hands)
        available = deck_counts(rules.deck_count)
        for rank in range(15):
            held = sum(c[rank] for c in counts)
            if held > available[rank]:
                raise ValueError(
                    f"{held} cards of rank {RANKS[rank]} dealt, but {rules.deck_count} "
                    f"deck(s) hold only {available[rank]}"
                )
        for seat, c in enumerate(counts):
            if not any(c):
                raise ValueError(f"seat {seat} was dealt no cards")

        r = cls._build(rules, level_i, counts)

        if previous_finished is not None or previous_caught is not None:
            finished, caught = _previous_round(rules.players, previous_finished, previous_caught)
            if rules.tribute:
                if leader is not None:
                    raise ValueError("with tribute the first payer leads; do not pass leader")
                r._pay_tribute(finished, caught)
                return r
            leader = finished[0] if leader is None else leader
        leader = 0 if leader is None else leader
        if not 0 <= leader < rules.players:
            raise ValueError(f"leader {leader} is not a seat at {rules.players} players")
        r._start_play(leader)
        return r

    @classmethod
    def _build(
        cls,
        rules: Rules,
        level: int,
        hands: tuple[Counts, ...],
        *,
        to_act: int | None = None,
        decision: Decision | None = None,
        top: str | None = None,
        top_seat: int | None = None,
        passes: int = 0,
        finished: tuple[int, ...] = (),
        leader: int = 0,
        window_rank: int = -1,
        claimed: int = -1,
        chained: bool = False,
        last_claimer: int = -1,
        offers: tuple[int, ...] = (),
    ) -> Round:
        """The one constructor: every field of a round, with what it is before anything has
        happened (no one to act, no move on top, an empty log). :meth:`from_hands` and
        :func:`~fouronefour.engine.situation.round_from_situation` build through it, after
        checking what they are given; :meth:`_copy` copies the same fields.

        During a hook or unhook window, ``window_rank`` is the rank claimed, ``claimed`` the
        seat whose move is claimed, ``offers`` the seats still to be offered after
        ``to_act``; ``chained`` says whether a hook has happened in this chain and
        ``last_claimer`` who hooked or unhooked last.
        """
        r = object.__new__(cls)
        r._rules = rules
        r._level = level
        r._hands = hands
        r._sizes = tuple(map(sum, hands))
        r._to_act = to_act
        r._decision = decision
        r._top = top
        r._top_seat = top_seat
        r._passes = passes
        r._finished = finished
        r._window_rank = window_rank
        r._claimed = claimed
        r._chained = chained
        r._last_claimer = last_claimer
        r._offers = offers
        r._returns = ()
        r._tributes = ()
        r._log = None
        r._log_size = 0
        r._legal = None
        r._caught = ()
        r._winning_team = None
        r._leader = leader
        return r

    def _start_play(self, leader: int) -> None:
        self._leader = leader
        self._to_act = leader
        self._decision = Decision.PLAY

    def _pay_tribute(self, finished: list[int], caught: list[int]) -> None:
        players = self._rules.players
        powers = power_table(self._level)
        order = rank_order(self._level)
        winning_team = finished[-1] % 2
        winners = [s for s in finished if s % 2 == winning_team]
        best = winners[0]
        hands = [list(h) for h in self._hands]
        payments: list[tuple[int, int, int]] = []  # (-power, distance, payer)
        for payer in caught:
            hand = hands[payer]
            highest = next((r for r in reversed(order) if hand[r]), None)
            if highest is None:  # only in hand-built rounds: nothing to pay
                continue
            payments.append((-powers[highest], (payer - best) % players, payer))
        payments.sort()
        tributes = []
        log: _LogNode = None
        size = 0
        for i, (neg_power, _, payer) in enumerate(payments):
            receiver = winners[i % len(winners)]
            card = rank_order(self._level)[-neg_power]
            hands[payer][card] -= 1
            hands[receiver][card] += 1
            tributes.append((payer, receiver, RANKS[card], None))
            log = (("tribute", payer, RANKS[card], receiver), log)
            size += 1
        self._hands = tuple(tuple(h) for h in hands)
        self._sizes = tuple(map(sum, self._hands))
        self._tributes = tuple(tributes)
        self._returns = tuple((receiver, payer) for payer, receiver, _, _ in tributes)
        self._log, self._log_size = log, size
        if not payments:
            self._start_play(finished[0])
            return
        self._leader = payments[0][2]
        self._to_act = self._returns[0][0]
        self._decision = Decision.RETURN

    def _copy(self) -> Round:
        """A copy to apply a move to: every field of :meth:`_build`, the legal moves reset.
        (Written out rather than through ``_build``: it runs on every move.)"""
        new = object.__new__(Round)
        new._rules = self._rules
        new._level = self._level
        new._hands = self._hands
        new._sizes = self._sizes
        new._to_act = self._to_act
        new._decision = self._decision
        new._top = self._top
        new._top_seat = self._top_seat
        new._passes = self._passes
        new._finished = self._finished
        new._window_rank = self._window_rank
        new._claimed = self._claimed
        new._chained = self._chained
        new._last_claimer = self._last_claimer
        new._offers = self._offers
        new._returns = self._returns
        new._tributes = self._tributes
        new._log = self._log
        new._log_size = self._log_size
        new._legal = None
        new._caught = self._caught
        new._winning_team = self._winning_team
        new._leader = self._leader
        return new

    # ----------------------------------------------------------------- public state

    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def level(self) -> str:
        """The round's level card, e.g. ``"2"``."""
        return RANKS[self._level]

    @property
    def order(self) -> str:
        """Single cards lowest first at this round's level."""
        return order_text(self._level)

    @property
    def to_act(self) -> int | None:
        """The seat whose decision is pending; None once the round is over."""
        return self._to_act

    @property
    def decision(self) -> Decision | None:
        return self._decision

    @property
    def top(self) -> str | None:
        """The move to beat (None when a trick is to be led), or the move a window claims."""
        return self._top

    @property
    def top_seat(self) -> int | None:
        return self._top_seat

    @property
    def finished(self) -> list[int]:
        """Seats in finishing order."""
        return list(self._finished)

    @property
    def is_over(self) -> bool:
        return self._winning_team is not None

    @property
    def winning_team(self) -> int | None:
        return self._winning_team

    @property
    def caught(self) -> list[int]:
        """Players of the losing team still holding cards when the round ended."""
        return list(self._caught)

    @property
    def leader(self) -> int:
        """The seat that led (or leads) the round's first trick."""
        return self._leader

    @property
    def tributes(self) -> list[dict[str, Any]]:
        """Tribute of this round's start: payer, receiver, card, returned card (or None)."""
        return [
            {"from": payer, "to": receiver, "card": card, "returned": returned}
            for payer, receiver, card, returned in self._tributes
        ]

    def hand(self, seat: int) -> str:
        """Seat's cards, lowest first in the round's order."""
        return hand_text(self.hand_counts(seat), self._level)

    def hand_counts(self, seat: int) -> Counts:
        """Seat's cards as 15 rank counts (faces 2..A, then B, R)."""
        if (
            isinstance(seat, bool)
            or not isinstance(seat, int)
            or not 0 <= seat < self._rules.players
        ):
            raise ValueError(f"seat {seat!r} does not exist at {self._rules.players} players")
        return self._hands[seat]

    def card_counts(self) -> list[int]:
        return list(self._sizes)

    @property
    def turn(self) -> int | None:
        """Whose normal turn is next: who acts if a pending hook or unhook offer is declined.

        Public (unlike :attr:`to_act`, which reveals who is being offered a claim).
        """
        decision = self._decision
        if decision is Decision.HOOK or decision is Decision.UNHOOK:
            if self._chained:
                return self._lead_after(self._last_claimer)
            return self._next_active(self._claimed)
        return self._to_act

    @property
    def log(self) -> list[dict[str, Any]]:
        """The public events so far; declined hook and unhook offers are private, not here."""
        return self.log_since(0)

    @property
    def log_size(self) -> int:
        return self._log_size

    def log_since(self, start: int) -> list[dict[str, Any]]:
        """Public events from index ``start`` on; costs only the events returned."""
        return [_event_dict(e) for e in self.events_since(start)]

    def events_since(self, start: int) -> list[Event]:
        """The events of :meth:`log_since` as tuples ``(type, seat, text, other)``: ``text``
        is the move or card ("" if none), ``other`` the receiver of a tribute or return or
        the place of a finish (-1 if none). For readers that take every event, such as the
        environment's encoder, without building a dict for each."""
        node = self._log
        if self._log_size - start == 1 and node is not None:  # the usual case, one new event
            return [node[0]]
        events: list[Event] = []
        for _ in range(max(0, self._log_size - start)):
            assert node is not None
            events.append(node[0])
            node = node[1]
        events.reverse()
        return events

    def __repr__(self) -> str:
        hands = ", ".join(repr(self.hand(s)) for s in range(self._rules.players))
        state = "over" if self.is_over else f"{self._decision} by seat {self._to_act}"
        return f"<Round level {self.level} [{hands}] top={self._top!r} {state}>"

    # ----------------------------------------------------------------- moves

    def legal_moves(self) -> list[str]:
        """Canonical moves for :attr:`to_act` (empty once the round is over)."""
        if self._legal is not None:
            return list(self._legal)
        self._legal = self._generate()
        return list(self._legal)

    def _generate(self) -> list[str]:
        decision = self._decision
        seat = self._to_act
        if seat is None:
            return []
        hand = self._hands[seat]
        ladder = self._rules.bomb_ladder
        if decision is Decision.PLAY:
            if self._top is None:
                return lead_moves(hand, self._level, ladder)
            return follow_moves(hand, rate(self._top, self._level, ladder), self._level, ladder)
        if decision is Decision.HOOK:
            return [RANKS[self._window_rank] * 2, PASS]
        if decision is Decision.UNHOOK:
            return [RANKS[self._window_rank], PASS]
        faces = [RANKS[r] for r in rank_order(self._level) if r in RETURNABLE_FACES and hand[r]]
        if faces:
            return faces
        lowest = next(r for r in rank_order(self._level) if hand[r])
        return [RANKS[lowest]]

    def _canonical(self, move: str) -> str:
        if not isinstance(move, str):
            raise IllegalMove(f"a move must be text such as '345', not {type(move).__name__}")
        if self._to_act is None:
            raise IllegalMove(f"{move!r}: the round is over")
        try:
            text = canonical(move)
        except IllegalMove:
            if self._decision is Decision.RETURN:
                # A return card is any single rank, even one that is no move on its own.
                counts = parse_ranks(move)
                if sum(counts) == 1:
                    return RANKS[counts.index(1)]
            raise
        return text

    def resolve(self, move: str) -> str:
        """The canonical legal move that ``move`` names (``"543"`` -> ``"345"``); raises
        IllegalMove saying why if it names none."""
        legal = self._legal if self._legal is not None else self.legal_moves()
        if move in legal:
            return move
        text = self._canonical(move)
        if text not in legal:
            raise IllegalMove(self._why_illegal(text))
        return text

    def apply(self, move: str) -> Round:
        """The round after the seat to act makes ``move``; raises IllegalMove (and changes
        nothing) if the move is not legal now."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        if move not in legal:  # the usual case, a move from legal_moves(), needs no more
            move = self.resolve(move)
        return self._apply_legal(move)

    def _apply_legal(self, move: str) -> Round:
        """:meth:`apply` of a move known to be in :meth:`legal_moves` (what ``resolve``
        returns), without looking for it in the list again."""
        decision = self._decision
        new = self._copy()
        if decision is Decision.PLAY:
            new._play(move)
        elif decision is Decision.HOOK:
            new._answer_hook(move)
        elif decision is Decision.UNHOOK:
            new._answer_unhook(move)
        else:
            new._give_return(move)
        return new

    def _why_illegal(self, move: str) -> str:
        seat = self._to_act
        assert seat is not None and self._decision is not None
        decision = self._decision
        if decision is Decision.HOOK:
            return (
                f"{move!r}: seat {seat} may only hook with {RANKS[self._window_rank] * 2} or pass"
            )
        if decision is Decision.UNHOOK:
            return f"{move!r}: seat {seat} may only unhook with {RANKS[self._window_rank]} or pass"
        if decision is Decision.RETURN:
            return f"{move!r}: not a card seat {seat} may return ({', '.join(self._generate())})"
        if move == PASS:
            return f"'pass': seat {seat} leads this trick and may not pass"
        need = parse_ranks(move)
        hand = self._hands[seat]
        if any(n > hand[r] for r, n in enumerate(need)):
            return f"{move!r}: seat {seat} does not hold those cards (hand {self.hand(seat)})"
        return f"{move!r} does not beat {self._top!r} at level {self.level}"

    # -- helpers operating on a fresh copy (never on a shared Round) --

    def _next_active(self, seat: int) -> int:
        sizes = self._sizes
        players = len(sizes)
        if seat + 1 < players and sizes[seat + 1]:  # the usual case: the next seat
            return seat + 1
        for step in range(1, players + 1):
            candidate = (seat + step) % players
            if sizes[candidate]:
                return candidate
        raise AssertionError("no player holds cards in a round that is not over")

    def _lead_after(self, seat: int) -> int:
        """Who leads the next trick won by ``seat`` (section 5: pass it on if finished)."""
        return seat if self._sizes[seat] else self._next_active(seat)

    def _log_event(self, event: Event) -> None:
        self._log = (event, self._log)
        self._log_size += 1

    def _remove(self, seat: int, move: str) -> bool:
        """Take a move's cards from a hand; True if the round ended."""
        hand = list(self._hands[seat])
        for rank, n in _move_cards(move):
            hand[rank] -= n
        hands = list(self._hands)
        hands[seat] = tuple(hand)
        self._hands = tuple(hands)
        sizes = list(self._sizes)
        left = sizes[seat] = sizes[seat] - len(move)  # a canonical move has a letter a card
        self._sizes = tuple(sizes)
        if left:
            return False
        self._finished = (*self._finished, seat)
        self._log_event(("finish", seat, "", len(self._finished)))
        team = seat % 2
        players = self._rules.players
        if all(s in self._finished for s in range(team, players, 2)):
            self._winning_team = team
            self._caught = tuple(s for s in range(players) if s % 2 != team and self._sizes[s])
            self._to_act = None
            self._decision = None
            self._offers = ()
            return True
        return False

    def _set_top(self, seat: int, move: str) -> None:
        self._top = move
        self._top_seat = seat
        self._passes = 0

    def _open_window(self, claimed: int, rank: int, decision: Decision, need: int) -> bool:
        """Offer a claim on ``claimed``'s move clockwise; False if nobody can take it."""
        hands = self._hands
        offers = tuple([seat for seat in _after(len(hands), claimed) if hands[seat][rank] >= need])
        if not offers:
            return False
        self._window_rank = rank
        self._claimed = claimed
        self._to_act = offers[0]
        self._offers = offers[1:]
        self._decision = decision
        return True

    def _end_chain(self) -> None:
        """A window with no taker after a hook: the last claimer wins the trick."""
        self._start_trick(self._lead_after(self._last_claimer))

    def _start_trick(self, leader: int) -> None:
        self._top = None
        self._top_seat = None
        self._passes = 0
        self._chained = False
        self._offers = ()
        self._window_rank = -1
        self._to_act = leader
        self._decision = Decision.PLAY

    def _play(self, move: str) -> None:
        seat = self._to_act
        assert seat is not None
        if move == PASS:
            self._log = (("pass", seat, "", -1), self._log)
            self._log_size += 1
            self._passes += 1
            top_seat = self._top_seat
            assert top_seat is not None
            sizes = self._sizes
            # Seats other than top_seat still holding cards.
            others = len(sizes) - sizes.count(0) - (sizes[top_seat] > 0)
            if self._passes >= others:
                self._start_trick(self._lead_after(top_seat))
            else:
                self._to_act = self._next_active(seat)
            return
        self._log = (("play", seat, move, -1), self._log)
        self._log_size += 1
        self._top = move
        self._top_seat = seat
        self._passes = 0
        if self._remove(seat, move):
            return
        if len(move) == 1 and self._rules.hooking:
            rank = INDEX[move]
            if rank < FACE_COUNT and self._open_window(seat, rank, Decision.HOOK, 2):
                return
        self._to_act = self._next_active(seat)

    def _decline(self) -> bool:
        """Pass the offer to the next eligible seat; False if nobody is left."""
        if self._offers:
            self._to_act = self._offers[0]
            self._offers = self._offers[1:]
            return True
        return False

    def _answer_hook(self, move: str) -> None:
        seat = self._to_act
        assert seat is not None
        if move == PASS:
            if self._decline():
                return
            if self._chained:
                self._end_chain()
            else:  # no chain at all: the single stands, play goes on after its player
                self._offers = ()
                self._window_rank = -1
                self._to_act = self._next_active(self._claimed)
                self._decision = Decision.PLAY
            return
        self._log_event(("hook", seat, move, -1))
        self._set_top(seat, move)
        self._chained = True
        self._last_claimer = seat
        if self._remove(seat, move):
            return
        if not self._open_window(seat, self._window_rank, Decision.UNHOOK, 1):
            self._end_chain()

    def _answer_unhook(self, move: str) -> None:
        seat = self._to_act
        assert seat is not None
        if move == PASS:
            if not self._decline():
                self._end_chain()
            return
        self._log_event(("unhook", seat, move, -1))
        self._set_top(seat, move)
        self._last_claimer = seat
        if self._remove(seat, move):
            return
        if not self._open_window(seat, self._window_rank, Decision.HOOK, 2):
            self._end_chain()

    def _give_return(self, move: str) -> None:
        receiver, payer = self._returns[0]
        card = RANKS.index(move)
        hands = [list(h) for h in self._hands]
        hands[receiver][card] -= 1
        hands[payer][card] += 1
        self._hands = tuple(tuple(h) for h in hands)
        sizes = list(self._sizes)
        sizes[receiver] -= 1
        sizes[payer] += 1
        self._sizes = tuple(sizes)
        self._log_event(("return", receiver, move, payer))
        done = len(self._tributes) - len(self._returns)
        payer_, receiver_, tribute_card, _ = self._tributes[done]
        tributes = list(self._tributes)
        tributes[done] = (payer_, receiver_, tribute_card, move)
        self._tributes = tuple(tributes)
        self._returns = self._returns[1:]
        if self._returns:
            self._to_act = self._returns[0][0]
        else:
            self._start_play(self._leader)

    # ----------------------------------------------------------------- views

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see (docs/rules.md section 9): its own hand and pending decision,
        and public facts. JSON-serialisable."""
        players = self._rules.players
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} does not exist at {players} players")
        own = self._to_act == seat
        top, top_seat = self._top, self._top_seat
        if self._chained and self._decision in (Decision.HOOK, Decision.UNHOOK):
            # Show what a closed window would: the chain's trick is over (section 9).
            top = top_seat = None
        return {
            "seat": seat,
            "players": players,
            "rules": self._rules.to_dict(),
            "level": self.level,
            "order": self.order,
            "hand": self.hand(seat),
            "counts": self.card_counts(),
            "finished": list(self._finished),
            "turn": self.turn,
            "leader": self._leader,
            "top": top,
            "top_seat": top_seat,
            "decision": str(self._decision) if own and self._decision is not None else None,
            "legal_moves": self.legal_moves() if own else [],
            "tributes": self.tributes,
            "log": self.log,
            "is_over": self.is_over,
            "winning_team": self._winning_team,
            "caught": list(self._caught),
        }

    def public_view(self) -> dict[str, Any]:
        """What a spectator may see: public facts only (no hand, no pending decision)."""
        view = self.view(0)
        view.update(seat=None, hand="", decision=None, legal_moves=[])
        return view

    @property
    def offer_queue(self) -> list[int]:
        """Hidden information, for a table authority only: during a hook or unhook window,
        every seat that may claim, in the order the engine offers them (``to_act`` first);
        empty otherwise. A server uses it to prompt all eligible players at once."""
        if self._decision not in (Decision.HOOK, Decision.UNHOOK) or self._to_act is None:
            return []
        return [self._to_act, *self._offers]

    def reveal(self) -> dict[str, Any]:
        """Full information, every hand included: for finished-game replays and debugging,
        never for a player's eyes during play."""
        return {
            "hands": [self.hand(s) for s in range(self._rules.players)],
            "to_act": self._to_act,
            "decision": None if self._decision is None else str(self._decision),
            "top": self._top,
            "top_seat": self._top_seat,
            "level": self.level,
            "finished": list(self._finished),
        }


__all__ = ["Decision", "Round"]
