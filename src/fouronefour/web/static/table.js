// Rendering a table from the server's state: seats around the felt, the move on top,
// levels, tribute, the log. Pure DOM writing; the caller owns the state.

import { t } from "./i18n.js";
import { moveElement, moveLabel } from "./cards.js";
import { moveKind, recentActions } from "./moves.js";

/** A seat's display name: its player's name, "Bot" for bots, or "Seat n" when empty. */
export function seatName(state, seat) {
  const info = state.seats[seat];
  if (info && info.name) return info.name;
  if (info && info.bot) return t("bot_name", { n: seat + 1 });
  return t("seat_n", { n: seat + 1 });
}

export function teamName(team) {
  return t(team === 0 ? "team_a" : "team_b");
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function ordinal(place) {
  return t("place_n", { n: place });
}

/** Team chips with their levels, the round's level card and number. */
export function renderScoreboard(root, state) {
  const view = state.view;
  root.replaceChildren();
  const levels = view.levels || [view.level, view.level];
  for (const team of [0, 1]) {
    const chip = el("div", `score-chip team-${team}`);
    chip.dataset.testid = `team-${team}`;
    chip.title = `${teamName(team)} · ${t("level")} ${levels[team]}`;
    chip.append(el("span", "", teamName(team)));
    chip.append(el("span", "score-word", t("level")));
    const badge = el("strong", "level-badge", levels[team] === "T" ? "10" : levels[team]);
    badge.dataset.testid = `team-${team}-level`;
    chip.append(badge);
    root.append(chip);
  }
  const round = el(state.onShowResults ? "button" : "div", "score-chip round-chip");
  if (state.onShowResults) {
    round.type = "button";
    round.title = t("last_results");
    round.dataset.testid = "last-results";
    round.addEventListener("click", state.onShowResults);
  }
  round.append(el("span", "", t("round_n", { n: view.round_number || 1 })));
  round.append(el("span", "score-word", t("plays_at")));
  const levelBadge = el("strong", "level-badge", view.level === "T" ? "10" : view.level);
  levelBadge.dataset.testid = "round-level";
  round.append(levelBadge);
  root.append(round);
  const order = el("div", "order-line", t("order_line", { order: [...view.order].map((r) => (r === "T" ? "10" : r)).join(" ") }));
  order.dataset.testid = "order";
  root.append(order);
}

/**
 * Seats around an ellipse, the viewer's own seat (or seat 0 for spectators) at the
 * bottom and the others clockwise from it, as around a real table.
 */
export function renderRing(root, state) {
  const view = state.view;
  const players = view.players;
  const bottom = state.mySeat ?? 0;
  const finished = view.finished || [];
  const actions = recentActions(view);
  root.replaceChildren();
  // Many seats on a narrow felt: smaller boxes that keep name, count, place and last move.
  root.classList.toggle("ring-compact", players >= 6 && root.clientWidth > 0 && root.clientWidth < 640);
  root.parentElement?.classList.toggle("felt-many", players >= 6);
  for (let seat = 0; seat < players; seat += 1) {
    const offset = (seat - bottom + players) % players;
    // Angle 90deg is the bottom; clockwise on screen goes to the left first.
    const angle = Math.PI / 2 + (offset * 2 * Math.PI) / players;
    const x = 50 + 38 * Math.cos(angle);
    const y = 50 + 36 * Math.sin(angle);
    const info = state.seats[seat] || {};
    const box = el("div", `seat team-${seat % 2}`);
    box.dataset.testid = `seat-${seat}`;
    box.dataset.seat = String(seat);
    box.style.left = `${x}%`;
    box.style.top = `${y}%`;
    if (seat === state.mySeat) box.classList.add("me");
    if (view.turn === seat && !view.is_over) box.classList.add("turn");
    if (info.connected === false && !info.bot) box.classList.add("offline");
    const name = el("div", "seat-name", seatName(state, seat));
    if (seat === state.mySeat) name.textContent += ` (${t("you")})`;
    box.append(name);
    const meta = el("div", "seat-meta");
    meta.append(el("span", "seat-team", teamName(seat % 2)));
    const count = el("span", "seat-count", String(view.counts[seat]));
    count.dataset.testid = `count-${seat}`;
    count.title = t("cards_left");
    meta.append(count);
    const place = finished.indexOf(seat);
    if (place >= 0) {
      const placeTag = el("span", "place", ordinal(place + 1));
      placeTag.dataset.testid = `place-${seat}`;
      meta.append(placeTag);
    }
    if (info.bot) meta.append(el("span", "bot-tag", t(`bot_${info.bot}`)));
    if (info.away) meta.append(el("span", "bot-tag away-tag", t("away_short")));
    box.append(meta);
    const action = actions.get(seat);
    const last = el("div", "last-move");
    if (action) {
      if (action.type === "pass") {
        last.textContent = t("passed");
        last.classList.add("passed");
      } else {
        const word = action.type === "play" ? "" : `${t(action.type + "_done")} `;
        last.textContent = word + moveLabel(action.move);
      }
    }
    box.append(last);
    root.append(box);
  }
}

/** The move to beat and who played it, or who leads; a hook chain when one runs. */
export function renderCenter(root, state) {
  const view = state.view;
  root.replaceChildren();
  if (view.top) {
    const who = seatName(state, view.top_seat);
    root.append(el("div", "top-label", t("top_by", { name: who })));
    const move = moveElement(view.top, { size: "table", level: view.level });
    move.dataset.testid = "top-move";
    move.dataset.move = view.top;
    root.append(move);
  } else if ((view.tributes || []).some((entry) => !entry.returned)) {
    const entry = view.tributes.find((item) => !item.returned);
    root.append(el("div", "top-label", t("tribute_waiting", { name: seatName(state, entry.to) })));
  } else if (!view.is_over && view.turn !== null && view.turn !== undefined) {
    root.append(el("div", "top-label", t("leads", { name: seatName(state, view.turn) })));
  }
  if (view.window) {
    const label = el("div", "chain-label", t(view.window.kind === "hook" ? "window_open_hook" : "window_open_unhook", { rank: moveLabel(view.window.rank) }));
    label.dataset.testid = "window";
    root.append(label);
  }
}

/** Who paid which card to whom this round, and what came back. */
export function renderTribute(root, state) {
  const view = state.view;
  const tributes = view.tributes || [];
  root.hidden = tributes.length === 0;
  root.replaceChildren();
  if (!tributes.length) return;
  root.append(el("h3", "", t("tribute_title")));
  for (const entry of tributes) {
    const row = el("div", "tribute-row");
    row.dataset.testid = "tribute-row";
    row.append(el("span", "", t("tribute_paid", { from: seatName(state, entry.from), to: seatName(state, entry.to) })));
    row.append(moveElement(entry.card, { size: "mini", level: view.level }));
    if (entry.returned) {
      row.append(el("span", "", t("tribute_returned")));
      row.append(moveElement(entry.returned, { size: "mini", level: view.level }));
    } else {
      row.append(el("span", "", t("tribute_waiting", { name: seatName(state, entry.to) })));
    }
    root.append(row);
  }
}

/** One public event as a sentence. */
export function describeEvent(state, event) {
  const name = seatName(state, event.seat);
  switch (event.type) {
    case "play":
      return t("log_play", { name, kind: t(`kind_${moveKind(event.move)}`), move: moveLabel(event.move) });
    case "hook":
      return t("log_hook", { name, move: moveLabel(event.move) });
    case "unhook":
      return t("log_unhook", { name, move: moveLabel(event.move) });
    case "pass":
      return t("log_pass", { name });
    case "finish":
      return t("log_finish", { name, place: ordinal(event.place) });
    case "tribute":
      return t("log_tribute", { name, to: seatName(state, event.to), card: moveLabel(event.card) });
    case "return":
      return t("log_return", { name, to: seatName(state, event.to), card: moveLabel(event.card) });
    default:
      return `${name}: ${event.type}`;
  }
}

/** The round's public log, newest first. */
export function renderLog(root, state) {
  const items = state.view.log.map((event) => {
    const item = el("li", "", describeEvent(state, event));
    item.dataset.type = event.type;
    item.dataset.seat = String(event.seat);
    return item;
  });
  items.reverse();
  root.replaceChildren(...items);
}

/** Round results and the match's end, for the results dialog. */
export function renderResults(root, state, result, previousLevels) {
  root.replaceChildren();
  const view = state.view;
  const table = el("table", "results-table");
  const head = el("tr");
  for (const key of ["result_place", "result_player", "result_team"]) head.append(el("th", "", t(key)));
  table.append(head);
  result.finished.forEach((seat, index) => {
    const row = el("tr");
    row.append(el("td", "", ordinal(index + 1)));
    row.append(el("td", "", seatName(state, seat)));
    row.append(el("td", "", teamName(seat % 2)));
    table.append(row);
  });
  for (const seat of result.caught) {
    const row = el("tr");
    row.append(el("td", "", t("caught")));
    row.append(el("td", "", seatName(state, seat)));
    row.append(el("td", "", teamName(seat % 2)));
    table.append(row);
  }
  root.append(table);
  const team = result.winning_team;
  const before = previousLevels[team];
  const after = result.levels_after[team];
  const gained = "23456789TJQKA".indexOf(after) - "23456789TJQKA".indexOf(before);
  const summary = el("p", "results-summary");
  summary.dataset.testid = "results-summary";
  const final = view.match_over && result === state.lastResult;
  summary.textContent = t(final ? "round_won_final" : gained > 0 ? "round_won" : "round_won_stay", {
    team: teamName(team),
    caught: result.caught.length,
    gained,
    from: before === "T" ? "10" : before,
    to: after === "T" ? "10" : after,
  });
  root.append(summary);
  if (view.match_over && view.match_winner !== null && view.match_winner !== undefined) {
    const banner = el("div", "winner-banner", t("match_won", { team: teamName(view.match_winner) }));
    banner.dataset.testid = "match-winner";
    root.append(banner);
  }
}
