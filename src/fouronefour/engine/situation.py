"""A round built at a situation in the middle of play, for search.

A bot that searches deals the cards it cannot see to the other seats (consistently with
what is public) and needs a :class:`Round` at the current decision to play moves forward
from. Replaying the log is not possible: declined hook offers are private, so the log
does not say who was asked. :func:`round_from_situation` builds the round directly from
the public state of the trick plus a full set of hands.

The result has an empty log and no tributes: it is a position to search from, not a
record of the round.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import FACE_COUNT, RANKS, deck_counts, level_index, parse_ranks
from .moves import Kind, classify_text
from .round import Decision, Round
from .rules import Rules


def round_from_situation(
    hands: Sequence[str],
    *,
    level: str | int,
    rules: Rules,
    to_act: int,
    decision: Decision | str = Decision.PLAY,
    top: str | None = None,
    top_seat: int | None = None,
    passes: int = 0,
    finished: Sequence[int] = (),
    leader: int | None = None,
    chain_last: int | None = None,
) -> Round:
    """A round where ``to_act`` faces ``decision``.

    - ``hands``: every seat's cards now (``""`` for a seat that has finished);
    - ``top``/``top_seat``: the move to beat and its player (None when ``to_act`` leads), or
      during a hook or unhook offer the move being claimed;
    - ``passes``: passes since ``top`` was played (a play decision only);
    - ``finished``: seats in finishing order;
    - ``chain_last``: during a hook chain, the last seat that hooked or unhooked (the
      ``chain["last"]`` of a view); None for the first hook window on a played single.

    Remaining offers of a window go to the eligible seats after ``to_act`` in clockwise
    order from ``top_seat``, as the engine would offer them. Raises ValueError for a
    situation that cannot occur.
    """
    players = rules.players
    if len(hands) != players:
        raise ValueError(f"{len(hands)} hands given for {players} players")
    level_i = level_index(level)
    counts = tuple(parse_ranks(hand) for hand in hands)
    available = deck_counts(rules.deck_count)
    for rank in range(15):
        if sum(c[rank] for c in counts) > available[rank]:
            raise ValueError(f"more cards of rank {RANKS[rank]} than the decks hold")
    done = tuple(finished)
    if len(set(done)) != len(done) or any(not 0 <= s < players for s in done):
        raise ValueError(f"finished {list(done)} is not a list of distinct seats")
    for seat, c in enumerate(counts):
        if (seat in done) == any(c):
            state = "has finished but holds cards" if seat in done else "holds no cards"
            raise ValueError(f"seat {seat} {state}")
    for team in (0, 1):
        if all(s in done for s in range(team, players, 2)):
            raise ValueError(f"team {team} has finished: the round would be over")
    if not 0 <= to_act < players or not any(counts[to_act]):
        raise ValueError(f"seat {to_act} cannot act: not a seat holding cards")
    decision = Decision(decision)
    if decision is Decision.RETURN:
        raise ValueError("tribute returns happen before play; build them with Round.from_hands")
    if (top is None) != (top_seat is None):
        raise ValueError("top and top_seat go together")
    if top_seat is not None and not 0 <= top_seat < players:
        raise ValueError(f"top_seat {top_seat} is not a seat")
    combination = None if top is None else classify_text(top)
    if top is not None and combination is None:
        raise ValueError(f"top {top!r} is not a move")
    active = [s for s in range(players) if any(counts[s])]

    top_text = None if combination is None else combination.text
    leader = to_act if leader is None else leader

    if decision is Decision.PLAY:
        if chain_last is not None:
            raise ValueError("chain_last belongs to a hook or unhook offer")
        if top_seat is not None:
            others = sum(1 for s in active if s != top_seat)
            if top_seat == to_act or not 0 <= passes < others:
                raise ValueError(
                    f"{passes} passes after seat {top_seat}'s move cannot leave "
                    f"seat {to_act} to act"
                )
        elif passes:
            raise ValueError("passes need a move to pass on")
        return Round._build(
            rules,
            level_i,
            counts,
            to_act=to_act,
            decision=decision,
            top=top_text,
            top_seat=top_seat,
            passes=passes,
            finished=done,
            leader=leader,
        )

    # A hook or unhook offer on top_seat's move.
    if not rules.hooking:
        raise ValueError("hook and unhook offers need rules with hooking on")
    if combination is None or top_seat is None or top_seat == to_act:
        raise ValueError("an offer needs the claimed move and its player (not to_act)")
    if passes:
        raise ValueError("passes are not counted during an offer")
    rank = combination.high
    need = 2 if decision is Decision.HOOK else 1
    expected = Kind.SINGLE if decision is Decision.HOOK else Kind.PAIR
    if combination.kind is not expected or rank >= FACE_COUNT:
        raise ValueError(f"a {decision} offer cannot claim {top!r}")
    if decision is Decision.UNHOOK and chain_last != top_seat:
        raise ValueError("an unhook offer claims the last hook: chain_last must be top_seat")
    if chain_last is not None and not 0 <= chain_last < players:
        raise ValueError(f"chain_last {chain_last} is not a seat")
    if counts[to_act][rank] < need:
        raise ValueError(f"seat {to_act} cannot claim {top!r} without {need} x {RANKS[rank]}")
    order = [(top_seat + step) % players for step in range(1, players)]
    after = order[order.index(to_act) + 1 :]
    return Round._build(
        rules,
        level_i,
        counts,
        to_act=to_act,
        decision=decision,
        top=top_text,
        top_seat=top_seat,
        finished=done,
        leader=leader,
        window_rank=rank,
        claimed=top_seat,
        chained=chain_last is not None,
        last_claimer=-1 if chain_last is None else chain_last,
        offers=tuple(s for s in after if counts[s][rank] >= need),
    )


__all__ = ["round_from_situation"]
