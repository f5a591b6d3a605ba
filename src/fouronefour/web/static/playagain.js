// Play again at a new table (docs/quickmatch.md): when a match is over the host offers the
// same players a new table, with the same or rotated partners; each player accepts or
// declines in the results dialog; who accepted goes to the new table once it is made
// (declined seats get a waiting friend of theirs, or bots). Every call carries this page's
// seat token in its body.

import { t } from "./i18n.js";
import { ApiError } from "./net.js";
import { $, el } from "./dom.js";
import { session } from "./session.js";
import { eventGoal } from "./state.js";
import { storage } from "./storage.js";
import { showError } from "./toast.js";

const POLL_MS = 1500;

let enterTable = null; // (code) => void, from app.js
let showResults = () => {}; // opens the match's results dialog again (results.js), from app.js
let watching = null; // the code of the table whose offer this page follows
let timer = null;
let busy = false;
let current = null; // the offer as last seen

/** While an offer is on, the host's Play again at this same table (results.js) is not:
 * the players are answering about a new one. */
function hideSameTable() {
  if (current && current.state !== "failed") $("results-again").hidden = true;
}

async function call(code, path, body) {
  const response = await fetch(`/api/tables/${encodeURIComponent(code)}/again${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(error.code || `http_${response.status}`, error.message || response.statusText);
  }
  return data;
}

function myToken(code) {
  const saved = storage.seat(code);
  return saved ? saved.token : null;
}

function hostName() {
  const table = session.state.table;
  const seat = table && table.seats[table.host_seat];
  return seat && seat.name ? seat.name : "";
}

function render(offer) {
  current = offer;
  hideSameTable();
  const isHost = Boolean(session.state.host);
  $("again-host").hidden = !(isHost && (!offer || offer.state === "failed"));
  $("again-panel").hidden = !offer && !isHost;
  const people = $("again-people");
  const status = $("again-status");
  if (!offer) {
    status.textContent = "";
    people.replaceChildren();
    $("again-answer").hidden = true;
    return;
  }
  const mine = offer.people.find((person) => person.seat === offer.seat);
  people.replaceChildren(
    ...offer.people.map((person) => {
      const item = el("li", `again-person again-${person.answer}`);
      const said = person.replaced_by === "friend" ? "again_answer_friend" : `again_answer_${person.answer}`;
      item.append(el("span", "again-name", person.name), el("span", "again-said", t(said)));
      return item;
    }),
  );
  $("again-answer").hidden = !(offer.state === "open" && mine && mine.answer === "waiting");
  const offered = t(offer.rotate ? "again_offered_rotated" : "again_offered", { name: hostName() });
  if (offer.state === "open") status.textContent = `${offered} ${t("again_left", { n: Math.ceil(offer.left_ms / 1000) })}`;
  else if (offer.state === "making") status.textContent = t("again_making");
  else if (offer.state === "made") status.textContent = t("again_made");
  else status.textContent = t("again_failed");
}

/** Go to the new table with the seat it gave this page. */
function sit(seat) {
  stop();
  storage.setSeat(seat.code, seat.seat, seat.token);
  if (seat.invite) storage.setInvite(seat.code, seat.invite);
  history.pushState(null, "", `/t/${seat.code}`);
  enterTable(seat.code);
}

function settle(code, offer) {
  if (watching !== code) return;
  if (offer && offer.state === "made" && offer.table) {
    sit(offer.table);
    return;
  }
  render(offer);
  // An offer waiting for this player's answer is shown even if the dialog was closed.
  const mine = offer && offer.people.find((person) => person.seat === offer.seat);
  if (offer && offer.state === "open" && mine && mine.answer === "waiting" && $("results").hidden) {
    showResults();
  }
  const over = offer && (offer.state === "made" || offer.state === "failed");
  if (!over) timer = setTimeout(() => look(code), POLL_MS);
}

async function look(code) {
  timer = null;
  const token = myToken(code);
  if (watching !== code) return;
  if (session.state.code !== code || !token) {
    stop(); // (this page left the table)
    return;
  }
  try {
    const answer = await call(code, "/view", { token });
    settle(code, answer.offer);
  } catch {
    if (watching === code) timer = setTimeout(() => look(code), POLL_MS * 3);
  }
}

async function act(path, body) {
  const code = watching;
  const token = code && myToken(code);
  if (!token || busy) return;
  busy = true;
  try {
    const answer = await call(code, path, { token, ...body });
    clearTimeout(timer);
    settle(code, answer.offer);
  } catch (error) {
    showError(error);
  } finally {
    busy = false;
  }
}

function stop() {
  watching = null;
  current = null;
  clearTimeout(timer);
  timer = null;
  $("again-panel").hidden = true;
}

/** The results dialog shows the offer while a match is over at a table where this page
 * holds a seat; called whenever its buttons are drawn (results.js). */
export function watchAgain() {
  const state = session.state;
  const code = state.code;
  const finished = state.table && state.table.status === "finished" && state.role === "player";
  // (an event's table is decided, not played again: the event makes the next round's tables)
  if (!finished || !code || !myToken(code) || eventGoal(state)) {
    if (watching) stop();
    return;
  }
  if (watching === code) {
    hideSameTable();
    return;
  }
  stop();
  watching = code;
  render(null);
  look(code);
}

export function initPlayAgain(enter, reopenResults) {
  enterTable = enter;
  showResults = reopenResults;
  $("again-offer").addEventListener("click", () => act("", { rotate: $("again-rotate").checked }));
  $("again-accept").addEventListener("click", () => act("/answer", { accept: true }));
  $("again-decline").addEventListener("click", () => act("/answer", { accept: false }));
}
