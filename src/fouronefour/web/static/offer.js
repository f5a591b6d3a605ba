// Hook and unhook offers: the claim, a countdown until the window closes, Hook or Decline.

import { t } from "./i18n.js";
import { cardElement, moveLabel } from "./cards.js";
import { $ } from "./dom.js";
import { decisionOf, tableView } from "./state.js";
import { request, serverNow, session } from "./session.js";
import { seatName } from "./table.js";
import { showError, toast } from "./toast.js";

let answeredPrompt = null; // prompt_v of a claim window already answered

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
  if (!open) return;
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
  tickOffer();
}

export function tickOffer() {
  const bar = $("offer-bar");
  if (!$("offer").hidden && bar.dataset.deadline) {
    const total = Number(bar.dataset.total) || 1;
    const left = Math.max(0, Number(bar.dataset.deadline) - serverNow());
    bar.style.transform = `scaleX(${Math.min(1, left / total)})`;
  }
}

async function answerOffer(accept) {
  const you = session.state.you;
  if (!you) return;
  const move = accept ? $("offer-accept").dataset.move : "pass";
  answeredPrompt = you.prompt_v;
  $("offer").hidden = true;
  $("actions").classList.remove("offered");
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
}
