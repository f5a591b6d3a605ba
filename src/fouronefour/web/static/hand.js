// The own hand and its buttons: select cards, Play, Pass, Clear, Hint.
//
// Play is enabled only when the selection, written canonically, is one of the decision's
// legal moves (the server checks again). The selection is this page's own: it is dropped
// when the hand changes.
//
// Choosing on a phone: once cards are selected on the player's turn, a strip just above the
// hand offers the legal moves that contain them (the private state's `legal_moves`): one
// more tap selects a whole straight, double dragon or bomb. Tapping cards keeps selecting by
// hand. The hand is sorted by rank (the server's order) or by combination (singles, pairs,
// then the bombs together), as the player chose; with a keyboard, each button shows its key.

import { t } from "./i18n.js";
import { canonicalMove, cardElement, indexesForMove, moveElement, moveLabel } from "./cards.js";
import { hintOrder, isBomb, moveKind } from "./moves.js";
import { $, button, el } from "./dom.js";
import { decisionOf } from "./state.js";
import { request, session } from "./session.js";
import { showError, toast } from "./toast.js";

const SORT_KEY = "414.sort";

const ui = {
  selection: new Set(), // indexes into you.hand
  selectionHand: "",
  hints: { prompt: null, moves: [], index: -1 },
  sending: false,
  typed: [], // indexes chosen by typing, the latest last (Backspace drops it)
  sort: localStorage.getItem(SORT_KEY) === "combo" ? "combo" : "rank",
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
  document.querySelector(".hand-keys-section").hidden = !isPlayer;
  if (!isPlayer) {
    $("hand-moves").hidden = true;
    const note = document.createElement("div");
    note.className = "hand-empty";
    note.dataset.testid = "watching-note";
    note.textContent = t("watching_note");
    // Someone who opens the invite link on a new device mid-match lands here, not at their
    // seat: say so, and how to get it back (a seat link from the old device or the host).
    const help = el("span", "spectator-help", t("spectator_seat_help", { handoff: t("handoff_mine") }));
    help.dataset.testid = "spectator-help";
    note.append(help);
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
    const order = ui.sort === "combo" ? comboOrder(you.hand) : null;
    layoutHand(handBox, you.hand, { level, selection: ui.selection, onToggle: toggleCard, order });
  }
  updateActionButtons();
}

/**
 * Cards in rows that fit the width, overlapping just enough to keep a finger-wide strip.
 * `selection` holds the indexes shown raised; a tap calls `onToggle(index)`; `order` (the
 * indexes in the order shown) defaults to the hand's own. (The lessons, lesson.js, lay out
 * their hand with it too.)
 */
export function layoutHand(handBox, cards, { level = null, selection = new Set(), onToggle = () => {}, order = null } = {}) {
  const shown = order || [...cards].map((_, index) => index);
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
    for (let place = start; place < start + count; place += 1) {
      const index = shown[place];
      const card = cardElement(cards[index], { size: "hand", level, button: true });
      card.dataset.index = String(index);
      card.dataset.testid = "hand-card";
      if (place > start) card.style.marginLeft = `${strip - cardWidth}px`;
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

/**
 * The hand by combination: singles, then pairs, then the bombs together (n of a kind,
 * 4 4 A when the two 4s are no bomb of their own, the jokers when two or more), each
 * group in the round's order. Indexes into `cards` (lowest first in the round's order).
 */
export function comboOrder(cards) {
  const byRank = new Map();
  [...cards].forEach((rank, index) => {
    if (!byRank.has(rank)) byRank.set(rank, []);
    byRank.get(rank).push(index);
  });
  const singles = [];
  const pairs = [];
  const bombs = [];
  const jokers = [...(byRank.get("B") || []), ...(byRank.get("R") || [])];
  const fours = byRank.get("4") || [];
  const aces = byRank.get("A") || [];
  const fourFourAce = fours.length === 2 && aces.length > 0;
  for (const [rank, indexes] of byRank) {
    if (rank === "B" || rank === "R") continue;
    if (fourFourAce && rank === "4") continue;
    const own = fourFourAce && rank === "A" ? indexes.slice(0, -1) : indexes;
    if (own.length >= 3) bombs.push(...own);
    else if (own.length === 2) pairs.push(...own);
    else singles.push(...own);
  }
  if (fourFourAce) bombs.push(...fours, aces[aces.length - 1]);
  if (jokers.length >= 2) bombs.push(...jokers);
  else singles.push(...jokers);
  return [...singles, ...pairs, ...bombs];
}

/**
 * The legal moves that hold every selected card (as ranks), the selection itself left out:
 * long combinations first, the bombs last.
 */
function candidateMoves() {
  const state = session.state;
  if (decisionOf(state) !== "play" || !ui.selection.size) return [];
  const chosen = selectedMove();
  const need = countRanks(chosen);
  const moves = (state.you.legal_moves || []).filter((move) => {
    if (move === "pass" || move === chosen) return false;
    const have = countRanks(move);
    return [...need].every(([rank, n]) => (have.get(rank) || 0) >= n);
  });
  const order = state.state ? state.state.order : "";
  const power = new Map(hintOrder(moves, order).map((move, i) => [move, i]));
  return moves.sort((a, b) => {
    const bombA = isBomb(a) ? 1 : 0;
    const bombB = isBomb(b) ? 1 : 0;
    return bombA - bombB || (bombA ? 0 : b.length - a.length) || power.get(a) - power.get(b);
  });
}

function countRanks(move) {
  const counts = new Map();
  for (const rank of move) counts.set(rank, (counts.get(rank) || 0) + 1);
  return counts;
}

/** Select `move`, keeping the cards already selected that belong to it. */
function chooseMove(move) {
  const cards = hand();
  const need = countRanks(move);
  const picked = [];
  for (const index of ui.selection) {
    const rank = cards[index];
    if ((need.get(rank) || 0) > 0) {
      need.set(rank, need.get(rank) - 1);
      picked.push(index);
    }
  }
  const rest = [...need].flatMap(([rank, n]) => Array(n).fill(rank)).join("");
  // The leftmost other cards of the ranks still needed (the picked ones blanked out).
  const others = indexesForMove([...cards].map((rank, index) => (picked.includes(index) ? "" : rank)), rest);
  if (!others) return;
  ui.selection = new Set([...picked, ...others]);
  ui.typed = [];
  paintSelection();
  $("btn-play").focus({ preventScroll: true }); // (the strip is drawn anew: Play is next)
}

/** The strip of candidate moves, shown while it has some; the sort switch's state. */
function renderTools() {
  const strip = $("hand-moves");
  const moves = candidateMoves();
  strip.hidden = !moves.length;
  $("hand-sort").setAttribute("aria-pressed", String(ui.sort === "combo"));
  if (!moves.length) {
    strip.replaceChildren();
    return;
  }
  placeStrip(strip);
  const level = session.state.state ? session.state.state.level : null;
  strip.replaceChildren(
    ...moves.map((move) => {
      const kind = t(`kind_${moveKind(move)}`);
      const choice = button("move-choice", undefined, "move-choice");
      choice.dataset.move = move;
      choice.setAttribute("aria-label", `${kind} ${moveLabel(move)}`);
      choice.append(el("span", "move-choice-kind", kind), moveElement(move, { size: "mini", level }));
      choice.addEventListener("click", () => chooseMove(move));
      return choice;
    }),
  );
}

/**
 * The strip lies over the foot of the felt, just above the status line: the turn, its
 * timer and (on a short window) the sort switch over the line's right end stay in view.
 */
function placeStrip(strip) {
  const line = $("status-line").getBoundingClientRect();
  const lift = line.height ? $("hand-area").getBoundingClientRect().top - line.top : 0;
  strip.style.bottom = `calc(100% + ${Math.max(0, Math.round(lift))}px)`;
}

/**
 * What the hand gains, built once and kept out of the layout's flow (nothing on screen
 * moves for them): the strip of moves, a popover over the foot of the table; the sort
 * switch, a small button in the row of buttons; the keys, a badge on each button and a
 * section of the side panel (both only where there is a keyboard: style.css).
 */
function buildTools() {
  const strip = el("div", "hand-moves");
  strip.id = "hand-moves";
  strip.dataset.testid = "hand-moves";
  strip.setAttribute("role", "group");
  strip.hidden = true;
  $("hand").before(strip);
  const sorter = button("btn sort-btn", undefined, "sort");
  sorter.id = "hand-sort";
  sorter.append(el("span", "sort-icon", "⇅"), el("span", "sort-word"));
  sorter.firstChild.setAttribute("aria-hidden", "true");
  sorter.addEventListener("click", () => {
    ui.sort = ui.sort === "combo" ? "rank" : "combo";
    localStorage.setItem(SORT_KEY, ui.sort);
    renderHand();
  });
  $("actions").prepend(sorter);
  const keys = { "btn-hint": "H", "btn-clear": "Esc", "btn-pass": "P", "btn-play": "Enter" };
  for (const [id, key] of Object.entries(keys)) $(id).dataset.key = key;
  const section = el("section", "side-section hand-keys-section");
  section.dataset.testid = "hand-keys";
  section.append(el("h3", "hand-keys-title"), el("p", "hand-keys"));
  $("side").querySelector(".rules-sheet").before(section);
  translateTools();
}

function translateTools() {
  const sorter = $("hand-sort");
  // A toggle: pressed, the hand is sorted by combination; else by rank.
  sorter.querySelector(".sort-word").textContent = t("sort_combo");
  sorter.setAttribute("aria-label", t("sort_combo_label"));
  sorter.title = t("sort_combo_label");
  $("hand-moves").setAttribute("aria-label", t("moves_with_card"));
  document.querySelector(".hand-keys-title").textContent = t("keys_title");
  document.querySelector(".hand-keys").textContent = t("keys_line");
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
  translateTools();
  renderTools();
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
  buildTools();
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
    const rank = rankOfKey(key, event.code);
    if (rank && session.state.you) selectRank(rank.toUpperCase(), event.shiftKey);
  }
}

/**
 * The rank a key types. With Shift a digit key sends its shifted sign ("$" for Shift+4 on
 * a US keyboard, "§" on a German one), so a digit is also read from the key's position.
 */
function rankOfKey(key, code) {
  if (/^[2-9]$/.test(key)) return key;
  if (RANK_KEYS[key]) return RANK_KEYS[key];
  const digit = /^(?:Digit|Numpad)([02-9])$/.exec(code || "");
  return digit ? (digit[1] === "0" ? "T" : digit[1]) : null;
}

function selectRank(rank, takeBack) {
  const cards = hand();
  if (takeBack) {
    for (let i = cards.length - 1; i >= 0; i -= 1) {
      if (cards[i] === rank && ui.selection.has(i)) {
        ui.selection.delete(i);
        ui.typed = ui.typed.filter((typed) => typed !== i); // Backspace drops the one before
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
