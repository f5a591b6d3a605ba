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

import bisect
import itertools
import math
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
    them so); those left wait on. About n log n for n people waiting (a pass runs every
    second on the event loop, whatever the queue holds)."""
    pool = _Pool(entries)
    made: list[Table] = []
    for anchor in queue_order(entries):
        if anchor not in pool:
            continue
        group = _closest(anchor, pool, spread.of(anchor, now))
        if len(group) < SEATS and anchor.waited(now) < spread.bot_fill_seconds:
            continue
        people = tuple(queue_order(group))
        made.append(Table(people, SEATS - len(people), bot_level_for([e.ordinal for e in people])))
        for entry in people:
            pool.remove(entry)
    return made


def _key(entry: Entry) -> tuple[float, float, int]:
    return (entry.ordinal, entry.joined_at, entry.seq)


class _Pool:
    """The people not seated yet, in rating order (ties in joining order)."""

    def __init__(self, entries: Iterable[Entry]) -> None:
        self.entries = sorted(entries, key=_key)
        self.keys = [_key(e) for e in self.entries]

    def index(self, entry: Entry) -> int:
        return bisect.bisect_left(self.keys, _key(entry))

    def __contains__(self, entry: Entry) -> bool:
        at = self.index(entry)
        return at < len(self.entries) and self.entries[at] == entry

    def run_start(self, rating: float) -> int:
        """Where the people of ``rating`` begin (the earliest joiner of them)."""
        return bisect.bisect_left(self.keys, (rating, -math.inf, -1))

    def remove(self, entry: Entry) -> None:
        at = self.index(entry)
        del self.entries[at], self.keys[at]


def _closest(anchor: Entry, pool: _Pool, width: float) -> list[Entry]:
    """``anchor`` and up to three others of ``pool``: the most that fit within ``width`` of
    each other around the anchor, the tightest such group, earlier joiners first among
    equals."""
    entries, rating = pool.entries, anchor.ordinal
    at = pool.index(anchor)
    # The people of the anchor's rating who joined before it, then those after it and
    # higher ratings: the nearest above first (a run of equal ratings in joining order).
    first = pool.run_start(rating)
    above = entries[first : min(at, first + SEATS - 1)]
    for entry in itertools.islice(entries, at + 1, None):
        if len(above) >= SEATS - 1 or entry.ordinal - rating > width:
            break
        above.append(entry)
    # Lower ratings, the nearest first, and among equal ones the earlier joiner first.
    below: list[Entry] = []
    down = first - 1
    while down >= 0 and len(below) < SEATS - 1 and rating - entries[down].ordinal <= width:
        run = pool.run_start(entries[down].ordinal)
        below.extend(entries[run : min(down + 1, run + SEATS - 1 - len(below))])
        down = run - 1
    # A group is a run of this line that holds the anchor, so a later joiner is never in it
    # while an earlier one of the same rating is left out.
    ranked = [*reversed(below), anchor, *above]
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
