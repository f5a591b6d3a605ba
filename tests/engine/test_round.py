"""Scenario tests from explicit hands: tricks, hooking, the end of a round, tribute, views."""

from __future__ import annotations

import pytest

import fouronefour as ff
from fouronefour import Decision


def play(r: ff.Round, *moves: str) -> ff.Round:
    for move in moves:
        r = r.apply(move)
    return r


# ----------------------------------------------------------------- tricks (section 5)


def test_leader_may_not_pass_and_followers_must_beat_or_pass() -> None:
    r = ff.Round.from_hands(["3456", "789T", "JQKA", "2BR9"], leader=0)
    assert "pass" not in r.legal_moves()
    with pytest.raises(ff.IllegalMove, match="may not pass"):
        r.apply("pass")
    r = r.apply("456")
    assert r.to_act == 1
    assert r.legal_moves() == ["789", "89T", "pass"]


def test_pass_is_not_final_and_trick_ends_after_all_others_pass() -> None:
    r = ff.Round.from_hands(["35", "4A", "7Q", "8K"], leader=0, rules=ff.Rules(hooking=False))
    r = play(r, "3", "pass", "7", "8", "pass", "A")  # seat 1 passed, then plays again
    assert r.top == "A" and r.top_seat == 1
    r = play(r, "pass", "pass", "pass")
    assert r.top is None and r.to_act == 1 and r.decision == "play"


def test_lead_passes_on_when_the_trick_winner_has_finished() -> None:
    r = ff.Round.from_hands(["A", "34", "56", "78"], leader=0, rules=ff.Rules(hooking=False))
    r = play(r, "A")
    assert r.finished == [0]
    r = play(r, "pass", "pass", "pass")
    assert r.to_act == 1 and r.top is None  # next clockwise from seat 0 who holds cards


def test_only_bigger_bombs_follow_a_bomb() -> None:
    r = ff.Round.from_hands(["3335", "444K", "AAAA7", "BR8"], leader=0)
    r = r.apply("333")
    assert r.legal_moves() == ["444", "pass"]
    r = r.apply("444")
    assert r.legal_moves() == ["AAA", "AAAA", "pass"]
    r = play(r, "AAAA")
    assert r.legal_moves() == ["BR", "pass"]


def test_illegal_input_raises_and_changes_nothing() -> None:
    r = ff.Round.from_hands(["3456", "789T", "JQKA", "2BR9"], leader=0)
    before = (r.view(0), r.log, r.to_act, r.legal_moves())
    for bad in ["33", "3345", "X", "", "999", "pass", "BR", 3, None]:
        with pytest.raises(ff.IllegalMove):
            r.apply(bad)  # type: ignore[arg-type]
    assert (r.view(0), r.log, r.to_act, r.legal_moves()) == before


def test_messages_say_why() -> None:
    r = ff.Round.from_hands(["3456", "789T", "JQKA", "2BR9"], leader=0).apply("4")
    with pytest.raises(ff.IllegalMove, match="does not hold"):
        r.apply("KK")
    r2 = ff.Round.from_hands(["3456", "3789T", "JQKA", "2BR9"], leader=0).apply("4")
    with pytest.raises(ff.IllegalMove, match="does not beat '4'"):
        r2.apply("3")


def test_input_in_any_order_and_ten_as_10() -> None:
    r = ff.Round.from_hands(["9TJ3", "4", "5", "6"], leader=0)
    r2 = r.apply("J109")
    assert r2.log[-1] == {"type": "play", "seat": 0, "move": "9TJ"}


def test_apply_leaves_the_original_untouched() -> None:
    r = ff.Round.from_hands(["3456", "789T", "JQKA", "2BR9"], leader=0)
    r.apply("456")
    assert r.hand(0) == "3456" and r.to_act == 0 and r.log == []


# ----------------------------------------------------------------- hooking (section 6)


def hook_round() -> ff.Round:
    # Section 11: seat 0 leads 3; seats 2 and 3 hold 33; seat 1 holds none.
    return ff.Round.from_hands(["35K", "789", "33QA", "334J"], leader=0, rules=ff.Rules(decks=2))


def test_hook_offered_nearest_first_then_next() -> None:
    r = hook_round().apply("3")
    assert (r.to_act, r.decision, r.legal_moves()) == (2, Decision.HOOK, ["33", "pass"])
    assert r.turn == 1  # public: seat 1's normal turn
    r = r.apply("pass")
    assert (r.to_act, r.decision) == (3, Decision.HOOK)
    r = r.apply("pass")  # first window closes untaken: no chain, play continues
    assert (r.to_act, r.decision, r.top) == (1, Decision.PLAY, "3")
    assert r.log == [{"type": "play", "seat": 0, "move": "3"}]  # declines are private


def test_hook_then_unhook_offers_clockwise_from_hooker() -> None:
    r = hook_round().apply("3").apply("33")
    assert r.log[-1] == {"type": "hook", "seat": 2, "move": "33"}
    # Seat 3 holds 3s; seat 0 holds none now; seat 1 none.
    assert (r.to_act, r.decision, r.legal_moves()) == (3, Decision.UNHOOK, ["3", "pass"])
    r = r.apply("pass")
    # Nobody unhooks: seat 2 leads the next trick.
    assert (r.to_act, r.decision, r.top) == (2, Decision.PLAY, None)


def test_unhook_opens_a_hook_window_again() -> None:
    hands = ["3356", "3378", "33QA", "334J"]
    r = ff.Round.from_hands(hands, leader=0, rules=ff.Rules(decks=2)).apply("5")
    r = ff.Round.from_hands(hands, leader=0, rules=ff.Rules(decks=2, hooking=True))
    r = r.apply("3")  # seat 0 leads a 3 (keeps one 3)
    assert r.to_act == 1 and r.decision == "hook"
    r = r.apply("33")  # seat 1 hooks
    assert r.decision == "unhook" and r.to_act == 2  # clockwise after the hooker
    r = r.apply("3")  # seat 2 unhooks
    assert r.decision == "hook" and r.to_act == 3  # hook window from the seat after seat 2
    r = r.apply("pass")
    # Seat 0 holds a single 3 (no pair); seat 1 holds none: the window closes, chain ends.
    assert (r.to_act, r.decision, r.top) == (2, Decision.PLAY, None)
    assert [e["type"] for e in r.log] == ["play", "hook", "unhook"]


def test_the_first_single_player_may_unhook_and_a_hooker_hook_again() -> None:
    r = ff.Round.from_hands(["339", "33338", "6", "7"], leader=0, rules=ff.Rules(decks=2))
    r = play(r, "3")
    assert (r.to_act, r.decision) == (1, "hook")
    r = r.apply("33")
    assert (r.to_act, r.decision) == (0, "unhook")  # the player of the first single
    r = r.apply("3")
    assert (r.to_act, r.decision) == (1, "hook")  # the hooker may hook again
    r = r.apply("pass")
    assert (r.to_act, r.top) == (0, None)


def test_no_hook_on_jokers_or_with_hooking_off() -> None:
    r = ff.Round.from_hands(["B5", "BB", "67", "89"], leader=0, rules=ff.Rules(decks=3))
    assert r.apply("B").decision == "play"
    off = ff.Round.from_hands(
        ["35K", "789", "33QA", "334J"], leader=0, rules=ff.Rules(decks=2, hooking=False)
    )
    assert off.apply("3").decision == "play" and off.apply("3").to_act == 1


def test_a_single_that_empties_a_hand_opens_a_window() -> None:
    r = ff.Round.from_hands(["3", "44", "335", "6"], leader=0, rules=ff.Rules(decks=2))
    r = r.apply("3")
    assert r.finished == [0] and (r.to_act, r.decision) == (2, "hook")
    r = r.apply("33")
    # Seat 0 finished and is never offered; nobody else holds a 3: seat 2 leads.
    assert (r.to_act, r.decision, r.top) == (2, "play", None)


def test_round_ends_in_the_middle_of_a_chain() -> None:
    # Seat 0 finished already; seat 2 hooking empties its hand: team 0 is complete.
    r = ff.Round.from_hands(["4", "3J", "33", "3Q"], leader=0, rules=ff.Rules(decks=2))
    r = r.apply("4")
    r = play(r, "pass", "pass", "pass")  # seat 0 finished; lead passes to seat 1
    assert r.to_act == 1
    r = r.apply("3")
    assert (r.to_act, r.decision) == (2, "hook")
    r = r.apply("33")
    assert r.is_over and r.winning_team == 0 and r.caught == [1, 3] and r.to_act is None


def test_players_with_no_cards_are_never_offered() -> None:
    r = ff.Round.from_hands(["3", "4", "33", "5"], leader=0, rules=ff.Rules(decks=2))
    r = r.apply("3")  # seat 0 finishes
    assert r.offer_queue == [2]


def test_bombs_may_not_be_played_during_a_chain() -> None:
    r = ff.Round.from_hands(["3K", "33", "BR3", "9999"], leader=0, rules=ff.Rules(decks=2))
    r = r.apply("3").apply("33")
    assert r.decision == "unhook" and r.legal_moves() == ["3", "pass"]
    with pytest.raises(ff.IllegalMove):
        r.apply("BR")


# ----------------------------------------------------------------- end of round (section 7)


def test_team_complete_catches_the_rest() -> None:
    r = ff.Round.from_hands(["3", "4K", "5", "6Q"], leader=0, rules=ff.Rules(hooking=False))
    r = play(r, "3", "pass", "pass", "pass")  # seat 0 finishes
    r = play(r, "4", "5")
    assert r.is_over and r.finished == [0, 2] and r.caught == [1, 3] and r.winning_team == 0


def test_three_players_unequal_teams() -> None:
    rules = ff.Rules(players=3, hooking=False)
    r = ff.Round.from_hands(["3", "4", "5"], leader=1, rules=rules)
    r = r.apply("4")
    assert r.is_over and r.winning_team == 1 and r.caught == [0, 2]


# ----------------------------------------------------------------- tribute (section 8)


def test_tribute_two_caught_highest_to_first_finisher() -> None:
    hands = ["345", "AKQ2", "678", "9TJB"]
    r = ff.Round.from_hands(hands, level="4", previous_finished=[0, 2], previous_caught=[1, 3])
    # Level 4: order ... A, 4, B, R. Seat 3 pays B (higher) to seat 0, seat 1 pays A to seat 2.
    assert r.tributes == [
        {"from": 3, "to": 0, "card": "B", "returned": None},
        {"from": 1, "to": 2, "card": "A", "returned": None},
    ]
    assert r.log == [
        {"type": "tribute", "seat": 3, "to": 0, "card": "B"},
        {"type": "tribute", "seat": 1, "to": 2, "card": "A"},
    ]
    assert (r.to_act, r.decision) == (0, Decision.RETURN)
    assert r.legal_moves() == ["3", "5", "4"]  # round order; the level card 4 is face rank 4
    with pytest.raises(ff.IllegalMove):
        r.apply("B")
    r = r.apply("5")
    assert (r.to_act, r.decision, r.legal_moves()) == (2, Decision.RETURN, ["6", "7", "8"])
    r = r.apply("8")
    assert (r.to_act, r.decision) == (3, Decision.PLAY)  # highest payer leads
    assert r.hand(3) == "59TJ" and r.hand(1) == "28QK"
    assert r.tributes[0]["returned"] == "5" and r.tributes[1]["returned"] == "8"


def test_tribute_one_caught_pays_best_placed() -> None:
    r = ff.Round.from_hands(
        ["34", "55", "67", "8R"], level="3", previous_finished=[0, 1, 2], previous_caught=[3]
    )
    assert r.tributes == [{"from": 3, "to": 0, "card": "R", "returned": None}]
    assert r.legal_moves() == ["4", "3"]  # level 3: the 3 is the level card, still face rank 3


def test_level_card_counts_as_returnable_and_lowest_when_none() -> None:
    r = ff.Round.from_hands(
        ["3TJ", "KQ", "JQ", "AK"], level="3", previous_finished=[0, 2], previous_caught=[1, 3]
    )
    assert r.legal_moves() == ["3"]  # seat 0 returns; 3 is the level card, face rank 3
    r = r.apply("3")
    assert r.to_act == 2 and r.legal_moves() == ["J"]  # nothing 2-9: lowest card in order


def test_equal_tribute_cards_ordered_by_seat_after_best_winner() -> None:
    rules = ff.Rules(players=6, decks=3)
    hands = ["345", "R3", "678", "R4", "9TJ", "R5"]
    r = ff.Round.from_hands(
        hands, level="2", rules=rules, previous_finished=[2, 0, 4], previous_caught=[1, 3, 5]
    )
    # All pay R; ordered by seat nearest clockwise after seat 2: 3, 5, 1.
    assert [(t["from"], t["to"]) for t in r.tributes] == [(3, 2), (5, 0), (1, 4)]
    assert r.leader == 3


def test_more_payers_than_winners_wraps() -> None:
    rules = ff.Rules(players=3, decks=2)
    r = ff.Round.from_hands(
        ["345", "6R", "7B"], level="2", rules=rules, previous_finished=[1], previous_caught=[0, 2]
    )
    assert [(t["from"], t["to"], t["card"]) for t in r.tributes] == [(2, 1, "B"), (0, 1, "5")]
    assert r.to_act == 1 and r.decision == "return"


def test_tribute_off_previous_first_finisher_leads() -> None:
    rules = ff.Rules(tribute=False)
    r = ff.Round.from_hands(
        ["345", "6R", "7B", "89"], rules=rules, previous_finished=[2, 0], previous_caught=[1, 3]
    )
    assert (r.to_act, r.decision, r.tributes) == (2, Decision.PLAY, [])


@pytest.mark.parametrize(
    ("finished", "caught", "message"),
    [
        ([0, 2], [2, 1, 3], "seat 2 cannot have both finished and been caught"),
        ([0, 2], [1, 1, 3], "previous_caught names seat 1 twice"),
        ([0, 0, 2], [1, 3], "previous_finished names seat 0 twice"),
        ([0, 1], [3], r"previous_finished \[0, 1\] completes neither team"),
        ([0], [1, 3], r"previous_finished \[0\] completes neither team"),
        ([0, 2, 1], [3], "team 0 had all finished when seat 2 did, .* seat 1 cannot"),
        ([0, 2], [1], "seat 3 neither finished nor was caught"),
        ([0, 1, 2], [1, 3], "seat 1 cannot have both finished and been caught"),
        ([1, 3], [0, 2, 4], "seat 4 does not exist at 4 players"),
        ([], [1, 3], "previous_finished must name"),
    ],
)
def test_an_impossible_previous_round_is_refused_by_name(
    finished: list[int], caught: list[int], message: str
) -> None:
    hands = ["345", "AKQ2", "678", "9TJB"]
    for tribute in (True, False):
        with pytest.raises(ValueError, match=message):
            ff.Round.from_hands(
                hands,
                level="4",
                rules=ff.Rules(tribute=tribute),
                previous_finished=finished,
                previous_caught=caught,
            )


def test_the_caught_players_follow_from_the_finishing_order() -> None:
    hands = ["345", "AKQ2", "678", "9TJB"]
    given = ff.Round.from_hands(hands, level="4", previous_finished=[0, 2], previous_caught=[3, 1])
    derived = ff.Round.from_hands(hands, level="4", previous_finished=[0, 2])
    assert derived.tributes == given.tributes and len(given.tributes) == 2


def test_seats_and_moves_of_the_wrong_kind_get_clear_errors() -> None:
    r = ff.Round.from_hands(["33456", "789TJ", "3QKA", "3BR"], leader=0)
    for seat in (9, -1, "1", True):
        with pytest.raises(ValueError, match=f"seat {seat!r} does not exist at 4 players"):
            r.hand(seat)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="does not exist"):
            r.hand_counts(seat)  # type: ignore[arg-type]
    for move in (["3", "4", "5"], ("3",), None, 3):
        with pytest.raises(ff.IllegalMove, match="a move must be text such as '345', not "):
            r.apply(move)  # type: ignore[arg-type]
    assert r.apply("345").hand(0) == "36"


# ----------------------------------------------------------------- information (section 9)


def test_view_shows_own_hand_and_public_facts_only() -> None:
    r = hook_round().apply("3")
    view = r.view(1)
    assert view["hand"] == "789" and view["counts"] == [2, 3, 4, 4]
    assert view["turn"] == 1 and view["decision"] is None and view["legal_moves"] == []
    offered = r.view(2)
    assert offered["decision"] == "hook" and offered["legal_moves"] == ["33", "pass"]
    text = repr(view)
    assert "QA" not in text and "4J" not in text
    assert r.public_view()["hand"] == ""


def test_hook_offer_does_not_show_in_other_views() -> None:
    with_pair = ff.Round.from_hands(
        ["35K", "789", "33QA", "334J"], leader=0, rules=ff.Rules(decks=2)
    ).apply("3")
    without = ff.Round.from_hands(
        ["35K", "789", "3Q4A", "3J4K"], leader=0, rules=ff.Rules(decks=2)
    ).apply("3")
    assert with_pair.decision == "hook" and without.decision == "play"
    assert with_pair.view(0) == without.view(0)
    # The seat whose normal turn is next can tell something is pending (section 9).
    assert with_pair.view(1)["decision"] is None and without.view(1)["decision"] == "play"
