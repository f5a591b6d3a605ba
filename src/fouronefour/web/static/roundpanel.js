// The round so far beside the table (a sheet on small screens): the last trick, the card
// counter (unless the host turned it off for the table) and the log grouped by trick.

import { t } from "./i18n.js";
import { moveElement, rankLabel } from "./cards.js";
import { $, el } from "./dom.js";
import { session } from "./session.js";
import { groupTricks, lastClosedTrick, RANK_ORDER, unseenCounts } from "./round.js";
import { describeEvent, renderLog } from "./table.js";

function renderLastTrick(root, view, grouped) {
  // At a round's end the server names its last trick (the round may end inside a trick).
  const end = session.state.state ? session.state.state.round_end : null;
  const trick = end ? { events: end.last_trick || [] } : lastClosedTrick(grouped);
  root.replaceChildren();
  if (!trick) {
    root.append(el("p", "hint-text", t("no_trick_yet")));
    return;
  }
  for (const event of trick.events) {
    const line = el("div", `trick-line${event.type === "pass" ? " passed" : ""}`);
    line.append(el("span", "", describeEvent(view, event)));
    if (event.move) line.append(moveElement(event.move, { size: "mini", level: view.view.level }));
    root.append(line);
  }
}

/** The card counter for the client's state (state.js): unseen cards by rank. */
export function renderCounter(root, state) {
  const decks = state.table.options.decks || 1;
  const hand = state.you ? state.you.hand : "";
  const mySeat = state.role === "player" ? state.seat : null;
  const level = state.state ? state.state.level : null;
  const unseen = unseenCounts(decks, hand, state.log, mySeat);
  root.setAttribute("role", "list");
  root.replaceChildren(
    ...[...RANK_ORDER].map((rank) => {
      const cell = el("div", "counter-cell");
      cell.dataset.rank = rank;
      if (!unseen[rank]) cell.classList.add("none");
      if (rank === level) cell.classList.add("level");
      const joker = rank === "B" || rank === "R";
      const face = el("span", rank === "R" ? "ink-red" : "", joker ? "★" : rankLabel(rank));
      cell.append(face, el("b", "", String(unseen[rank])));
      const name = rank === "B" ? t("joker_black") : rank === "R" ? t("joker_red") : rankLabel(rank);
      cell.setAttribute("aria-label", t("counter_cell", { rank: name, n: unseen[rank] }));
      cell.setAttribute("role", "listitem");
      return cell;
    }),
  );
}

/** Draw the panel from the table view (state.js `tableView`). */
export function renderRoundPanel(view) {
  const state = session.state;
  const grouped = groupTricks(view.view.log, view.view.players);
  renderLastTrick($("last-trick"), view, grouped);
  const counterOn = (state.table.settings || {}).card_counter !== false;
  $("counter-section").hidden = !counterOn;
  if (counterOn) renderCounter($("counter"), state);
  renderLog($("log"), view);
}

/** Open the panel (a sheet on small screens; always shown on wide ones). */
export function openSide() {
  setOpen(true);
}

function setOpen(open) {
  $("side").classList.toggle("open", open);
  $("open-side").setAttribute("aria-expanded", String(open));
  if (open) $("close-side").focus();
}

export function initRoundPanel() {
  $("open-side").addEventListener("click", () => setOpen(!$("side").classList.contains("open")));
  $("close-side").addEventListener("click", () => {
    setOpen(false);
    $("open-side").focus();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && $("side").classList.contains("open")) setOpen(false);
  });
}
