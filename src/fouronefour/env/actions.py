"""The fixed action space: every decision 414 allows at a table, numbered once.

The table is generated from the rule set (the number of decks bounds the bombs):

- ``pass`` (also: decline a hook or unhook offer),
- singles ``2 .. A, B, R`` (also: unhook with that rank),
- pairs ``22 .. AA`` (also: hook with that rank),
- straights by length 3..12, then top card,
- double dragons by number of pairs 3..12, then top pair,
- n of a kind by size 3 .. the cards a rank has in the decks, then rank,
- the double jokers ``BB`` (two decks or more), ``BR``, ``RR`` (two decks or more),
- ``44A``,
- ``return 2 .. return R``: the card a tribute receiver gives back.

A move's action does not depend on the level: ``"22"`` is the same action at every level.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from ..engine import PASS, RANKS, Decision, Rules, canonical
from ..engine.cards import FACE_COUNT, RUN_HIGH, RUN_LOW

#: The action kinds in table order (``Kind`` values plus ``pass`` and ``return``).
ACTION_KINDS = ("pass", "single", "pair", "straight", "double_dragon", "bomb", "return")
RETURN_PREFIX = "return "


class UnknownAction(ValueError):
    """An action number or move that the table does not hold."""


@dataclass(frozen=True, slots=True)
class ActionEntry:
    """One row of the table."""

    action: int
    label: str  # "pass", "345", "return 7"
    move: str  # the text Round.apply takes: "pass", "345", "7" for "return 7"
    kind: str  # one of ACTION_KINDS
    counts: tuple[int, ...]  # the 15 rank counts of the cards the action moves


def _rank_counts(text: str) -> tuple[int, ...]:
    counts = [0] * len(RANKS)
    if text != PASS:
        for ch in text:
            counts[RANKS.index(ch)] += 1
    return tuple(counts)


def _generate(rules: Rules) -> list[tuple[str, str, str]]:
    """(label, move, kind) rows in table order."""
    decks = rules.deck_count
    rows: list[tuple[str, str, str]] = [(PASS, PASS, "pass")]
    rows.extend((rank, rank, "single") for rank in RANKS)
    rows.extend((face * 2, face * 2, "pair") for face in RANKS[:FACE_COUNT])
    run_faces = RANKS[RUN_LOW : RUN_HIGH + 1]
    for length in range(3, len(run_faces) + 1):
        for low in range(len(run_faces) - length + 1):
            text = run_faces[low : low + length]
            rows.append((text, text, "straight"))
    for pairs in range(3, len(run_faces) + 1):
        for low in range(len(run_faces) - pairs + 1):
            text = "".join(ch * 2 for ch in run_faces[low : low + pairs])
            rows.append((text, text, "double_dragon"))
    for size in range(3, 4 * decks + 1):
        for rank in RANKS:
            available = decks if rank in "BR" else 4 * decks
            if size <= available:
                rows.append((rank * size, rank * size, "bomb"))
    jokers = ["BB", "BR", "RR"] if decks >= 2 else ["BR"]
    rows.extend((text, text, "bomb") for text in jokers)
    rows.append(("44A", "44A", "bomb"))
    rows.extend((RETURN_PREFIX + rank, rank, "return") for rank in RANKS)
    return rows


class ActionTable:
    """The actions of a rule set, with the move each one stands for.

    >>> table = ActionTable(Rules(players=4))
    >>> table.size, table.action_to_move(0), table.move_to_action("345")
    (236, 'pass', 29)
    >>> table.move_to_action("7", "return"), table.labels[table.move_to_action("7", "return")]
    (226, 'return 7')
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        rows = _generate(rules)
        self.entries: tuple[ActionEntry, ...] = tuple(
            ActionEntry(i, label, move, kind, _rank_counts(move))
            for i, (label, move, kind) in enumerate(rows)
        )
        self.size = len(self.entries)
        self.labels: tuple[str, ...] = tuple(e.label for e in self.entries)
        self.moves: tuple[str, ...] = tuple(e.move for e in self.entries)
        self.kinds: tuple[str, ...] = tuple(e.kind for e in self.entries)
        #: Canonical move text -> action, for plays, hooks, unhooks and declines.
        self.play_index: dict[str, int] = {
            e.move: e.action for e in self.entries if e.kind != "return"
        }
        #: Rank -> action, for tribute returns.
        self.return_index: dict[str, int] = {
            e.move: e.action for e in self.entries if e.kind == "return"
        }

    def action_to_move(self, action: int) -> str:
        """The move text ``Round.apply`` takes for ``action`` (a rank for a return)."""
        if isinstance(action, bool) or not 0 <= int(action) < self.size:
            raise UnknownAction(f"action {action!r} is not in 0..{self.size - 1}")
        if int(action) != action:
            raise UnknownAction(f"action {action!r} is not an integer")
        return self.moves[int(action)]

    def move_to_action(self, move: str, decision: Decision | str = Decision.PLAY) -> int:
        """The action of ``move`` taken as ``decision`` ("play", "hook", "unhook", "return")."""
        if not isinstance(move, str):
            raise UnknownAction(f"a move must be text, not {type(move).__name__}")
        decision_text = str(decision)
        if decision_text not in {d.value for d in Decision}:
            raise UnknownAction(f"decision must be play, hook, unhook or return, not {decision!r}")
        if decision_text == Decision.RETURN:
            text = move.strip().upper().replace("10", "T")
            if text.startswith(RETURN_PREFIX.upper()):
                text = text[len(RETURN_PREFIX) :].strip()
            if text in self.return_index:
                return self.return_index[text]
            raise UnknownAction(f"{move!r} is not one card to return (2-9 T J Q K A B R)")
        action = self.play_index.get(move)
        if action is not None:
            return action
        try:
            text = canonical(move)
        except ValueError as error:
            raise UnknownAction(str(error)) from None
        action = self.play_index.get(text)
        if action is None:
            raise UnknownAction(f"{move!r} needs more cards than {self.rules.deck_count} deck(s)")
        return action

    def actions_of(self, legal_moves: Sequence[str], decision: Decision | str | None) -> list[int]:
        """The actions of a list of canonical legal moves (``Round.legal_moves()``)."""
        index = self.return_index if decision == Decision.RETURN else self.play_index
        return [index[move] for move in legal_moves]

    def summary_markdown(self) -> str:
        """The table as index ranges per kind and size, as docs/env.md shows it."""
        lines = ["| actions | kind | moves |", "|---|---|---|"]
        start = 0
        for i in range(1, self.size + 1):
            here = self.entries[start]
            if i < self.size and _group(self.entries[i]) == _group(here):
                continue
            last = self.entries[i - 1]
            span = f"{start}" if start == i - 1 else f"{start}-{i - 1}"
            labels = here.label if start == i - 1 else f"{here.label} .. {last.label}"
            lines.append(f"| {span} | {_group_name(here)} | `{labels}` |")
            start = i
        return "\n".join(lines)

    def full_markdown(self) -> str:
        """Every action on its own row."""
        lines = ["| action | move | kind |", "|---|---|---|"]
        lines.extend(f"| {e.action} | `{e.label}` | {e.kind} |" for e in self.entries)
        return "\n".join(lines)


def _group(entry: ActionEntry) -> tuple[str, int]:
    if entry.kind == "bomb":
        if entry.label in ("BB", "BR", "RR"):
            return ("double_joker", 2)
        if entry.label == "44A":
            return ("44A", 3)
        return ("n_of_a_kind", len(entry.label))
    if entry.kind in ("straight",):
        return (entry.kind, len(entry.label))
    if entry.kind == "double_dragon":
        return (entry.kind, len(entry.label) // 2)
    return (entry.kind, 0)


def _group_name(entry: ActionEntry) -> str:
    name, size = _group(entry)
    if name == "straight":
        return f"straight of {size}"
    if name == "double_dragon":
        return f"double dragon of {size} pairs"
    if name == "n_of_a_kind":
        return f"bomb: {size} of a kind"
    if name == "double_joker":
        return "bomb: double joker"
    if name == "44A":
        return "bomb: 414"
    return {"pass": "pass / decline", "single": "single / unhook", "pair": "pair / hook"}.get(
        name, name
    )


@cache
def action_table(rules: Rules) -> ActionTable:
    """The (shared, read-only) table of a rule set."""
    return ActionTable(rules)


def action_to_move(action: int, rules: Rules | None = None) -> str:
    """The move of ``action`` at a table with ``rules`` (default: 4 players).

    >>> action_to_move(29)
    '345'
    """
    return action_table(rules or Rules()).action_to_move(action)


def move_to_action(
    move: str, decision: Decision | str = Decision.PLAY, rules: Rules | None = None
) -> int:
    """The action of ``move`` taken as ``decision`` at a table with ``rules`` (default: 4 players).

    >>> move_to_action("44A")
    220
    """
    return action_table(rules or Rules()).move_to_action(move, decision)


__all__ = [
    "ACTION_KINDS",
    "ActionEntry",
    "ActionTable",
    "UnknownAction",
    "action_table",
    "action_to_move",
    "move_to_action",
]
