"""Who plays whom: the quick-match queue's tables, as a pure function of the people waiting
and the time (no clock read here, nothing stored: the tests drive it by properties).

Everyone waiting has an acceptable spread of ratings (OpenSkill ordinals) that widens with
the time waited. The longest-waiting person is seated first: with the three others, among
those their spread admits, whose ratings are closest to theirs (the four ratings' range
within that spread); after ``bot_fill_seconds`` of waiting, with whoever their spread
admits and bots of the level nearest the people's mean rating in the empty seats. Those who
joined later never take a seat before those who joined earlier when both would fit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ...bots.levels import LEVELS, Level

#: Seats at a quick-match table (the standard 4-player rules: rated tables play them).
SEATS = 4


@dataclass(frozen=True, slots=True)
class Entry:
    """One person waiting: their profile, name and rating, and when they joined (seconds,
    the queue's clock); ``seq`` breaks ties between equal times, in joining order."""

    profile: str
    name: str
    ordinal: float
    joined_at: float
    seq: int = 0

    def waited(self, now: float) -> float:
        return max(0.0, now - self.joined_at)


@dataclass(frozen=True, slots=True)
class Spread:
    """How far apart the ratings at a table may be: ``base`` at first, ``per_second``
    more each second waited, at most ``widest``; bots fill after ``bot_fill_seconds``."""

    base: float = 3.0
    per_second: float = 0.25
    widest: float = 20.0
    bot_fill_seconds: float = 30.0

    def of(self, entry: Entry, now: float) -> float:
        return min(self.widest, self.base + self.per_second * entry.waited(now))


@dataclass(frozen=True, slots=True)
class Table:
    """A table the queue made: its people (longest waiting first) and how many bots, of
    which level, fill the other seats."""

    people: tuple[Entry, ...]
    bots: int
    bot_level: str

    @property
    def spread(self) -> float:
        ratings = [e.ordinal for e in self.people]
        return max(ratings) - min(ratings)


def bot_level_for(ordinals: Sequence[float]) -> str:
    """The bot level whose fixed rating (its ordinal) is nearest the people's mean."""
    mean = sum(ordinals) / len(ordinals)

    def distance(candidate: Level) -> float:
        rating = candidate.rating
        return abs(rating.mu - 3 * rating.sigma - mean)

    return min(LEVELS, key=distance).name


def queue_order(entries: Iterable[Entry]) -> list[Entry]:
    """The queue from its longest-waiting person to its newest."""
    return sorted(entries, key=lambda e: (e.joined_at, e.seq))


def tables(entries: Sequence[Entry], now: float, spread: Spread) -> list[Table]:
    """The tables to make now out of ``entries`` (one each per profile: the queue keeps
    them so); those left wait on."""
    waiting = queue_order(entries)
    seated: set[str] = set()
    made: list[Table] = []
    for anchor in waiting:
        if anchor.profile in seated:
            continue
        others = [e for e in waiting if e.profile not in seated and e.profile != anchor.profile]
        group = _closest(anchor, others, spread.of(anchor, now))
        if len(group) < SEATS and anchor.waited(now) < spread.bot_fill_seconds:
            continue
        people = tuple(queue_order(group))
        made.append(Table(people, SEATS - len(people), bot_level_for([e.ordinal for e in people])))
        seated.update(e.profile for e in people)
    return made


def _closest(anchor: Entry, others: Sequence[Entry], width: float) -> list[Entry]:
    """``anchor`` and up to three of ``others``: the most that fit within ``width`` of each
    other around the anchor, the tightest such group, earlier joiners first among equals."""
    near = queue_order(e for e in others if abs(e.ordinal - anchor.ordinal) <= width)
    # In rating order around the anchor, and among equal ratings the earlier joiners nearer
    # the anchor: a group is a run of this line that holds the anchor, so a later joiner is
    # never in it while an earlier one of the same rating is left out.
    below = [e for e in near if e.ordinal < anchor.ordinal]
    below.reverse()  # (latest joiners first, then a stable sort by rating)
    below.sort(key=lambda e: e.ordinal)
    above = sorted((e for e in near if e.ordinal >= anchor.ordinal), key=lambda e: e.ordinal)
    ranked = [*below, anchor, *above]
    at = len(below)
    best: list[Entry] = [anchor]
    for size in range(min(SEATS, len(ranked)), 1, -1):
        windows = [
            ranked[start : start + size]
            for start in range(max(0, at - size + 1), min(at, len(ranked) - size) + 1)
        ]
        fitting = [w for w in windows if w[-1].ordinal - w[0].ordinal <= width]
        if fitting:
            best = min(fitting, key=lambda w: (w[-1].ordinal - w[0].ordinal, _lateness(w)))
            break
    return best


def _lateness(window: Sequence[Entry]) -> tuple[float, int]:
    """Among windows of equal range: the one whose people joined earliest."""
    return (sum(e.joined_at for e in window), sum(e.seq for e in window))
