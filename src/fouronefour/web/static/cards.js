// Cards: rank notation, canonical moves, and card elements (CSS-only faces).
//
// The engine writes a move as its ranks in face order (2..A, then B, R), e.g. "44A",
// "BR", "345"; a hand comes lowest first in the round's order. Suits never matter to
// a rule, so a card shows its rank only; jokers get their own face.

import { t } from "./i18n.js";

export const FACE_ORDER = "23456789TJQKABR";

/** Canonical text of a set of ranks: sorted in face order ("A44" -> "44A"). */
export function canonicalMove(ranks) {
  return [...ranks].sort((a, b) => FACE_ORDER.indexOf(a) - FACE_ORDER.indexOf(b)).join("");
}

/** How a rank is printed on a card: T reads 10. */
export function rankLabel(rank) {
  return rank === "T" ? "10" : rank;
}

/** A move written for people: "TTJ" -> "10 10 J", "pass" stays a word for the caller. */
export function moveLabel(move) {
  return [...move].map(rankLabel).join(" ");
}

/**
 * The cards to select in `hand` (a rank string) to play `move`: indexes into the hand,
 * or null when the hand cannot make it. Prefers the leftmost copies of each rank.
 */
export function indexesForMove(hand, move) {
  const taken = new Set();
  for (const rank of move) {
    let found = -1;
    for (let i = 0; i < hand.length; i += 1) {
      if (hand[i] === rank && !taken.has(i)) {
        found = i;
        break;
      }
    }
    if (found < 0) return null;
    taken.add(found);
  }
  return [...taken].sort((a, b) => a - b);
}

/**
 * A card element. `options.level` marks the round's level card; `options.size` is one of
 * "hand", "table", "mini". Jokers: B (black) and R (red) show a joker face.
 */
export function cardElement(rank, options = {}) {
  const card = document.createElement(options.button ? "button" : "div");
  card.className = `card card-${options.size || "table"}`;
  card.dataset.rank = rank;
  if (options.button) card.type = "button";
  if (rank === "B" || rank === "R") {
    card.classList.add("joker", rank === "R" ? "joker-red" : "joker-black");
    card.innerHTML =
      '<span class="corner">★</span><span class="joker-word">JOKER</span>' +
      '<span class="pip">★</span>';
    card.setAttribute("aria-label", t(rank === "R" ? "joker_red" : "joker_black"));
  } else {
    const label = rankLabel(rank);
    card.innerHTML =
      `<span class="corner">${label}</span><span class="pip">${label}</span>` +
      `<span class="corner corner-bottom">${label}</span>`;
    card.setAttribute("aria-label", label);
    // Alternate ink by rank so neighbouring ranks are easy to tell apart at a glance.
    if ("3579JA".includes(rank)) card.classList.add("ink-red");
  }
  if (options.level && rank === options.level) card.classList.add("level-card");
  return card;
}

/** A row of small cards for a move (or an empty placeholder for pass/none). */
export function moveElement(move, options = {}) {
  const row = document.createElement("div");
  row.className = "move";
  for (const rank of move) row.append(cardElement(rank, { size: options.size || "table", level: options.level }));
  return row;
}
