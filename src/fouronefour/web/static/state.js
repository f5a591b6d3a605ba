// The client's state and the one pure function that changes it: reduce(state, message).
//
// Every server message (welcome, snapshot, update, presence) and the few local facts the
// app learns over HTTP (the table summary, a seat taken) go through `reduce`, which returns
// a new state and never touches the DOM, the clock or storage: what it needs of the clock
// arrives in the message (`received`, the local time it came in). Renderers read the state.
//
// State: `table` (TABLE), `state` (public STATE, replaced by every update), `you` (own seat:
// hand and decision), `log` (the current round's public events, tributes first), `results`
// (each finished round of the match), `chat`, `presence`, and who we are (`role`, `seat`,
// `host`), with `clockOffset` = server clock minus ours.

export const CHAT_KEPT = 100;

export function initialState(code = null) {
  return {
    code,
    role: "spectator",
    seat: null,
    host: false,
    clockOffset: 0,
    table: null,
    state: null,
    you: null,
    log: [],
    results: [],
    // The last round result with the levels before it: {result, previousLevels}.
    roundEnd: null,
    chat: [],
    presence: null,
  };
}

function withoutType(event) {
  const fields = { ...event };
  delete fields.type;
  return fields;
}

function clock(message) {
  return message.server_time !== undefined && message.received !== undefined
    ? message.server_time - message.received
    : null;
}

function levelsBefore(results, fallback) {
  return results.length >= 2 ? results[results.length - 2].levels_after : fallback;
}

/** The state after `message`; `state` is not changed. */
export function reduce(state, message) {
  switch (message.type) {
    case "enter":
      return { ...initialState(message.code), table: message.table ?? null };
    case "table":
      return { ...state, table: message.table };
    case "welcome":
      return {
        ...state,
        role: message.role,
        seat: message.seat,
        host: message.host,
        clockOffset: clock(message) ?? state.clockOffset,
      };
    case "snapshot":
      return applySnapshot(state, message);
    case "update":
      return applyUpdate(state, message);
    case "presence":
      return { ...state, presence: withoutType(message), clockOffset: clock(message) ?? state.clockOffset };
    default:
      return state;
  }
}

function applySnapshot(state, message) {
  const game = message.game;
  const results = game ? [...game.results] : [];
  const chat = message.chat ? message.chat.slice(-CHAT_KEPT) : state.chat;
  return {
    ...state,
    clockOffset: clock(message) ?? state.clockOffset,
    table: message.table,
    state: message.state,
    you: message.you,
    log: game ? [...game.log] : [],
    results,
    roundEnd: results.length
      ? { result: results[results.length - 1], previousLevels: levelsBefore(results, ["2", "2"]) }
      : null,
    chat,
  };
}

function applyUpdate(state, message) {
  const levelsAtStart = state.state ? [...state.state.levels] : ["2", "2"];
  let table = state.table;
  let log = state.log;
  let results = state.results;
  let roundEnd = state.roundEnd;
  let chat = state.chat;
  let seat = state.seat;
  const copyTable = () => {
    if (table === state.table) table = { ...table, seats: [...table.seats] };
  };
  for (const event of message.events || []) {
    switch (event.type) {
      case "seat": {
        copyTable();
        const seat = withoutType(event);
        table.seats[seat.seat] = { ...table.seats[seat.seat], ...seat };
        break;
      }
      case "status":
        copyTable();
        table.status = event.status;
        if (event.match_number !== undefined) table.match_number = event.match_number;
        break;
      case "settings":
        copyTable();
        table.settings = { ...(table.settings || {}), ...event.settings };
        break;
      case "seats_swapped": {
        // move_seat: whoever sat at one of the two seats now acts for the other.
        copyTable();
        table.host_seat = event.host_seat;
        const [a, b] = event.seats;
        if (state.role === "player" && seat === a) seat = b;
        else if (state.role === "player" && seat === b) seat = a;
        break;
      }
      case "match_start":
        results = [];
        log = [];
        roundEnd = null;
        break;
      case "round_start":
        log = (event.tributes || []).map((entry) => ({
          type: "tribute",
          seat: entry.from,
          to: entry.to,
          card: entry.card,
        }));
        break;
      case "play":
      case "pass":
      case "hook":
      case "unhook":
      case "return":
      case "finish":
        log = [...log, event];
        break;
      case "round_over": {
        const result = withoutType(event);
        results = [...results, result];
        roundEnd = {
          result,
          previousLevels: results.length >= 2 ? results[results.length - 2].levels_after : levelsAtStart,
        };
        break;
      }
      case "chat":
        chat = [...chat, withoutType(event)].slice(-CHAT_KEPT);
        break;
      default:
        break;
    }
  }
  return {
    ...state,
    clockOffset: clock(message) ?? state.clockOffset,
    table,
    seat,
    state: message.state !== undefined && message.state !== null ? message.state : state.state,
    you: message.you !== undefined ? message.you : state.you,
    log,
    results,
    roundEnd,
    chat,
  };
}

// ------------------------------------------------------------------ reading the state

/** The current decision of this seat ("play", "return", "hook", "unhook") or null. */
export function decisionOf(state) {
  return state.you && state.you.decision ? state.you.decision : null;
}

/** The last round of the match with the levels before it (for "up n levels"). */
export function lastRoundEnd(state) {
  const results = state.results;
  if (!results.length) return null;
  return { result: results[results.length - 1], previousLevels: levelsBefore(results, ["2", "2"]) };
}

/** The types of the events a message carries (none for anything but an update). */
export function eventTypes(message) {
  return new Set(message.type === "update" ? (message.events || []).map((event) => event.type) : []);
}

/** The engine-like view the table renderers read, built from STATE and the kept log. */
export function gameView(state) {
  const pub = state.state;
  // The seat being offered a claim sees the claimed move on top (its own prompt); everyone
  // else sees what they would if nobody could claim: the server's top (docs/rules.md s.9).
  const offered = pub.window && ["hook", "unhook"].includes(decisionOf(state));
  return {
    players: state.table.options.players,
    level: pub.level,
    order: pub.order,
    counts: pub.counts,
    finished: pub.finished,
    turn: pub.turn,
    top: offered ? pub.window.claimed : pub.top,
    top_seat: offered ? pub.window.claimed_seat : pub.top_seat,
    window: pub.window || null,
    tributes: pub.tributes || [],
    log: state.log,
    levels: pub.levels,
    round_number: pub.round_number,
    match_over: pub.match_over,
    match_winner: pub.match_winner,
    // (A club event's table: its match ends when the event's length decides it.)
    event_goal: eventGoal(state),
    is_over: Boolean(pub.match_over),
    pause: pub.pause || null,
    paused: Boolean(pub.paused),
  };
}

/** What the table renderers take: seats as people see them, whose view, the game view. */
export function tableView(state) {
  return {
    lastResult: state.results[state.results.length - 1] || null,
    seats: state.table.seats.map((seat) => ({
      name: seat.name,
      bot: seat.kind === "bot" ? state.table.options.bot : null,
      away: seat.away,
      connected: seat.kind !== "human" || seat.online,
      kind: seat.kind,
    })),
    mySeat: state.role === "player" ? state.seat : null,
    view: state.state ? gameView(state) : null,
  };
}

/** A club event's table (TABLE.options `event`; before it, a match shorter than the
 * whole: rules `goal`, docs/rules.md section 10), which the event seats, starts and ends. */
export function eventGoal(state) {
  const options = state.table && state.table.options ? state.table.options : {};
  return options.event === true || (Boolean(options.goal) && options.goal !== "match");
}
