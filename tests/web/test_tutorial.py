"""Learn 414 in the browser: every lesson played through the page, with a wrong try in each,
and Practice from the home page to a started table with three bots.

The moves come from the lesson files (what the lesson expects, and the wrong tries it
anticipates); the page is driven as a learner would: tapping cards, Play, Pass and Hint.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from fouronefour import lessons
from fouronefour.engine.cards import RANKS
from fouronefour.lessons import runner
from fouronefour.lessons.model import Lesson, Step

LESSON = "#screen-lesson"


def _wait_moves(page: Any, moves: int) -> None:
    page.wait_for_selector(f"{LESSON}[data-moves='{moves}']:not([data-busy=true])")


def _select(page: Any, move: str) -> None:
    """Tap the cards of ``move`` in the hand (ranks in any order, as a learner would)."""
    if page.locator("#lesson-clear").is_enabled():
        page.click("#lesson-clear")
    for rank in move:
        page.locator(f"#lesson-hand [data-rank='{rank}']:not(.selected)").first.click()


def _try(page: Any, move: str) -> None:
    if move == "pass":
        page.click("[data-testid=lesson-pass]")
    else:
        _select(page, move)
        page.click("[data-testid=lesson-play]")


def _held(lesson: Lesson, moves: list[str], move: str) -> bool:
    """Whether the learner holds the cards of ``move`` (a wrong try the page lets them make)."""
    if move == "pass":
        return True
    hand = runner.replay(lesson, moves).round.hand_counts(lesson.seat)
    return all(move.count(rank) <= hand[i] for i, rank in enumerate(RANKS))


def _wrong_try(page: Any, lesson: Lesson, moves: list[str], step: Step) -> None:
    """One anticipated wrong try: its explanation shows, and nothing moves on."""
    wrong, move = next(
        (wrong, move) for wrong in step.wrong for move in wrong.moves if _held(lesson, moves, move)
    )
    hand_before = page.locator("#lesson-hand").inner_text()
    _try(page, move)
    page.wait_for_selector(f"{LESSON}[data-feedback=wrong]:not([data-busy=true])")
    feedback = page.locator("[data-testid=lesson-feedback]").inner_text()
    assert wrong.text["en"] in feedback
    assert page.get_attribute(LESSON, "data-moves") == str(len(moves))
    assert page.locator("#lesson-hand").inner_text() == hand_before


def _play_scripted(page: Any, lesson: Lesson) -> None:
    moves: list[str] = []
    steps = [entry for entry in lesson.script if isinstance(entry, Step)]
    for number, step in enumerate(steps):
        assert page.locator("[data-testid=lesson-task]").inner_text() == step.task["en"]
        assert page.locator("[data-testid=lesson-progress]").inner_text() == (
            f"Step {number + 1} of {len(steps)}"
        )
        if number == 0:
            _wrong_try(page, lesson, moves, step)
        _try(page, step.expect[0])
        moves.append(step.expect[0])
        _wait_moves(page, len(moves))
        assert page.get_attribute(LESSON, "data-feedback") == "ok"
        assert step.success["en"] in page.locator("[data-testid=lesson-feedback]").inner_text()


def _play_against_bots(page: Any) -> None:
    """A wrong try (the leader may not pass), then the hints until the round is over."""
    page.click("[data-testid=lesson-pass]")
    page.wait_for_selector(f"{LESSON}[data-feedback=wrong]:not([data-busy=true])")
    assert "may not pass" in page.locator("[data-testid=lesson-feedback]").inner_text()
    made = 0
    while page.get_attribute(LESSON, "data-done") != "true":
        page.click("[data-testid=lesson-hint-btn]")
        assert page.locator("[data-testid=lesson-hint]").is_visible()
        play = page.locator("[data-testid=lesson-play]")
        (play if play.is_enabled() else page.locator("[data-testid=lesson-pass]")).click()
        made += 1
        _wait_moves(page, made)
    assert page.locator("[data-testid=lesson-result]").is_visible()


def test_every_lesson_is_completed_with_a_wrong_try_in_each(server_url: str, new_page: Any) -> None:
    page = new_page("learner", width=1366, height=657)
    page.goto(server_url)
    page.click("[data-testid=learn-open]")
    page.wait_for_url(f"{server_url}/learn")
    all_lessons = list(lessons.lessons().values())
    expect(page.locator("[data-testid=learn-count]")).to_have_text(f"0 of {len(all_lessons)} done")
    page.click(f"[data-testid=lesson-{all_lessons[0].id}]")
    for index, lesson in enumerate(all_lessons):
        page.wait_for_url(f"{server_url}/learn/{lesson.id}")
        _wait_moves(page, 0)
        expect(page.locator("[data-testid=lesson-title]")).to_have_text(lesson.title["en"])
        if lesson.bots is None:
            _play_scripted(page, lesson)
        else:
            _play_against_bots(page)
        page.wait_for_selector(f"{LESSON}[data-done=true]")
        assert lesson.done["en"] in page.locator("[data-testid=lesson-task]").inner_text()
        if index + 1 < len(all_lessons):
            page.click("[data-testid=lesson-next]")
    page.click("[data-testid=lesson-list]")
    page.wait_for_url(f"{server_url}/learn")
    count = f"{len(all_lessons)} of {len(all_lessons)} done"
    expect(page.locator("[data-testid=learn-count]")).to_have_text(count)
    assert page.locator(".learn-lesson.done").count() == len(all_lessons)
    # Progress is this browser's: it is still there after a reload.
    page.reload()
    page.wait_for_selector(".learn-lesson.done")
    assert page.locator(".learn-lesson.done").count() == len(all_lessons)


def test_practice_is_one_click_from_home_to_a_table_with_three_bots(
    server_url: str, new_page: Any
) -> None:
    page = new_page("practice", locale="de-DE")
    page.goto(server_url)
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("[data-testid=practice-bot]", "random")
    page.click("[data-testid=practice-start]")
    page.wait_for_url(re.compile(r"/t/[A-Z0-9]+$"))
    page.wait_for_selector("#game:not([hidden]) [data-testid=hand] .card")
    for seat in (1, 2, 3):
        assert page.locator(f"[data-testid=seat-{seat}] .bot-tag").inner_text().endswith("Zufällig")
    assert "Spieler" in page.locator("[data-testid=seat-0]").inner_text()  # the default name
