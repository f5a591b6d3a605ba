"""The observation vector: what one seat may see, as fixed-size 0/1 features.

Everything here is computed from public facts and the observer's own hand and decision,
the fields of ``Round.view(seat)`` / ``Match.view(seat)``. :func:`encode_view` builds an
observation from such a view; the environment builds the same vector incrementally
(:class:`PublicRecord` takes each public event once), and the tests check that both agree
at every step for every seat.

Seats are relative: relative seat ``i`` is absolute seat ``(observer + i) % players``, so the
observer is always relative seat 0, its partner 2 at a 4-player table.

Fair hook windows (docs/rules.md section 9): while a hook or unhook offer that continues a chain
waits, the view shows the table as if nobody could claim (no move to beat, the trick to be
led by the seat whose turn is next); the seat offered learns the rank from its decision and
legal moves, and the ``chain`` feature tells it that declining ends the trick.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine import RANKS, Decision, Rules
from ..engine.cards import FACE_COUNT, INDEX, parse_ranks
from .actions import ActionTable, action_table

Observation = npt.NDArray[np.int8]

#: Own decision features, in order. "lead" is a ``play`` decision with no move to beat,
#: "follow" one with a move to beat.
DECISION_FEATURES = ("lead", "follow", "hook", "unhook", "return")
_RANK_COUNT = len(RANKS)
_INT8 = np.dtype(np.int8)


@dataclass(frozen=True, slots=True)
class Section:
    """A named slice of the observation vector."""

    name: str
    start: int
    shape: tuple[int, ...]
    meaning: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def stop(self) -> int:
        return self.start + self.size


class ObservationLayout:
    """The sections of the observation vector of a rule set, in order.

    >>> layout = ObservationLayout(Rules(players=4))
    >>> layout.size, layout["hand"].shape, layout["played"].shape
    (1265, (15, 8), (4, 15, 8))
    """

    def __init__(self, rules: Rules, table: ActionTable | None = None) -> None:
        players = rules.players
        table = table or action_table(rules)
        #: Most cards of one rank in the decks: the length of a rank's thermometer.
        self.copies = 4 * rules.deck_count
        #: Card counts are a thermometer up to this many cards (a full hand plus tribute).
        self.count_cap = -(-54 * rules.deck_count // players) + (players + 1) // 2
        card_set = (_RANK_COUNT, self.copies)
        specs: list[tuple[str, tuple[int, ...], str]] = [
            ("hand", card_set, "own hand: [r, k] = 1 if it holds more than k cards of rank r"),
            (
                "played",
                (players, *card_set),
                "cards relative seat i played this round (plays, hooks, unhooks), same code",
            ),
            (
                "cards_left",
                (players, self.count_cap),
                "[i, k] = 1 if relative seat i holds more than k cards",
            ),
            ("finished", (players, players), "[i, p] = 1 if relative seat i finished (p+1)-th"),
            ("top_move", (table.size,), "the move to beat, one-hot by action; 0 if none"),
            ("top_seat", (players,), "relative seat that played the move to beat"),
            ("passed", (players,), "relative seats that passed since the move to beat"),
            ("turn", (players,), "relative seat whose normal turn is next (public)"),
            (
                "decision",
                (len(DECISION_FEATURES),),
                "own pending decision: " + ", ".join(DECISION_FEATURES) + "; 0 if none",
            ),
            ("chain", (1,), "own hook/unhook offer continues a chain (declining ends the trick)"),
            ("level", (FACE_COUNT,), "the round's level card, one-hot over 2..A"),
            ("team_levels", (2, FACE_COUNT), "levels of the observer's team, then the other"),
            ("tribute_paid", (players, _RANK_COUNT), "tribute cards relative seat i paid"),
            ("tribute_received", (players, _RANK_COUNT), "tribute cards relative seat i got"),
            ("returned", (players, _RANK_COUNT), "cards relative seat i gave back for tribute"),
            ("return_received", (players, _RANK_COUNT), "cards given back to relative seat i"),
        ]
        self.sections: tuple[Section, ...] = ()
        start = 0
        for name, shape, meaning in specs:
            section = Section(name, start, shape, meaning)
            self.sections = (*self.sections, section)
            start = section.stop
        self.size = start
        self._by_name = {s.name: s for s in self.sections}

    def __getitem__(self, name: str) -> Section:
        return self._by_name[name]

    def split(self, observation: npt.NDArray[Any]) -> dict[str, npt.NDArray[Any]]:
        """The observation cut into its sections, each in its shape (for reading and tests)."""
        return {s.name: observation[s.start : s.stop].reshape(s.shape) for s in self.sections}

    def markdown(self) -> str:
        """The layout as a table (docs/env.md shows it for 4 players)."""
        lines = ["| slice | name | shape | meaning |", "|---|---|---|---|"]
        for s in self.sections:
            shape = " x ".join(str(n) for n in s.shape)
            lines.append(f"| {s.start}-{s.stop - 1} | `{s.name}` | {shape} | {s.meaning} |")
        return "\n".join(lines)


class PublicRecord:
    """Public facts of the round so far that a view's log holds, kept up to date event by
    event: cards played by each seat, who passed since the move to beat, tribute and returns,
    and whether the last public event was a hook or unhook.

    The encoder reads it as ready-made byte codes, so that an observation costs a few slice
    copies instead of numpy calls per section.
    """

    __slots__ = (
        "_encoder",
        "_tribute_code",
        "has_tribute",
        "last_was_claim",
        "passed",
        "played",
        "played_code",
        "tribute",
    )

    def __init__(self, encoder: Encoder) -> None:
        players = encoder.players
        self._encoder = encoder
        self.played = [[0] * _RANK_COUNT for _ in range(players)]
        self.played_code = [bytearray(encoder.card_code[0] * _RANK_COUNT) for _ in range(players)]
        self.passed: list[int] = []
        #: [paid, received, returned, return received][seat][rank]: 0/1.
        self.tribute = [[bytearray(_RANK_COUNT) for _ in range(players)] for _ in range(4)]
        self.has_tribute = False
        self._tribute_code: dict[int, bytes] = {}
        self.last_was_claim = False

    def play(self, seat: int, action: int, claim: bool = False) -> None:
        """A play, or a hook/unhook when ``claim``: the seat's cards join the played ones."""
        played = self.played[seat]
        code = self.played_code[seat]
        card_code = self._encoder.card_code
        copies = self._encoder.copies
        for rank, count in self._encoder.action_cards[action]:
            played[rank] += count
            code[rank * copies : (rank + 1) * copies] = card_code[played[rank]]
        self.passed.clear()
        self.last_was_claim = claim

    def pass_turn(self, seat: int) -> None:
        self.passed.append(seat)
        self.last_was_claim = False

    def pay_tribute(self, payer: int, receiver: int, rank: int) -> None:
        self.tribute[0][payer][rank] = 1
        self.tribute[1][receiver][rank] = 1
        self.has_tribute = True
        self._tribute_code.clear()

    def give_back(self, giver: int, payer: int, rank: int) -> None:
        self.tribute[2][giver][rank] = 1
        self.tribute[3][payer][rank] = 1
        self.has_tribute = True
        self._tribute_code.clear()
        self.last_was_claim = False

    def tribute_code(self, seat: int) -> bytes:
        """The tribute sections as seen from ``seat`` (rotated), cached until they change."""
        code = self._tribute_code.get(seat)
        if code is None:
            players = len(self.played)
            code = b"".join(
                table[(seat + i) % players] for table in self.tribute for i in range(players)
            )
            self._tribute_code[seat] = code
        return code

    def record_event(self, kind: str, seat: int, text: str, other: int) -> None:
        """Take one event as ``Round.events_since`` gives it (what :meth:`record` reads from
        a view's log, without the dict)."""
        if kind == "pass":
            self.pass_turn(seat)
        elif kind in ("play", "hook", "unhook"):
            self.play(seat, self._encoder.table.play_index[text], kind != "play")
        elif kind == "tribute":
            self.pay_tribute(seat, other, INDEX[text])
        elif kind == "return":
            self.give_back(seat, other, INDEX[text])

    def record(self, event: Mapping[str, Any]) -> None:
        """Take one event of a view's log."""
        kind = event["type"]
        if kind in ("play", "hook", "unhook"):
            action = self._encoder.table.play_index[event["move"]]
            self.play(event["seat"], action, kind != "play")
        elif kind == "pass":
            self.pass_turn(event["seat"])
        elif kind == "tribute":
            self.pay_tribute(event["seat"], event["to"], INDEX[event["card"]])
        elif kind == "return":
            self.give_back(event["seat"], event["to"], INDEX[event["card"]])


class Encoder:
    """Builds observation vectors and action masks for one rule set."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.players = rules.players
        self.table = action_table(rules)
        self.layout = ObservationLayout(rules, self.table)
        layout = self.layout
        self.copies = copies = layout.copies
        #: card_code[c]: the thermometer of c cards of a rank (c ones, then zeros).
        self.card_code = [bytes([1] * c + [0] * (copies - c)) for c in range(copies + 1)]
        cap = layout.count_cap
        self._count_code = [
            bytes([1] * min(c, cap) + [0] * (cap - min(c, cap)))
            for c in range(54 * rules.deck_count + 1)
        ]
        #: The (rank, count) pairs of the cards each action moves.
        self.action_cards = [
            tuple((rank, n) for rank, n in enumerate(entry.counts) if n)
            for entry in self.table.entries
        ]
        self._hand_code: list[tuple[Sequence[int] | None, bytes]] = [(None, b"")] * self.players
        self._set_size = _RANK_COUNT * copies
        self._played = layout["played"].start
        self._left = layout["cards_left"].start
        self._tribute = layout["tribute_paid"].start
        self._finished = layout["finished"].start
        self._top_move = layout["top_move"].start
        self._top_seat = layout["top_seat"].start
        self._passed = layout["passed"].start
        self._turn = layout["turn"].start
        self._decision = layout["decision"].start
        self._chain = layout["chain"].start
        self._level = layout["level"].start
        self._team_levels = layout["team_levels"].start
        # encode() joins these three sections in one go: they must stay first and in a row.
        assert layout["played"].start == self._set_size
        assert layout["cards_left"].start == layout["played"].stop
        self._zeros_after_counts = bytes(layout.size - layout["cards_left"].stop)

    def new_record(self) -> PublicRecord:
        return PublicRecord(self)

    def _hand(self, seat: int, hand: Sequence[int]) -> bytes:
        cached_hand, code = self._hand_code[seat]
        if cached_hand is not hand and cached_hand != hand:
            card_code = self.card_code
            code = b"".join([card_code[count] for count in hand])
            self._hand_code[seat] = (hand, code)
        return code

    def encode(
        self,
        seat: int,
        record: PublicRecord,
        hand: Sequence[int],
        counts: Sequence[int],
        finished: Sequence[int],
        top: str | None,
        top_seat: int | None,
        turn: int | None,
        decision: Decision | str | None,
        level: int,
        levels: tuple[int, int],
    ) -> Observation:
        """The observation of ``seat`` from the fields of its view: its own hand and decision
        (None unless it acts), the round's public facts and the record of public events."""
        players = self.players
        # hand, played and cards_left come first and in a row: one join of ready-made codes,
        # seats rotated so that the observer is relative seat 0, then zeros for the rest.
        played_code = record.played_code
        count_code = self._count_code
        parts: list[bytes | bytearray] = [self._hand(seat, hand)]
        parts += played_code[seat:]
        parts += played_code[:seat]
        parts += map(count_code.__getitem__, counts[seat:])
        parts += map(count_code.__getitem__, counts[:seat])
        parts.append(self._zeros_after_counts)
        buffer = bytearray(b"".join(parts))
        if record.has_tribute:
            code = record.tribute_code(seat)
            buffer[self._tribute : self._tribute + len(code)] = code

        buffer[self._level + level] = 1
        team = seat % 2
        buffer[self._team_levels + levels[team]] = 1
        buffer[self._team_levels + FACE_COUNT + levels[1 - team]] = 1
        for place, finisher in enumerate(finished):
            buffer[self._finished + ((finisher - seat) % players) * players + place] = 1
        if turn is not None:
            buffer[self._turn + (turn - seat) % players] = 1
        if top is not None and top_seat is not None:
            buffer[self._top_move + self.table.play_index[top]] = 1
            buffer[self._top_seat + (top_seat - seat) % players] = 1
            for passer in record.passed:
                buffer[self._passed + (passer - seat) % players] = 1
        if decision is not None:
            if decision == Decision.PLAY:
                buffer[self._decision + (0 if top is None else 1)] = 1
            else:
                buffer[self._decision + DECISION_FEATURES.index(str(decision))] = 1
                if record.last_was_claim and decision in (Decision.HOOK, Decision.UNHOOK):
                    buffer[self._chain] = 1
        return np.frombuffer(buffer, dtype=_INT8)

    def mask(self, legal_moves: Sequence[str], decision: Decision | str | None) -> Observation:
        """The action mask of a list of legal moves (all zero for an empty list)."""
        return np.frombuffer(self.mask_bytes(legal_moves, decision), dtype=_INT8)

    def mask_bytes(self, legal_moves: Sequence[str], decision: Decision | str | None) -> bytearray:
        """The action mask as 0/1 bytes."""
        mask = bytearray(self.table.size)
        index = self.table.return_index if decision == Decision.RETURN else self.table.play_index
        for action in map(index.__getitem__, legal_moves):
            mask[action] = 1
        return mask


def encode_view(
    view: Mapping[str, Any], levels: Sequence[str] | None = None
) -> dict[str, Observation]:
    """The observation ``{"observation", "action_mask"}`` of a seat's view.

    ``view`` is ``Match.view(seat)`` or ``Round.view(seat)``; a round's view has no team
    levels, so give ``levels`` (team 0 first) or both teams are taken to be at the round's
    level. This is the reference the environment's incremental encoding is tested against,
    and what a bot needs to use a policy trained on the environment.
    """
    rules = Rules.from_dict(view["rules"])
    encoder = _encoder(rules)
    record = encoder.new_record()
    for event in view["log"]:
        record.record(event)
    team_levels = levels if levels is not None else view.get("levels")
    if team_levels is None:
        team_levels = (view["level"], view["level"])
    decision = view["decision"]
    observation = encoder.encode(
        view["seat"],
        record,
        parse_ranks(view["hand"]),
        view["counts"],
        view["finished"],
        view["top"],
        view["top_seat"],
        view["turn"],
        decision,
        INDEX[view["level"]],
        (INDEX[team_levels[0]], INDEX[team_levels[1]]),
    )
    return {"observation": observation, "action_mask": encoder.mask(view["legal_moves"], decision)}


_ENCODERS: dict[Rules, Encoder] = {}


def _encoder(rules: Rules) -> Encoder:
    encoder = _ENCODERS.get(rules)
    if encoder is None:
        encoder = _ENCODERS[rules] = Encoder(rules)
    return encoder


__all__ = [
    "DECISION_FEATURES",
    "Encoder",
    "Observation",
    "ObservationLayout",
    "PublicRecord",
    "Section",
    "encode_view",
]
