// Hook and unhook offers: the claim, a countdown until the window closes, Hook or Decline.
//
// A window lasts a few seconds, so the offer is answerable at once from the keyboard: it
// takes the focus when it opens (unless the player is typing in a field), its dialog is
// read out by screen readers, Enter sends the hook or unhook and P declines.

import { t } from "./i18n.js";
import { cardElement, moveLabel } from "./cards.js";
import { $ } from "./dom.js";
import { decisionOf, tableView } from "./state.js";
import { request, serverNow, session } from "./session.js";
import { seatName } from "./table.js";
import { showError, toast } from "./toast.js";

let answeredPrompt = null; // prompt_v of a claim window already answered
let shownPrompt = null; // prompt_v of the offer on screen (focused once, when it opens)
let focusBefore = null; // what had the focus before the offer took it

export function resetOffer() {
  answeredPrompt = null;
}

export function renderOffer() {
  const state = session.state;
  const you = state.you;
  const current = decisionOf(state);
  const open =
    state.role === "player" &&
    (current === "hook" || current === "unhook") &&
    answeredPrompt !== you.prompt_v;
  $("offer").hidden = !open;
  // The offer lies over the buttons (which keep their room: nothing on screen moves when
  // an offer comes and goes) until it is answered or its window closes.
  $("actions").classList.toggle("offered", open);
  if (!open) {
    closeOffer();
    return;
  }
  const claim = you.legal_moves.find((move) => move !== "pass");
  const claimWindow = state.state.window;
  const who = claimWindow ? seatName(tableView(state), claimWindow.claimed_seat) : "";
  // An unhook offer names who hooked and with what; a hook offer whose card it would take.
  $("offer-title").textContent = t(current === "hook" ? "offer_hook" : "offer_unhook", {
    name: who,
    rank: moveLabel(claim[0]),
    pair: claimWindow ? moveLabel(claimWindow.claimed) : "",
  });
  const cards = $("offer-cards");
  cards.replaceChildren(...[...claim].map((rank) => cardElement(rank, { size: "hand", level: state.state.level })));
  const accept = $("offer-accept");
  accept.textContent = t(current === "hook" ? "hook" : "unhook");
  accept.dataset.move = claim;
  const bar = $("offer-bar");
  bar.dataset.deadline = String(you.deadline || 0);
  bar.dataset.total = String((state.table.options.hook_seconds || 3) * 1000);
  $("offer-keys").textContent = t(current === "hook" ? "offer_keys_hook" : "offer_keys_unhook");
  tickOffer();
  if (shownPrompt !== you.prompt_v) {
    shownPrompt = you.prompt_v;
    // Focus on the dialog's button makes a screen reader read the dialog (its title and
    // the keys); a player typing a chat line keeps the focus where it is.
    const active = document.activeElement;
    if (!active || !active.closest("input, textarea, select, [contenteditable]")) {
      focusBefore = active && active !== document.body ? active : null;
      accept.focus();
    }
  }
}

/** The offer is gone: give the focus back if the offer had it. */
function closeOffer() {
  if (shownPrompt === null) return;
  shownPrompt = null;
  const back = focusBefore;
  focusBefore = null;
  if ($("offer").contains(document.activeElement) || document.activeElement === document.body) {
    if (back && back.isConnected && !back.disabled) back.focus();
    else document.activeElement?.blur?.();
  }
}

/** Whether an offer is on screen, waiting for its answer. */
export function offerOpen() {
  return !$("offer").hidden;
}

export function tickOffer() {
  const bar = $("offer-bar");
  if (!$("offer").hidden && bar.dataset.deadline) {
    const total = Number(bar.dataset.total) || 1;
    const left = Math.max(0, Number(bar.dataset.deadline) - serverNow());
    bar.style.transform = `scaleX(${Math.min(1, left / total)})`;
  }
}

export async function answerOffer(accept) {
  const you = session.state.you;
  if (!you || !offerOpen()) return;
  const move = accept ? $("offer-accept").dataset.move : "pass";
  answeredPrompt = you.prompt_v;
  $("offer").hidden = true;
  $("actions").classList.remove("offered");
  closeOffer();
  try {
    await request({ type: "move", move, v: session.conn.version });
    if (accept) toast("claim_sent");
  } catch (error) {
    showError(error);
  }
}

export function initOffer() {
  $("offer-accept").addEventListener("click", () => answerOffer(true));
  $("offer-decline").addEventListener("click", () => answerOffer(false));
  $("offer-accept").setAttribute("aria-keyshortcuts", "Enter");
  $("offer-decline").setAttribute("aria-keyshortcuts", "P");
  // The keys, said on the offer itself (and read with it: its description).
  const keys = document.createElement("p");
  keys.id = "offer-keys";
  keys.className = "offer-keys";
  keys.dataset.testid = "offer-keys";
  $("offer").append(keys);
  $("offer").setAttribute("aria-describedby", "offer-keys");
  document.addEventListener("keydown", onOfferKey);
}

/**
 * Enter hooks or unhooks (the claim is the one move offered: typing its cards first is
 * fine, whatever is selected), P declines. Enter on another button is that button's own.
 */
function onOfferKey(event) {
  if (!offerOpen() || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input, select, textarea, [role=dialog]")) return;
  if (event.key === "Enter") {
    if (event.target.closest("button") && !event.target.closest("#hand")) return;
    event.preventDefault();
    answerOffer(true);
  } else if (event.key.toLowerCase() === "p") {
    event.preventDefault();
    answerOffer(false);
  }
}
