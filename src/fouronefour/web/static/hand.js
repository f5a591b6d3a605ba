// The own hand and its buttons: select cards, Play, Pass, Clear, Hint.
//
// Play is enabled only when the selection, written canonically, is one of the decision's
// legal moves (the server checks again). The selection is this page's own: it is dropped
// when the hand changes.

import { t } from "./i18n.js";
import { canonicalMove, cardElement, indexesForMove } from "./cards.js";
import { hintOrder } from "./moves.js";
import { $ } from "./dom.js";
import { decisionOf } from "./state.js";
import { request, session } from "./session.js";
import { showError, toast } from "./toast.js";

const ui = {
  selection: new Set(), // indexes into you.hand
  selectionHand: "",
  hints: { prompt: null, moves: [], index: -1 },
  sending: false,
  typed: [], // indexes chosen by typing, the latest last (Backspace drops it)
};

export function resetHand() {
  clearSelection();
  ui.selectionHand = "";
  ui.sending = false;
}

export function clearSelection() {
  ui.selection = new Set();
  ui.typed = [];
  ui.hints = { prompt: null, moves: [], index: -1 };
}

function hand() {
  return session.state.you ? session.state.you.hand : "";
}

export function selectedMove() {
  const cards = hand();
  return canonicalMove([...ui.selection].map((index) => cards[index]));
}

export function renderHand() {
  const state = session.state;
  const handBox = $("hand");
  const you = state.you;
  const isPlayer = state.role === "player" && you;
  $("actions").hidden = !isPlayer;
  if (!isPlayer) {
    const note = document.createElement("div");
    note.className = "hand-empty";
    note.textContent = t("watching_note");
    handBox.replaceChildren(note);
    return;
  }
  if (you.hand !== ui.selectionHand) {
    clearSelection();
    ui.selectionHand = you.hand;
  }
  if (!you.hand.length) {
    const note = document.createElement("div");
    note.className = "hand-empty";
    note.textContent = t("hand_empty");
    handBox.replaceChildren(note);
  } else {
    const level = state.state ? state.state.level : null;
    layoutHand(handBox, you.hand, { level, selection: ui.selection, onToggle: toggleCard });
  }
  updateActionButtons();
}

/**
 * Cards in rows that fit the width, overlapping just enough to keep a finger-wide strip.
 * `selection` holds the indexes shown raised; a tap calls `onToggle(index)`. (The lessons,
 * lesson.js, lay out their hand with it too.)
 */
export function layoutHand(handBox, cards, { level = null, selection = new Set(), onToggle = () => {} } = {}) {
  const width = handBox.clientWidth || 320;
  const sample = cardElement("2", { size: "hand" });
  sample.style.visibility = "hidden";
  handBox.append(sample);
  const cardWidth = sample.getBoundingClientRect().width || 52;
  sample.remove();
  const minStrip = Math.max(28, Math.round(cardWidth * 0.5));
  const perRow = Math.max(1, Math.floor((width - cardWidth) / minStrip) + 1);
  const rows = Math.ceil(cards.length / perRow);
  const inRow = Math.ceil(cards.length / rows);
  const rowsOut = [];
  for (let start = 0; start < cards.length; start += inRow) {
    const row = document.createElement("div");
    row.className = "hand-row";
    const count = Math.min(inRow, cards.length - start);
    const strip = count > 1 ? Math.min(cardWidth + 4, (width - cardWidth) / (count - 1)) : cardWidth;
    for (let index = start; index < start + count; index += 1) {
      const card = cardElement(cards[index], { size: "hand", level, button: true });
      card.dataset.index = String(index);
      card.dataset.testid = "hand-card";
      if (index > start) card.style.marginLeft = `${strip - cardWidth}px`;
      if (selection.has(index)) card.classList.add("selected");
      card.setAttribute("aria-pressed", selection.has(index) ? "true" : "false");
      card.addEventListener("click", () => onToggle(index));
      row.append(card);
    }
    rowsOut.push(row);
  }
  handBox.replaceChildren(...rowsOut);
}

function paintSelection() {
  for (const card of $("hand").querySelectorAll(".card")) {
    const selected = ui.selection.has(Number(card.dataset.index));
    card.classList.toggle("selected", selected);
    card.setAttribute("aria-pressed", selected ? "true" : "false");
  }
  updateActionButtons();
}

function toggleCard(index) {
  if (decisionOf(session.state) === "return") {
    ui.selection = ui.selection.has(index) ? new Set() : new Set([index]);
  } else if (ui.selection.has(index)) {
    ui.selection.delete(index);
  } else {
    ui.selection.add(index);
  }
  paintSelection();
}

export function updateActionButtons() {
  const state = session.state;
  const you = state.you;
  const current = decisionOf(state);
  const legal = you ? you.legal_moves || [] : [];
  const move = selectedMove();
  const playButton = $("btn-play");
  const busy = ui.sending;
  if (current === "return") {
    playButton.textContent = t("give_back");
    playButton.disabled = busy || ui.selection.size !== 1 || !legal.includes(move);
  } else {
    playButton.textContent = t("play");
    playButton.disabled = busy || current !== "play" || !move || move === "pass" || !legal.includes(move);
  }
  $("btn-pass").disabled = busy || current !== "play" || !legal.includes("pass");
  $("btn-hint").disabled = busy || (current !== "play" && current !== "return");
  $("btn-clear").disabled = ui.selection.size === 0;
  playButton.dataset.move = move;
}

async function sendMove(move) {
  if (ui.sending || !session.conn) return;
  ui.sending = true;
  updateActionButtons();
  try {
    await request({ type: "move", move, v: session.conn.version });
    if (move !== "pass") clearSelection();
  } catch (error) {
    showError(error);
  } finally {
    ui.sending = false;
    if (!$("game").hidden) renderHand();
  }
}

function playSelected() {
  const move = selectedMove();
  if (!move) return;
  sendMove(move);
}

async function hint() {
  const state = session.state;
  const you = state.you;
  if (!you || !you.decision) return;
  const cards = you.hand;
  const selectMove = (move) => {
    const indexes = indexesForMove(cards, move);
    if (!indexes) return false;
    ui.selection = new Set(indexes);
    renderHand();
    return true;
  };
  // Pressing Hint again walks through the other legal moves, weakest first.
  if (ui.hints.prompt === you.prompt_v && ui.hints.moves.length) {
    ui.hints.index = (ui.hints.index + 1) % ui.hints.moves.length;
    selectMove(ui.hints.moves[ui.hints.index]);
    return;
  }
  const ordered = hintOrder(you.legal_moves || [], state.state.order);
  let first = ordered[0];
  try {
    const answer = await request({ type: "hint" });
    if (answer.move) first = answer.move;
  } catch {
    // The server's hint is a nicety: without it the client's ordering still helps.
  }
  if (first === "pass") {
    clearSelection();
    renderHand();
    toast("hint_pass");
    ui.hints = { prompt: you.prompt_v, moves: ordered, index: -1 };
    $("game").dataset.hinted = String(you.prompt_v);
    return;
  }
  const canonical = first ? canonicalMove([...first]) : null;
  const moves = canonical ? [canonical, ...ordered.filter((m) => m !== canonical)] : ordered;
  ui.hints = { prompt: you.prompt_v, moves, index: 0 };
  if (moves.length) selectMove(moves[0]);
  $("game").dataset.hinted = String(you.prompt_v);
}

export function initHand() {
  $("btn-play").addEventListener("click", playSelected);
  $("btn-pass").addEventListener("click", () => sendMove("pass"));
  $("btn-hint").addEventListener("click", hint);
  $("btn-clear").addEventListener("click", () => {
    clearSelection();
    renderHand();
  });
  window.addEventListener("resize", () => {
    if (!$("game").hidden) renderHand();
  });
  document.addEventListener("keydown", onKey);
}

/** Keys a rank is typed with: 2-9, 0 or T for 10, J Q K A, B and R for the jokers. */
const RANK_KEYS = { 0: "T", t: "T", j: "J", q: "Q", k: "K", a: "A", b: "B", r: "R" };

/**
 * Play from the keyboard: typing a rank selects the next card of that rank (Shift takes
 * one back), Enter plays, P passes, H asks for a hint, Backspace drops the last card
 * chosen, Escape clears.
 */
function onKey(event) {
  if ($("game").hidden || event.target.closest("input, select, textarea, [role=dialog]")) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key.toLowerCase();
  if (event.key === "Enter") {
    // Enter on another button is that button's; on a card (or nowhere) it plays.
    if (event.target.closest("button") && !event.target.closest("#hand")) return;
    if (!$("btn-play").disabled) {
      event.preventDefault();
      playSelected();
    }
  } else if (event.key === "Escape") {
    clearSelection();
    renderHand();
  } else if (key === "p" && !$("btn-pass").disabled) {
    sendMove("pass");
  } else if (key === "h" && !$("btn-hint").disabled) {
    hint();
  } else if (event.key === "Backspace" && ui.typed.length) {
    ui.selection.delete(ui.typed.pop());
    paintSelection();
  } else {
    const rank = /^[2-9]$/.test(key) ? key : RANK_KEYS[key];
    if (rank && session.state.you) selectRank(rank.toUpperCase(), event.shiftKey);
  }
}

function selectRank(rank, takeBack) {
  const cards = hand();
  if (takeBack) {
    for (let i = cards.length - 1; i >= 0; i -= 1) {
      if (cards[i] === rank && ui.selection.has(i)) {
        ui.selection.delete(i);
        break;
      }
    }
  } else {
    const index = [...cards].findIndex((card, i) => card === rank && !ui.selection.has(i));
    if (index < 0) return;
    if (decisionOf(session.state) === "return") ui.selection = new Set();
    ui.selection.add(index);
    ui.typed.push(index);
  }
  paintSelection();
}
