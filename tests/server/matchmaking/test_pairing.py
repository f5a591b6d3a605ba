"""The queue's tables, as a pure function of who waits and the time: checked by properties
over random queues (hypothesis), and a few cases spelled out."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fouronefour.bots.levels import LEVELS
from fouronefour.server.matchmaking.pairing import (
    SEATS,
    Entry,
    Spread,
    Table,
    bot_level_for,
    queue_order,
    tables,
)

SPREAD = Spread(base=2.0, per_second=0.5, widest=15.0, bot_fill_seconds=30.0)


@st.composite
def queues(draw: st.DrawFn) -> tuple[list[Entry], float]:
    count = draw(st.integers(0, 40))
    ratings = draw(st.lists(st.floats(-5, 40, allow_nan=False), min_size=count, max_size=count))
    joins = draw(st.lists(st.floats(0, 120, allow_nan=False), min_size=count, max_size=count))
    pairs = enumerate(zip(ratings, joins, strict=True))
    entries = [Entry(f"p{i}", f"P{i}", r, t, i) for i, (r, t) in pairs]
    now = draw(st.floats(0, 200, allow_nan=False))
    # (nobody joins after now)
    return [e for e in entries if e.joined_at <= now], now


@settings(max_examples=300, deadline=None)
@given(queues())
def test_every_table_is_full_fits_its_spread_and_seats_each_person_once(
    case: tuple[list[Entry], float],
) -> None:
    entries, now = case
    made = tables(entries, now, SPREAD)
    seen: list[str] = []
    for table in made:
        assert len(table.people) + table.bots == SEATS
        assert len(table.people) >= 1
        longest = table.people[0]
        assert longest == queue_order(table.people)[0]
        # The ratings fit the spread of the longest-waiting person, who widened it.
        assert table.spread <= SPREAD.of(longest, now) + 1e-9
        # Bots only for someone who waited long enough.
        if table.bots:
            assert longest.waited(now) >= SPREAD.bot_fill_seconds
        seen.extend(e.profile for e in table.people)
    assert len(seen) == len(set(seen))


@settings(max_examples=300, deadline=None)
@given(queues())
def test_nobody_waits_past_the_bot_fill(case: tuple[list[Entry], float]) -> None:
    entries, now = case
    seated = {e.profile for t in tables(entries, now, SPREAD) for e in t.people}
    for entry in entries:
        if entry.waited(now) >= SPREAD.bot_fill_seconds:
            assert entry.profile in seated


@settings(max_examples=300, deadline=None)
@given(queues())
def test_a_later_joiner_never_takes_the_seat_of_an_earlier_one_of_equal_rating(
    case: tuple[list[Entry], float],
) -> None:
    """Joining again puts you at the back: of two people of the same rating, the one who
    joined later is never seated while the earlier one waits on."""
    entries, now = case
    # Make ties: everyone's rating rounded to a few values.
    tied = [Entry(e.profile, e.name, float(round(e.ordinal / 10) * 10), e.joined_at, e.seq)
            for e in entries]  # fmt: skip
    seated = {e.profile for t in tables(tied, now, SPREAD) for e in t.people}
    for early in tied:
        for late in tied:
            if (
                early.ordinal == late.ordinal
                and (early.joined_at, early.seq) < (late.joined_at, late.seq)
                and late.profile in seated
            ):
                assert early.profile in seated


@settings(max_examples=200, deadline=None)
@given(queues())
def test_the_same_queue_makes_the_same_tables(case: tuple[list[Entry], float]) -> None:
    entries, now = case
    assert tables(entries, now, SPREAD) == tables(list(reversed(entries)), now, SPREAD)


def test_the_spread_widens_with_the_wait_up_to_its_widest() -> None:
    entry = Entry("a", "A", 10.0, 0.0)
    assert SPREAD.of(entry, 0.0) == 2.0
    assert SPREAD.of(entry, 10.0) == 7.0
    assert SPREAD.of(entry, 1000.0) == 15.0


def test_four_close_people_play_at_once_and_a_far_one_waits() -> None:
    people = [Entry(f"p{i}", "x", r, 0.0, i) for i, r in enumerate([10, 11, 10.5, 11.5, 30])]
    made = tables(people, 1.0, SPREAD)
    assert len(made) == 1
    assert {e.profile for e in made[0].people} == {"p0", "p1", "p2", "p3"}
    assert made[0].bots == 0


def test_far_apart_people_meet_once_their_spread_has_widened() -> None:
    people = [Entry(f"p{i}", "x", r, 0.0, i) for i, r in enumerate([0, 4, 8, 12])]
    assert tables(people, 1.0, SPREAD) == []  # (spread 2.5: nobody fits)
    made = tables(people, 21.0, SPREAD)  # (spread 12.5: all four fit)
    assert len(made) == 1 and made[0].bots == 0


def test_after_the_bot_fill_time_bots_of_the_nearest_level_fill_the_table() -> None:
    alone = [Entry("p0", "x", 22.0, 0.0)]
    assert tables(alone, 29.0, SPREAD) == []
    made = tables(alone, 30.0, SPREAD)
    assert len(made) == 1 and made[0].bots == 3
    assert made[0].bot_level == "strong"  # (its ordinal, 21.9, is nearest 22)


def test_the_bot_level_is_the_one_nearest_the_mean_rating() -> None:
    for level in LEVELS:
        ordinal = level.rating.mu - 3 * level.rating.sigma
        assert bot_level_for([ordinal - 1, ordinal + 1]) == level.name
    assert bot_level_for([0.0]) == "beginner"  # (a newcomer)
    assert bot_level_for([40.0]) == "expert"


def reference_tables(entries: list[Entry], now: float, spread: Spread) -> list[Table]:
    """The pairing as first written: every person against every other (n squared), the
    plain statement of the rule that the module's sorted pool must give the same tables as."""
    waiting = queue_order(entries)
    seated: set[str] = set()
    made: list[Table] = []
    for anchor in waiting:
        if anchor.profile in seated:
            continue
        width = spread.of(anchor, now)
        near = queue_order(
            e
            for e in waiting
            if e.profile not in seated
            and e.profile != anchor.profile
            and abs(e.ordinal - anchor.ordinal) <= width
        )
        below = [e for e in near if e.ordinal < anchor.ordinal]
        below.reverse()
        below.sort(key=lambda e: e.ordinal)
        above = sorted((e for e in near if e.ordinal >= anchor.ordinal), key=lambda e: e.ordinal)
        ranked, at = [*below, anchor, *above], len(below)
        group: list[Entry] = [anchor]
        for size in range(min(SEATS, len(ranked)), 1, -1):
            fitting = [
                ranked[s : s + size]
                for s in range(max(0, at - size + 1), min(at, len(ranked) - size) + 1)
                if ranked[s + size - 1].ordinal - ranked[s].ordinal <= width
            ]
            if fitting:
                group = min(
                    fitting,
                    key=lambda w: (
                        w[-1].ordinal - w[0].ordinal,
                        (sum(e.joined_at for e in w), sum(e.seq for e in w)),
                    ),
                )
                break
        if len(group) < SEATS and anchor.waited(now) < spread.bot_fill_seconds:
            continue
        people = tuple(queue_order(group))
        made.append(Table(people, SEATS - len(people), bot_level_for([e.ordinal for e in people])))
        seated.update(e.profile for e in people)
    return made


@settings(max_examples=500, deadline=None)
@given(queues(), st.sampled_from([None, 1, 5]))
def test_the_sorted_pool_makes_the_tables_the_plain_rule_makes(
    case: tuple[list[Entry], float], rounding: int | None
) -> None:
    entries, now = case
    if rounding is not None:  # (many equal ratings, as newcomers' 0)
        entries = [Entry(e.profile, e.name, float(round(e.ordinal / rounding) * rounding),
                         e.joined_at, e.seq) for e in entries]  # fmt: skip
    assert tables(entries, now, SPREAD) == reference_tables(entries, now, SPREAD)


def test_a_crowded_queue_is_paired_in_a_moment() -> None:
    """A pass runs every second: 20,000 people waiting (the queue's most), half of them
    newcomers of one rating, are paired well within it."""
    import random
    import time

    rng = random.Random(3)
    crowd = [
        Entry(f"p{i}", "x", 0.0 if rng.random() < 0.5 else rng.gauss(15, 7), rng.uniform(0, 20), i)
        for i in range(20_000)
    ]
    started = time.perf_counter()
    made = tables(crowd, 20.0, SPREAD)
    assert time.perf_counter() - started < 5.0 and len(made) > 4000
