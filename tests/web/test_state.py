"""The client's reducer (static/state.js), run in the browser: pure, and right.

`reduce(state, message)` is the only place the client's state changes; these checks
feed it protocol messages in a page (no DOM involved) with every input deep-frozen, so a
mutation of the old state throws (ES modules are strict).
"""

from __future__ import annotations

from typing import Any

SCRIPT = """
async () => {
  const { initialState, reduce, tableView, lastRoundEnd } = await import('/static/state.js');
  const freeze = (value) => {
    if (value && typeof value === 'object') {
      Object.values(value).forEach(freeze);
      Object.freeze(value);
    }
    return value;
  };
  const seat = (n, kind, name) => ({seat: n, team: n % 2, name, kind, online: true, away: false});
  const table = {code: 'ABCD', status: 'lobby', host_seat: 0, options: {players: 2, bot: 'greedy'},
                 seats: [seat(0, 'human', 'Ann'), seat(1, 'empty', null)], match_number: 0};
  const pub = (extra) => ({status: 'playing', match_number: 1, round_number: 1, level: '2',
    levels: ['2', '2'], order: '3456789TJQKA2BR', turn: 0, top: null, top_seat: null,
    counts: [27, 27], finished: [], tributes: [], window: null, deadline: null,
    match_over: false, match_winner: null, ...extra});
  const steps = [
    {type: 'enter', code: 'ABCD'},
    {type: 'table', table},
    {type: 'welcome', role: 'player', seat: 0, host: true, server_time: 5000, received: 1000},
    {type: 'snapshot', v: 2, server_time: 5000, received: 1000, table, state: null, you: null,
     game: null},
    {type: 'update', v: 3, server_time: 5100, received: 1100, state: null,
     events: [{type: 'seat', ...seat(1, 'bot', 'Bot 2')}]},
    {type: 'update', v: 4, server_time: 5200, received: 1200, state: pub({}),
     you: {seat: 0, hand: '3345', decision: 'play', legal_moves: ['3'], prompt_v: 4},
     events: [{type: 'status', status: 'playing', match_number: 1},
              {type: 'match_start', match_number: 1, levels: ['2', '2']},
              {type: 'round_start', round_number: 1, level: '2', levels: ['2', '2'], leader: 0,
               counts: [27, 27], tributes: []}]},
    {type: 'update', v: 5, server_time: 5300, received: 1300, state: pub({turn: 1, top: '3'}),
     you: {seat: 0, hand: '345', decision: null, legal_moves: [], prompt_v: 4},
     events: [{type: 'play', seat: 0, move: '3'}]},
    {type: 'update', v: 6, server_time: 5400, received: 1400,
     state: pub({turn: 0, round_number: 2, levels: ['3', '2'], level: '3'}),
     events: [{type: 'finish', seat: 0, place: 1},
              {type: 'round_over', round_number: 1, level: '2', finished: [0, 1], caught: [1],
               winning_team: 0, levels_after: ['3', '2']},
              {type: 'round_start', round_number: 2, level: '3', levels: ['3', '2'], leader: 1,
               counts: [27, 27], tributes: [{from: 1, to: 0, card: 'R'}]}]},
    {type: 'presence', spectators: 2, watchers: ['Cy', 'Di'], server_time: 5500, received: 1500},
  ];
  let state = freeze(initialState());
  const seen = [];
  for (const message of steps) {
    const next = reduce(state, freeze(message));
    seen.push({type: message.type, same: next === state});
    state = freeze(next);
  }
  const view = tableView(state);
  return {
    seen, role: state.role, seat: state.seat, host: state.host, clock: state.clockOffset,
    seat1: state.table.seats[1], status: state.table.status, hand: state.you.hand,
    log: state.log, results: state.results.length, roundEnd: state.roundEnd,
    last: lastRoundEnd(state), presence: state.presence, names: view.seats.map((s) => s.bot),
    ignored: reduce(state, {type: 'nonsense'}) === state,
  };
}
"""


def test_the_reducer_is_pure_and_follows_the_protocol(server_url: str, new_page: Any) -> None:
    page = new_page("reducer")
    page.goto(server_url)
    out = page.evaluate(SCRIPT)
    assert all(not step["same"] for step in out["seen"]), out["seen"]  # every message changed it
    assert (out["role"], out["seat"], out["host"]) == ("player", 0, True)
    assert out["clock"] == 4000
    assert out["seat1"]["kind"] == "bot" and out["status"] == "playing"
    assert out["hand"] == "345"
    # A new round's log starts with its tribute; the round before is in the results.
    assert out["log"] == [{"type": "tribute", "seat": 1, "to": 0, "card": "R"}]
    assert out["results"] == 1
    assert out["roundEnd"]["previousLevels"] == ["2", "2"]
    assert out["roundEnd"]["result"]["levels_after"] == ["3", "2"]
    assert out["last"] == out["roundEnd"]
    assert out["presence"]["spectators"] == 2
    assert out["names"] == [None, "greedy"]
    assert out["ignored"]


LABELS = """
async () => {
  const { renderRing } = await import('/static/table.js');
  const seats = [0, 1, 2, 3].map((n) => ({name: `P${n}`, kind: 'human', connected: true}));
  const labels = (log, extra) => {
    const root = document.createElement('div');
    const view = {players: 4, counts: [9, 9, 9, 9], finished: [], turn: 3, top: null,
                  top_seat: null, window: null, is_over: false, log, ...extra};
    renderRing(root, {view, seats, mySeat: 0});
    return [...root.querySelectorAll('.last-move')].map((node) => node.textContent);
  };
  const chain = [{type: 'play', seat: 0, move: '7'}, {type: 'hook', seat: 2, move: '77'},
                 {type: 'unhook', seat: 3, move: '7'}];
  const window = {kind: 'hook', rank: '7', claimed: '7', claimed_seat: 3, closes_at: 1};
  return {
    // The window after the unhook: the chain is the trick on the table.
    during: labels(chain, {window}),
    // Nobody claimed: the chain's trick is over and seat 3 is to lead.
    ended: labels(chain, {}),
    // Seat 3 led a new trick: only its move is this trick's.
    led: labels([...chain, {type: 'play', seat: 3, move: '9'}], {top: '9', top_seat: 3, turn: 0}),
  };
}
"""


def test_seat_labels_show_this_trick_only_after_a_hook_chain(
    server_url: str, new_page: Any
) -> None:
    page = new_page("labels")
    page.goto(server_url)
    page.wait_for_function("document.body.dataset.ready === 'true'")  # translations loaded
    out = page.evaluate(LABELS)
    assert out["during"] == ["7", "", "hook 7 7", "unhook 7"]
    assert out["ended"] == ["", "", "", ""]
    assert out["led"] == ["", "", "", "9"], "the chain's labels outlived its trick"


COUNTER = """
async ({ messages, viewers }) => {
  const { initialState, reduce } = await import('/static/state.js');
  const { renderCounter } = await import('/static/roundpanel.js');
  const shown = [];
  for (const viewer of viewers) {
    let state = initialState('CNTR');
    const welcome = viewer === null ? {type: 'welcome', role: 'spectator', seat: null, host: false}
      : {type: 'welcome', role: 'player', seat: viewer, host: viewer === 0};
    const rows = [];
    for (const message of [welcome, ...messages]) {
      const mine = message.you ? {...message, you: message.you[String(viewer)] || null} : message;
      state = reduce(state, mine);
      if (message.type !== 'update') continue;
      const root = document.createElement('div');
      renderCounter(root, state);
      rows.push(Object.fromEntries([...root.querySelectorAll('[data-rank]')].map(
        (cell) => [cell.dataset.rank, Number(cell.querySelector('b').textContent)])));
    }
    shown.push(rows);
  }
  return shown;
}
"""


Messages = list[dict[str, Any]]


def _round_two_with_returns() -> tuple[Messages, list[list[str]], list[Messages]]:
    """A real round 2 (4 seats, one deck, seed 41: both tribute cards are the level card 4,
    which the receivers may give straight back, docs/rules.md section 8): the messages a
    page gets from its start, and after each of them every seat's hand and the public log."""
    import random

    from fouronefour import bots
    from fouronefour.engine import Decision, Match, Rules

    rules = Rules(players=4, decks=1)
    match = Match(rules, seed=41)
    greedy = bots.get("greedy")
    rng = random.Random(41)

    def bot_move(current: Match) -> str:
        seat = current.round.to_act
        assert seat is not None
        return greedy.choose(current.view(seat), current.round.legal_moves(), rng)

    while match.round_number == 1:
        match = match.apply(bot_move(match))
    seats = [
        {"seat": n, "team": n % 2, "name": f"P{n}", "kind": "human", "online": True, "away": False}
        for n in range(4)
    ]
    table = {"code": "CNTR", "status": "playing", "host_seat": 0, "seats": seats,
             "options": {"players": 4, "decks": 1, "bot": "greedy"},
             "settings": {"card_counter": True}, "match_number": 1}  # fmt: skip

    def update(version: int, events: list[dict[str, Any]]) -> dict[str, Any]:
        public = {**match.public_view(), "window": None, "round_end": None}
        you = {str(s): {"seat": s, "hand": match.round.hand(s), "decision": None} for s in range(4)}
        return {"type": "update", "v": version, "events": events, "state": public, "you": you}

    rnd = match.round
    tributes = [{key: paid[key] for key in ("from", "to", "card")} for paid in rnd.tributes]
    start = {"type": "round_start", "round_number": 2, "level": rnd.level,
             "levels": list(match.levels), "leader": rnd.leader, "counts": rnd.card_counts(),
             "tributes": tributes}  # fmt: skip
    messages = [{"type": "snapshot", "v": 1, "table": table, "state": None, "you": None,
                 "game": None, "chat": []}, update(2, [start])]  # fmt: skip
    hands = [[rnd.hand(s) for s in range(4)]]
    logs = [rnd.log]
    returned_at_once = 0
    while True:
        rnd = match.round
        legal = rnd.legal_moves()
        move = bot_move(match)
        if rnd.decision is Decision.RETURN:
            received = [t["card"] for t in rnd.tributes if t["to"] == rnd.to_act]
            if received and received[0] in legal:
                move, returned_at_once = received[0], returned_at_once + 1
        size = rnd.log_size
        after = match.apply(move)
        if after.round_number != 2:
            break
        match = after
        messages.append(update(len(messages) + 1, match.round.log_since(size)))
        hands.append([match.round.hand(s) for s in range(4)])
        logs.append(match.round.log)
    assert returned_at_once == 2, "the seed no longer gives the tribute card straight back"
    return messages, hands, logs


def _unseen(hands: list[str], log: list[dict[str, Any]], viewer: int | None) -> dict[str, int]:
    """What the viewer has not seen, from the truth: the cards other seats hold, less those
    everyone saw go to them (tribute, returns) and that they have not given or played since."""
    from collections import Counter

    known = [Counter[str]() for _ in hands]
    for event in log:
        moved = event.get("card", "") if event["type"] in ("tribute", "return") else ""
        played = event.get("move", "") if event["type"] in ("play", "hook", "unhook") else ""
        for rank in moved + played:
            known[event["seat"]][rank] = max(0, known[event["seat"]][rank] - 1)
        for rank in moved:
            known[event["to"]][rank] += 1
    unseen = Counter[str]()
    for seat, hand in enumerate(hands):
        if seat == viewer:
            continue
        held = Counter(hand)
        for rank in held | known[seat]:
            assert known[seat][rank] <= held[rank], (seat, rank, "seen going there, not held")
            unseen[rank] += held[rank] - known[seat][rank]
    return {rank: unseen[rank] for rank in "23456789TJQKABR"}


def test_the_card_counter_agrees_with_the_engine_through_tribute_and_returns(
    server_url: str, new_page: Any
) -> None:
    messages, hands, logs = _round_two_with_returns()
    viewers: list[int | None] = [0, 1, 2, 3, None]
    page = new_page("counter")
    page.goto(server_url)
    shown = page.evaluate(COUNTER, {"messages": messages, "viewers": viewers})
    for viewer, rows in zip(viewers, shown, strict=True):
        assert len(rows) == len(hands)
        for step, row in enumerate(rows):
            expected = _unseen(hands[step], logs[step], viewer)
            assert row == expected, f"viewer {viewer} after step {step}: {row} != {expected}"
