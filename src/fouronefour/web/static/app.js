// The 414 browser client: home (create or join), lobby, live table, results, replays.
//
// State comes from the server only (docs/protocol.md): a snapshot, then updates with
// public `state`, this seat's private `you` and public `events`. The client keeps the
// round's public log and results from those events and renders everything from them.

import * as i18n from "./i18n.js";
import { t } from "./i18n.js";
import { api, ApiError, TableConnection } from "./net.js";
import { canonicalMove, cardElement, indexesForMove, moveElement, moveLabel } from "./cards.js";
import { hintOrder } from "./moves.js";
import {
  renderCenter,
  renderLog,
  renderResults,
  renderRing,
  renderScoreboard,
  renderTribute,
  seatName,
  teamName,
} from "./table.js";
import { openReplay, rerenderReplay } from "./replay.js";

const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ stored per browser

const storage = {
  name() {
    return localStorage.getItem("414.name") || "";
  },
  setName(name) {
    localStorage.setItem("414.name", name);
  },
  seat(code) {
    try {
      return JSON.parse(localStorage.getItem(`414.table.${code}`) || "null");
    } catch {
      return null;
    }
  },
  setSeat(code, seat, token) {
    localStorage.setItem(`414.table.${code}`, JSON.stringify({ seat, token }));
  },
  forgetSeat(code) {
    localStorage.removeItem(`414.table.${code}`);
  },
};

// ------------------------------------------------------------------ client state

const app = {
  config: null,
  code: null,
  conn: null,
  role: "spectator",
  seat: null,
  host: false,
  table: null, // TABLE
  state: null, // STATE (public)
  you: null, // YOU (own seat), or null
  log: [], // the current round's public events
  results: [], // RESULT of each finished round of the current match
  clockOffset: 0, // server clock minus ours, in ms
  selection: new Set(), // indexes into you.hand
  selectionHand: "",
  hints: { prompt: null, moves: [], index: -1 },
  answeredPrompt: null, // prompt_v of a claim window already answered
  sending: false,
  watching: false,
  resultShown: null, // {result, previousLevels} shown in the dialog
};

function serverNow() {
  return Date.now() + app.clockOffset;
}

// ------------------------------------------------------------------ messages to the user

let toastTimer = null;
function toast(text, { error = false } = {}) {
  const box = $("toast");
  box.textContent = text;
  box.classList.toggle("error", error);
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    box.hidden = true;
  }, 3500);
}

function errorText(error) {
  if (error instanceof ApiError) {
    const key = `error_${error.code}`;
    const translated = t(key);
    return translated === key ? error.message || error.code : translated;
  }
  return String(error && error.message ? error.message : error);
}

function showError(error) {
  toast(errorText(error), { error: true });
}

// ------------------------------------------------------------------ screens

function showScreen(id) {
  for (const screen of document.querySelectorAll(".screen")) screen.hidden = screen.id !== id;
}

function tableCodeFromPath() {
  const match = location.pathname.match(/^\/t\/([A-Za-z0-9]+)\/?$/);
  return match ? match[1].toUpperCase() : null;
}

// ------------------------------------------------------------------ home: create and join

function readCreateForm() {
  const form = $("create-form");
  const data = new FormData(form);
  const options = {
    name: $("name-input").value.trim(),
    players: Number(data.get("players")),
    hooking: form.elements.hooking.checked,
    tribute: form.elements.tribute.checked,
    bomb_ladder: data.get("bomb_ladder"),
    turn_seconds: Number(data.get("turn_seconds")),
    hook_mode: data.get("hook_windows"),
    bot: data.get("bot"),
    seat: 0,
  };
  const decks = data.get("decks");
  options.decks = decks ? Number(decks) : null;
  return options;
}

async function createTable(event) {
  event.preventDefault();
  const nameInput = $("name-input");
  if (!nameInput.value.trim()) {
    nameInput.focus();
    nameInput.reportValidity();
    return;
  }
  storage.setName(nameInput.value.trim());
  const button = event.submitter || $("create-form").querySelector("[type=submit]");
  button.disabled = true;
  try {
    const created = await api.createTable(readCreateForm());
    storage.setSeat(created.code, created.seat, created.token);
    history.pushState(null, "", created.link || `/t/${created.code}`);
    enterTable(created.code);
  } catch (error) {
    showError(error);
  } finally {
    button.disabled = false;
  }
}

function joinByCode(event) {
  event.preventDefault();
  const code = $("join-code").value.trim().toUpperCase();
  if (!code) return;
  const name = $("name-input").value.trim();
  if (name) storage.setName(name);
  history.pushState(null, "", `/t/${code}`);
  enterTable(code);
}

function applyConfig(config) {
  app.config = config;
  const botSelect = $("create-form").elements.bot;
  for (const option of [...botSelect.options]) {
    option.hidden = !config.bots.includes(option.value);
    option.disabled = option.hidden;
  }
  if (config.default_bot && config.bots.includes(config.default_bot)) botSelect.value = config.default_bot;
  const limits = config.limits || {};
  const players = $("create-form").elements.players;
  if (limits.min_players) players.min = limits.min_players;
  if (limits.max_players) players.max = limits.max_players;
  const defaults = config.defaults || {};
  if (defaults.hook_mode) $("create-form").elements.hook_windows.value = defaults.hook_mode;
}

function showHome() {
  app.code = null;
  document.title = "414";
  showScreen("screen-home");
  $("topbar-info").textContent = "";
  $("name-input").value = storage.name();
}

// ------------------------------------------------------------------ entering a table

async function enterTable(code) {
  if (app.conn) app.conn.close();
  Object.assign(app, {
    code,
    conn: null,
    role: "spectator",
    seat: null,
    host: false,
    table: null,
    state: null,
    you: null,
    log: [],
    results: [],
    watching: false,
    answeredPrompt: null,
    resultShown: null,
  });
  clearSelection();
  showScreen("screen-table");
  $("lobby").hidden = true;
  $("game").hidden = true;
  $("results").hidden = true;
  $("invite-code").textContent = code;
  $("invite-link").value = `${location.origin}/t/${code}`;
  try {
    app.table = await api.table(code);
  } catch (error) {
    showError(error);
    if (error instanceof ApiError && error.code === "table_not_found") {
      history.replaceState(null, "", "/");
      showHome();
    }
    return;
  }
  const saved = storage.seat(code);
  connect(saved ? saved.token : null);
  render();
}

function connect(token) {
  app.conn = new TableConnection(app.code, token, {
    onWelcome(message) {
      app.role = message.role;
      app.seat = message.seat;
      app.host = message.host;
      app.clockOffset = message.server_time - Date.now();
    },
    onSnapshot: applySnapshot,
    onUpdate: applyUpdate,
    onStatus(connected) {
      $("conn").hidden = connected;
    },
    onFatal(error) {
      if (error.code === "bad_token") {
        // The stored seat is no longer valid (another server, or a reset): watch instead.
        storage.forgetSeat(app.code);
        toast(errorText(error), { error: true });
        app.conn.reopenAs(null);
        return;
      }
      showError(error);
    },
  });
  app.conn.open();
}

function applySnapshot(message) {
  app.clockOffset = message.server_time - Date.now();
  app.table = message.table;
  app.state = message.state;
  app.you = message.you;
  const game = message.game;
  app.log = game ? [...game.log] : [];
  app.results = game ? [...game.results] : [];
  render();
}

/** An event's fields without its `type`: a seat or a round result as the API names them. */
function withoutType(event) {
  const fields = { ...event };
  delete fields.type;
  return fields;
}

function applyUpdate(message) {
  app.clockOffset = message.server_time - Date.now();
  const levelsBefore = app.state ? [...app.state.levels] : ["2", "2"];
  let roundResult = null;
  let matchOver = false;
  for (const event of message.events) {
    switch (event.type) {
      case "seat": {
        const seat = withoutType(event);
        app.table.seats[seat.seat] = { ...app.table.seats[seat.seat], ...seat };
        break;
      }
      case "status":
        app.table.status = event.status;
        if (event.match_number !== undefined) app.table.match_number = event.match_number;
        break;
      case "match_start":
        app.results = [];
        app.log = [];
        app.resultShown = null;
        $("results").hidden = true;
        break;
      case "round_start":
        app.log = (event.tributes || []).map((entry) => ({
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
        app.log.push(event);
        break;
      case "round_over": {
        const result = withoutType(event);
        app.results.push(result);
        roundResult = result;
        break;
      }
      case "match_over":
        matchOver = true;
        break;
      default:
        break;
    }
  }
  if (message.state !== undefined && message.state !== null) app.state = message.state;
  if (message.you !== undefined) app.you = message.you;
  if (roundResult) {
    const previous = app.results.length >= 2 ? app.results[app.results.length - 2].levels_after : levelsBefore;
    showResults(roundResult, previous);
  } else if (matchOver && app.results.length) {
    const last = app.results[app.results.length - 1];
    const previous = app.results.length >= 2 ? app.results[app.results.length - 2].levels_after : ["2", "2"];
    showResults(last, previous);
  }
  render();
}

// ------------------------------------------------------------------ rendering

/** The engine-like view the table renderer reads, built from STATE and the kept log. */
function gameView() {
  const state = app.state;
  return {
    players: app.table.options.players,
    level: state.level,
    order: state.order,
    counts: state.counts,
    finished: state.finished,
    turn: state.turn,
    top: state.top,
    top_seat: state.top_seat,
    window: state.window || null,
    tributes: state.tributes || [],
    log: app.log,
    levels: state.levels,
    round_number: state.round_number,
    match_over: state.match_over,
    match_winner: state.match_winner,
    is_over: Boolean(state.match_over),
  };
}

function renderState() {
  return {
    lastResult: app.results[app.results.length - 1] || null,
    seats: app.table.seats.map((seat) => ({
      name: seat.name,
      bot: seat.kind === "bot" ? app.table.options.bot : null,
      away: seat.away,
      connected: seat.kind !== "human" || seat.online,
    })),
    mySeat: app.role === "player" ? app.seat : null,
    view: app.state ? gameView() : null,
  };
}

function render() {
  if (!app.table) return;
  const table = app.table;
  const options = table.options;
  const bits = [t("table_n", { code: table.code }), t("seats_count", { n: options.players })];
  if (options.hooking) bits.push(t("rule_hooking"));
  if (options.tribute) bits.push(t("rule_tribute"));
  $("topbar-info").textContent = bits.join(" · ");
  document.title = `414 · ${table.code}`;
  const inLobby = table.status === "lobby" || !app.state;
  $("invite").hidden = !inLobby && app.role === "player" && table.status === "playing";
  $("lobby").hidden = !inLobby;
  $("game").hidden = inLobby;
  if (inLobby) renderLobby();
  else renderGame();
}

/** The table's rules and timing, so that whoever opens the link knows the game. */
function renderLobbyOptions(options) {
  const on = (flag) => (flag ? "✓" : "✗");
  const ladder = t(options.bomb_ladder === "size" ? "ladder_size" : "ladder_listed");
  const items = [
    [t("decks"), String(options.decks)],
    [t("rule_hooking"), on(options.hooking)],
    [t("rule_tribute"), on(options.tribute)],
    [t("bomb_ladder"), ladder],
    [t("turn_timer"), `${options.turn_seconds} s`],
    [t("hook_windows"), `${t(options.hook_mode === "fast" ? "windows_fast" : "windows_fair")} · ${options.hook_seconds} s`],
    [t("bot_level"), t(`bot_${options.bot}`)],
  ];
  $("lobby-options").replaceChildren(
    ...items.map(([label, value]) => {
      const item = document.createElement("li");
      const name = document.createElement("span");
      name.textContent = `${label}: `;
      const strong = document.createElement("strong");
      strong.textContent = value;
      item.append(name, strong);
      return item;
    }),
  );
}

function renderLobby() {
  const table = app.table;
  renderLobbyOptions(table.options);
  const list = $("lobby-seats");
  list.replaceChildren();
  const seated = app.role === "player";
  const canJoin = !seated && !app.watching && table.status === "lobby";
  for (const seat of table.seats) {
    const item = document.createElement("li");
    item.className = `lobby-seat team-${seat.team}`;
    item.dataset.testid = `lobby-seat-${seat.seat}`;
    if (seated && seat.seat === app.seat) item.classList.add("mine");
    const dot = document.createElement("span");
    dot.className = "team-dot";
    dot.textContent = seat.team === 0 ? "A" : "B";
    dot.title = teamName(seat.team);
    item.append(dot);
    const name = document.createElement("span");
    name.className = "seat-name";
    if (seat.kind === "empty") {
      name.innerHTML = `<span class="seat-empty"></span>`;
      name.firstChild.textContent = t("seat_empty", { n: seat.seat + 1 });
    } else if (seat.kind === "bot") {
      name.textContent = t("bot_name", { n: seat.seat + 1 });
      const tag = document.createElement("span");
      tag.className = "bot-tag";
      tag.textContent = t(`bot_${table.options.bot}`);
      name.append(" ", tag);
    } else {
      name.textContent = seat.name + (seat.online ? "" : ` (${t("offline")})`);
      if (seat.seat === table.host_seat) name.textContent += ` · ${t("host")}`;
    }
    item.append(name);
    if (canJoin && seat.kind !== "human") {
      const sit = document.createElement("button");
      sit.type = "button";
      sit.className = "btn btn-small btn-primary";
      sit.textContent = t("take_seat");
      sit.dataset.testid = `take-seat-${seat.seat}`;
      sit.addEventListener("click", () => takeSeat(seat.seat));
      item.append(sit);
    }
    list.append(item);
  }
  $("lobby-name-row").hidden = !canJoin;
  if (canJoin && !$("lobby-name").value) $("lobby-name").value = storage.name();
  $("watch").hidden = !canJoin;
  const host = app.host && seated;
  const anyEmpty = table.seats.some((seat) => seat.kind === "empty");
  $("fill-bots").hidden = !host;
  $("fill-bots").disabled = !anyEmpty;
  $("start").hidden = !host;
  $("start").disabled = anyEmpty;
  let note = "";
  if (host) note = anyEmpty ? t("lobby_note_host_empty") : t("lobby_note_host_ready");
  else if (seated) note = t("lobby_note_wait_host");
  else if (app.watching) note = t("lobby_note_watching");
  else note = t("lobby_note_pick");
  $("lobby-note").textContent = note;
}

async function takeSeat(seat) {
  const name = $("lobby-name").value.trim();
  if (!name) {
    $("lobby-name").focus();
    toast(t("need_name"), { error: true });
    return;
  }
  storage.setName(name);
  try {
    const joined = await api.join(app.code, name, seat);
    storage.setSeat(app.code, joined.seat, joined.token);
    app.table = joined.table;
    app.conn.reopenAs(joined.token);
  } catch (error) {
    showError(error);
  }
}

function renderGame() {
  const state = renderState();
  const view = state.view;
  // Facts for scripts and tests that drive the page (and for styling).
  const game = $("game");
  game.dataset.decision = decision() || "";
  game.dataset.prompt = app.you && app.you.decision ? String(app.you.prompt_v) : "";
  game.dataset.turn = view.turn ?? "";
  game.dataset.topSeat = view.top_seat ?? "";
  game.dataset.round = view.round_number ?? "";
  game.dataset.window = view.window ? view.window.kind : "";
  if (app.results.length) {
    state.onShowResults = () => {
      const last = app.results[app.results.length - 1];
      const previous = app.results.length >= 2 ? app.results[app.results.length - 2].levels_after : ["2", "2"];
      showResults(last, previous);
    };
  }
  renderScoreboard($("scoreboard"), state);
  renderRing($("ring"), state);
  renderCenter($("center"), state);
  renderTribute($("tribute-panel"), state);
  renderLog($("log"), state);
  renderHand();
  renderStatus();
  renderOffer();
  if (view.match_over && $("results").hidden && !app.resultShown && app.results.length) {
    const last = app.results[app.results.length - 1];
    const previous = app.results.length >= 2 ? app.results[app.results.length - 2].levels_after : ["2", "2"];
    showResults(last, previous);
  }
  renderResultButtons();
}

// ------------------------------------------------------------------ own hand and actions

function clearSelection() {
  app.selection = new Set();
  app.hints = { prompt: null, moves: [], index: -1 };
}

function selectedMove() {
  const hand = app.you ? app.you.hand : "";
  return canonicalMove([...app.selection].map((index) => hand[index]));
}

function decision() {
  return app.you && app.you.decision ? app.you.decision : null;
}

function renderHand() {
  const handBox = $("hand");
  const you = app.you;
  const isPlayer = app.role === "player" && you;
  $("actions").hidden = !isPlayer;
  if (!isPlayer) {
    const note = document.createElement("div");
    note.className = "hand-empty";
    note.textContent = t("watching_note");
    handBox.replaceChildren(note);
    return;
  }
  const hand = you.hand;
  if (hand !== app.selectionHand) {
    clearSelection();
    app.selectionHand = hand;
  }
  if (!hand.length) {
    const note = document.createElement("div");
    note.className = "hand-empty";
    note.textContent = t("hand_empty");
    handBox.replaceChildren(note);
  } else {
    layoutHand(handBox, hand);
  }
  updateActionButtons();
}

/** Cards in rows that fit the width, overlapping just enough to keep a finger-wide strip. */
function layoutHand(handBox, hand) {
  const width = handBox.clientWidth || 320;
  const sample = cardElement("2", { size: "hand" });
  sample.style.visibility = "hidden";
  handBox.append(sample);
  const cardWidth = sample.getBoundingClientRect().width || 52;
  sample.remove();
  const minStrip = Math.max(28, Math.round(cardWidth * 0.5));
  const perRow = Math.max(1, Math.floor((width - cardWidth) / minStrip) + 1);
  const rows = Math.ceil(hand.length / perRow);
  const inRow = Math.ceil(hand.length / rows);
  const level = app.state ? app.state.level : null;
  const rowsOut = [];
  for (let start = 0; start < hand.length; start += inRow) {
    const row = document.createElement("div");
    row.className = "hand-row";
    const count = Math.min(inRow, hand.length - start);
    const strip = count > 1 ? Math.min(cardWidth + 4, (width - cardWidth) / (count - 1)) : cardWidth;
    for (let index = start; index < start + count; index += 1) {
      const card = cardElement(hand[index], { size: "hand", level, button: true });
      card.dataset.index = String(index);
      card.dataset.testid = "hand-card";
      if (index > start) card.style.marginLeft = `${strip - cardWidth}px`;
      if (app.selection.has(index)) card.classList.add("selected");
      card.setAttribute("aria-pressed", app.selection.has(index) ? "true" : "false");
      card.addEventListener("click", () => toggleCard(index));
      row.append(card);
    }
    rowsOut.push(row);
  }
  handBox.replaceChildren(...rowsOut);
}

function toggleCard(index) {
  if (decision() === "return") {
    app.selection = app.selection.has(index) ? new Set() : new Set([index]);
  } else if (app.selection.has(index)) {
    app.selection.delete(index);
  } else {
    app.selection.add(index);
  }
  for (const card of $("hand").querySelectorAll(".card")) {
    const selected = app.selection.has(Number(card.dataset.index));
    card.classList.toggle("selected", selected);
    card.setAttribute("aria-pressed", selected ? "true" : "false");
  }
  updateActionButtons();
}

function updateActionButtons() {
  const you = app.you;
  const current = decision();
  const legal = you ? you.legal_moves || [] : [];
  const move = selectedMove();
  const playButton = $("btn-play");
  const busy = app.sending;
  if (current === "return") {
    playButton.textContent = t("give_back");
    playButton.disabled = busy || app.selection.size !== 1 || !legal.includes(move);
  } else {
    playButton.textContent = t("play");
    playButton.disabled = busy || current !== "play" || !move || move === "pass" || !legal.includes(move);
  }
  $("btn-pass").disabled = busy || current !== "play" || !legal.includes("pass");
  $("btn-hint").disabled = busy || (current !== "play" && current !== "return");
  $("btn-clear").disabled = app.selection.size === 0;
  playButton.dataset.move = move;
}

async function sendMove(move) {
  if (app.sending || !app.conn) return;
  app.sending = true;
  updateActionButtons();
  try {
    await app.conn.request({ type: "move", move, v: app.conn.version });
    if (move !== "pass") clearSelection();
  } catch (error) {
    showError(error);
  } finally {
    app.sending = false;
    if (!$("game").hidden) renderHand();
  }
}

function playSelected() {
  const move = selectedMove();
  if (!move) return;
  sendMove(move);
}

async function hint() {
  const you = app.you;
  if (!you || !you.decision) return;
  const hand = you.hand;
  const selectMove = (move) => {
    const indexes = indexesForMove(hand, move);
    if (!indexes) return false;
    app.selection = new Set(indexes);
    renderHand();
    return true;
  };
  // Pressing Hint again walks through the other legal moves, weakest first.
  if (app.hints.prompt === you.prompt_v && app.hints.moves.length) {
    app.hints.index = (app.hints.index + 1) % app.hints.moves.length;
    selectMove(app.hints.moves[app.hints.index]);
    return;
  }
  const ordered = hintOrder(you.legal_moves || [], app.state.order);
  let first = ordered[0];
  try {
    const answer = await app.conn.request({ type: "hint" });
    if (answer.move) first = answer.move;
  } catch {
    // The server's hint is a nicety: without it the client's ordering still helps.
  }
  if (first === "pass") {
    clearSelection();
    renderHand();
    toast(t("hint_pass"));
    app.hints = { prompt: you.prompt_v, moves: ordered, index: -1 };
    $("game").dataset.hinted = String(you.prompt_v);
    return;
  }
  const canonical = first ? canonicalMove([...first]) : null;
  const moves = canonical ? [canonical, ...ordered.filter((m) => m !== canonical)] : ordered;
  app.hints = { prompt: you.prompt_v, moves, index: 0 };
  if (moves.length) selectMove(moves[0]);
  $("game").dataset.hinted = String(you.prompt_v);
}

// ------------------------------------------------------------------ status line, timers

function secondsLeft(deadline) {
  if (!deadline) return null;
  return Math.max(0, Math.ceil((deadline - serverNow()) / 1000));
}

function pendingReturn() {
  const tributes = app.state ? app.state.tributes || [] : [];
  return tributes.find((entry) => entry.to === app.seat && !entry.returned);
}

function renderStatus() {
  const line = $("status-line");
  const state = app.state;
  const rs = renderState();
  line.classList.remove("my-turn");
  line.replaceChildren();
  let text = "";
  let deadline = null;
  const current = decision();
  if (state.match_over) {
    text = t("match_won", { team: teamName(state.match_winner) });
  } else if (current === "play") {
    text = state.top ? t("your_turn_beat", { move: moveLabel(state.top) }) : t("your_turn_lead");
    deadline = app.you.deadline;
    line.classList.add("my-turn");
  } else if (current === "return") {
    const entry = pendingReturn();
    const payer = entry ? seatName(rs, entry.from) : "";
    text = t("your_turn_return", { name: payer });
    deadline = app.you.deadline;
    line.classList.add("my-turn");
  } else if (state.window) {
    text = t(state.window.kind === "hook" ? "window_hook" : "window_unhook", {
      move: moveLabel(state.window.claimed),
      name: seatName(rs, state.window.claimed_seat),
    });
    deadline = state.window.closes_at;
  } else if (state.turn !== null && state.turn !== undefined) {
    text = t("waiting_for", { name: seatName(rs, state.turn) });
    deadline = state.deadline;
  }
  line.append(document.createTextNode(text));
  if (deadline) {
    const pill = document.createElement("span");
    pill.className = "timer-pill";
    pill.dataset.deadline = String(deadline);
    pill.dataset.testid = "timer";
    pill.textContent = `${secondsLeft(deadline)}s`;
    line.append(pill);
  }
  if (state.match_over && app.table.status === "finished") {
    const replay = document.createElement("button");
    replay.type = "button";
    replay.className = "btn btn-small";
    replay.textContent = t("replay_open");
    replay.dataset.testid = "status-replay";
    replay.addEventListener("click", showReplay);
    line.append(" ", replay);
    if (app.host && app.role === "player") {
      const again = document.createElement("button");
      again.type = "button";
      again.className = "btn btn-small btn-primary";
      again.textContent = t("play_again");
      again.dataset.testid = "status-play-again";
      again.addEventListener("click", playAgain);
      line.append(" ", again);
    }
  } else if (app.you && app.you.away) {
    const back = document.createElement("button");
    back.type = "button";
    back.className = "btn btn-small btn-warn";
    back.textContent = t("im_back");
    back.dataset.testid = "im-back";
    back.addEventListener("click", () => app.conn.request({ type: "back" }).catch(showError));
    line.append(document.createTextNode(` ${t("away_note")} `), back);
  }
}

function tick() {
  for (const pill of document.querySelectorAll(".timer-pill")) {
    pill.textContent = `${secondsLeft(Number(pill.dataset.deadline))}s`;
  }
  const bar = $("offer-bar");
  if (!$("offer").hidden && bar.dataset.deadline) {
    const total = Number(bar.dataset.total) || 1;
    const left = Math.max(0, Number(bar.dataset.deadline) - serverNow());
    bar.style.transform = `scaleX(${Math.min(1, left / total)})`;
  }
}

// ------------------------------------------------------------------ hook offers

function renderOffer() {
  const you = app.you;
  const current = decision();
  const open =
    app.role === "player" &&
    (current === "hook" || current === "unhook") &&
    app.answeredPrompt !== you.prompt_v;
  $("offer").hidden = !open;
  if (!open) return;
  const claim = you.legal_moves.find((move) => move !== "pass");
  const claimWindow = app.state.window;
  const rs = renderState();
  const who = claimWindow ? seatName(rs, claimWindow.claimed_seat) : "";
  $("offer-title").textContent = t(current === "hook" ? "offer_hook" : "offer_unhook", {
    name: who,
    rank: moveLabel(claim[0]),
  });
  const cards = $("offer-cards");
  cards.replaceChildren(...[...claim].map((rank) => cardElement(rank, { size: "hand", level: app.state.level })));
  const accept = $("offer-accept");
  accept.textContent = t(current === "hook" ? "hook" : "unhook");
  accept.dataset.move = claim;
  const bar = $("offer-bar");
  bar.dataset.deadline = String(you.deadline || 0);
  bar.dataset.total = String((app.table.options.hook_seconds || 3) * 1000);
  tick();
}

async function answerOffer(accept) {
  const you = app.you;
  if (!you) return;
  const move = accept ? $("offer-accept").dataset.move : "pass";
  app.answeredPrompt = you.prompt_v;
  $("offer").hidden = true;
  try {
    await app.conn.request({ type: "move", move, v: app.conn.version });
    if (accept) toast(t("claim_sent"));
  } catch (error) {
    showError(error);
  }
}

// ------------------------------------------------------------------ results and replays

function showResults(result, previousLevels) {
  app.resultShown = { result, previousLevels };
  const state = renderState();
  const over = Boolean(app.state && app.state.match_over) && result === app.results[app.results.length - 1];
  $("results-title").textContent = over
    ? t("match_over_title")
    : t("round_over_title", { n: result.round_number || app.results.length });
  renderResults($("results-body"), state, result, previousLevels);
  $("results").hidden = false;
  renderResultButtons();
}

function renderResultButtons() {
  const finished = app.table && app.table.status === "finished";
  $("results-again").hidden = !(finished && app.host && app.role === "player");
  $("results-replay").hidden = !finished;
}

async function playAgain() {
  try {
    await app.conn.request({ type: "play_again" });
    $("results").hidden = true;
    app.resultShown = null;
  } catch (error) {
    showError(error);
  }
}

async function showReplay() {
  try {
    const list = await api.replays(app.code);
    if (!list.matches.length) {
      toast(t("no_replays"));
      return;
    }
    const picker = $("replay-match");
    picker.replaceChildren(
      ...list.matches.map((entry) => {
        const option = document.createElement("option");
        option.value = String(entry.match);
        option.textContent = t("replay_match", {
          n: entry.match,
          team: teamName(entry.winning_team),
          rounds: entry.rounds,
        });
        return option;
      }),
    );
    picker.hidden = list.matches.length < 2;
    const open = async (match) => {
      const replay = await api.replay(app.code, match);
      picker.value = String(match);
      $("results").hidden = true;
      showScreen("screen-replay");
      openReplay(replay, () => showScreen("screen-table"));
    };
    picker.onchange = () => open(Number(picker.value)).catch(showError);
    await open(list.matches[list.matches.length - 1].match);
  } catch (error) {
    showError(error);
  }
}

// ------------------------------------------------------------------ wiring

function copyLink() {
  const input = $("invite-link");
  const done = () => toast(t("link_copied"));
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(done, () => {
      input.select();
      document.execCommand("copy");
      done();
    });
  } else {
    input.select();
    document.execCommand("copy");
    done();
  }
}

function fillLanguages() {
  const select = $("lang-select");
  for (const [code, name] of Object.entries(i18n.LANGUAGES)) {
    const option = document.createElement("option");
    option.value = code;
    option.textContent = name;
    select.append(option);
  }
  select.value = i18n.language();
  select.addEventListener("change", () => i18n.setLanguage(select.value));
}

function route() {
  const code = tableCodeFromPath();
  if (code) enterTable(code);
  else {
    if (app.conn) app.conn.close();
    showHome();
  }
}

async function main() {
  await i18n.setLanguage(i18n.preferredLanguage(), { remember: false });
  fillLanguages();
  i18n.onLanguageChange(() => {
    $("lang-select").value = i18n.language();
    render();
    rerenderReplay();
    if (app.resultShown && !$("results").hidden) showResults(app.resultShown.result, app.resultShown.previousLevels);
  });
  $("create-form").addEventListener("submit", createTable);
  $("join-form").addEventListener("submit", joinByCode);
  $("name-form").addEventListener("submit", (event) => event.preventDefault());
  $("copy-link").addEventListener("click", copyLink);
  $("watch").addEventListener("click", () => {
    app.watching = true;
    render();
  });
  $("fill-bots").addEventListener("click", () => app.conn.request({ type: "fill_bots" }).catch(showError));
  $("start").addEventListener("click", () => app.conn.request({ type: "start" }).catch(showError));
  $("btn-play").addEventListener("click", playSelected);
  $("btn-pass").addEventListener("click", () => sendMove("pass"));
  $("btn-hint").addEventListener("click", hint);
  $("btn-clear").addEventListener("click", () => {
    clearSelection();
    renderHand();
  });
  $("offer-accept").addEventListener("click", () => answerOffer(true));
  $("offer-decline").addEventListener("click", () => answerOffer(false));
  $("results-close").addEventListener("click", () => {
    $("results").hidden = true;
  });
  $("results-again").addEventListener("click", playAgain);
  $("results-replay").addEventListener("click", showReplay);
  window.addEventListener("popstate", route);
  window.addEventListener("resize", () => {
    if (!$("game").hidden) renderHand();
  });
  document.addEventListener("keydown", (event) => {
    if ($("game").hidden || event.target.closest("input, select, textarea")) return;
    if (event.key === "Enter" && !$("btn-play").disabled) playSelected();
    else if (event.key === "Escape") {
      clearSelection();
      renderHand();
    }
  });
  setInterval(tick, 250);
  api.config().then(applyConfig, () => {});
  route();
  document.body.dataset.ready = "true";
}

main();
