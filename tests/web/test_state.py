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
