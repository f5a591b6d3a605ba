// The end of a round (protocol 3's STATE.round_end): the last trick stays on the table,
// the cards still held are shown face up, the results and the tribute to come are read,
// and each player presses Ready; the next round starts when every player is ready or at
// the table's time. No turn timer runs meanwhile.

import { t } from "./i18n.js";
import { moveElement, moveLabel } from "./cards.js";
import { $, el } from "./dom.js";
import { request, serverNow, session } from "./session.js";
import { renderResults, seatName } from "./table.js";
import { showError } from "./toast.js";

let sending = false;
let panelOpen = false; // the panel was shown at the last draw

/** Levels before the round that ended: the previous result's, else the match's start. */
function levelsBefore(state) {
  const results = state.results;
  return results.length >= 2 ? results[results.length - 2].levels_after : ["2", "2"];
}

/** Draw the round-end panel (hidden when no round is ending). */
export function renderRoundEnd(view) {
  const state = session.state;
  const end = state.state ? state.state.round_end : null;
  const panel = $("round-end");
  panel.hidden = !end;
  $("hand-area").hidden = Boolean(end);
  const opening = Boolean(end) && !panelOpen;
  panelOpen = Boolean(end);
  if (!end) return;
  $("round-end-title").textContent = t("round_over_title", { n: end.round_number });
  renderResults($("round-end-results"), view, end.result, levelsBefore(state));
  // Every hand still holding cards, face up: public once the round is over.
  const hands = $("round-end-hands");
  hands.replaceChildren();
  (end.hands || []).forEach((cards, seat) => {
    if (!cards) return;
    const row = el("div", "held-row");
    row.dataset.testid = `held-${seat}`;
    row.append(el("span", "who", t("still_held", { name: seatName(view, seat) })));
    const move = moveElement(cards, { size: "mini", level: end.result.level });
    move.setAttribute("role", "img");
    move.setAttribute("aria-label", moveLabel(cards));
    row.append(move);
    hands.append(row);
  });
  const tribute = (end.tributes || []).map((entry) =>
    t("tribute_to_come", { from: seatName(view, entry.from), to: seatName(view, entry.to) }),
  );
  $("round-end-tribute").textContent = tribute.join(" · ");
  $("round-end-tribute").hidden = !tribute.length;
  const waiting = state.table.seats
    .filter((seat) => seat.kind === "human" && !seat.away && !end.ready.includes(seat.seat))
    .map((seat) => (seat.seat === view.mySeat ? t("you") : seatName(view, seat.seat)));
  $("round-end-waiting").textContent = waiting.length ? t("ready_waiting", { names: waiting.join(", ") }) : "";
  const pill = $("round-end-timer");
  pill.hidden = !end.until;
  if (end.until) {
    pill.dataset.deadline = String(end.until);
    pill.textContent = `${Math.max(0, Math.ceil((end.until - serverNow()) / 1000))}s`;
  }
  const ready = $("ready");
  const isPlayer = state.role === "player";
  const done = isPlayer && end.ready.includes(state.seat);
  ready.hidden = !isPlayer;
  ready.disabled = done || sending || Boolean(state.state.paused);
  ready.textContent = t(done ? "ready_done" : "ready");
  // The hand and its buttons go with the round (the keyboard's focus with them): Ready takes
  // it, so Enter says it (not from a line being typed).
  const active = document.activeElement;
  // (not from the results dialog either: a modal keeps the keyboard while it is open)
  const typing = active && active.closest("input, textarea, select");
  if (opening && !ready.hidden && !ready.disabled && !typing && $("results").hidden) {
    ready.focus({ preventScroll: true });
  }
}

async function sendReady() {
  if (sending) return;
  sending = true;
  $("ready").disabled = true;
  try {
    await request({ type: "ready" });
  } catch (error) {
    showError(error);
  } finally {
    sending = false;
  }
}

export function initRoundEnd() {
  $("ready").addEventListener("click", sendReady);
}

