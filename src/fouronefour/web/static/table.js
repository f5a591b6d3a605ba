// Rendering a table from the server's state: seats around the felt, the move on top,
// levels, tribute, the log. Pure DOM writing; the caller owns the state.

import { t } from "./i18n.js";
import { moveElement, moveLabel } from "./cards.js";
import { isBomb, moveKind } from "./moves.js";
import { groupTricks, seatActions, trickMoves } from "./round.js";

/** A seat's display name: its player's name, "Bot n" (translated) for bots, or "Seat n". */
export function seatName(state, seat) {
  const info = state.seats[seat];
  if (info && (info.bot || info.kind === "bot")) return t("bot_name", { n: seat + 1 });
  if (info && info.name) return info.name;
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
    chip.append(el("span", "team-long", teamName(team)));
    chip.append(el("span", "team-short", team === 0 ? "A" : "B"));
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
  round.setAttribute("aria-label", `${t("round_n", { n: view.round_number || 1 })} · ${t("level")} ${view.level === "T" ? "10" : view.level}`);
  const levelBadge = el("strong", "level-badge", view.level === "T" ? "10" : view.level);
  levelBadge.dataset.testid = "round-level";
  round.append(levelBadge);
  root.append(round);
  const order = el("div", "order-line", t("order_line", { order: [...view.order].map((r) => (r === "T" ? "10" : r)).join(" ") }));
  order.dataset.testid = "order";
  root.append(order);
}

/**
 * Seats around the felt, the viewer's own seat (or seat 0 for spectators) at the bottom and
 * the others clockwise from it, as around a real table. The boxes are placed in pixels on
 * a rounded rectangle inside the felt, so none is cut by its edge; if boxes would overlap,
 * or leave no room for the move on top, smaller ones are tried (compact, tiny, one line).
 */
export function renderRing(root, state) {
  const view = state.view;
  const players = view.players;
  const bottom = state.mySeat ?? 0;
  const finished = view.finished || [];
  const actions = seatActions(view);
  const boxes = [];
  for (let seat = 0; seat < players; seat += 1) {
    const info = state.seats[seat] || {};
    const box = el("div", `seat team-${seat % 2}`);
    const prefix = state.testPrefix || "";
    box.dataset.testid = `${prefix}seat-${seat}`;
    box.dataset.seat = String(seat);
    box.dataset.offset = String((seat - bottom + players) % players);
    box.setAttribute("role", "group");
    const labels = [seatName(state, seat), teamName(seat % 2), `${view.counts[seat]} ${t("cards_left")}`];
    if (seat === state.mySeat) box.classList.add("me");
    if (view.turn === seat && !view.is_over) {
      box.classList.add("turn");
      labels.push(t("their_turn"));
    }
    const offline = info.connected === false && !info.bot;
    if (offline) box.classList.add("offline");
    const name = el("div", "seat-name", seatName(state, seat));
    name.title = name.textContent;
    box.append(name);
    const meta = el("div", "seat-meta");
    if (seat === state.mySeat) meta.append(el("span", "status-tag you-tag", t("you")));
    meta.append(el("span", "seat-team", teamName(seat % 2)));
    const count = el("span", "seat-count", String(view.counts[seat]));
    count.dataset.testid = `${prefix}count-${seat}`;
    count.title = t("cards_left");
    meta.append(count);
    const place = finished.indexOf(seat);
    if (place >= 0) {
      const placeTag = el("span", "place", ordinal(place + 1));
      placeTag.dataset.testid = `${prefix}place-${seat}`;
      meta.append(placeTag);
      labels.push(ordinal(place + 1));
    }
    if (info.bot) {
      // A long level name is cut to the box (style.css); pointing at it shows it whole.
      const tag = el("span", "bot-tag", t(`bot_${info.bot}`));
      tag.title = tag.textContent;
      meta.append(tag);
    }
    if (info.away) {
      const tag = el("span", "status-tag away-tag", t("away_short"));
      tag.title = tag.textContent; // (a small box may cut it)
      meta.append(tag);
      labels.push(t("away_short"));
    }
    if (offline) {
      const tag = el("span", "status-tag offline-tag", t("offline"));
      tag.title = tag.textContent;
      tag.dataset.testid = `offline-${seat}`;
      meta.append(tag);
      labels.push(t("offline"));
    }
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
      labels.push(last.textContent);
      // Tiny boxes (many seats on a small felt) keep two lines: the action joins the count.
      const brief = el("span", action.type === "pass" ? "meta-move passed" : "meta-move", last.textContent);
      brief.setAttribute("aria-hidden", "true");
      meta.append(brief);
    }
    box.append(last);
    box.setAttribute("aria-label", labels.join(", "));
    boxes.push(box);
  }
  root.replaceChildren(...boxes);
  layoutRing(root);
}

/** Place the seat boxes (see renderRing); called again when the felt changes size. */
export function layoutRing(root) {
  const boxes = [...root.children];
  const players = boxes.length;
  const width = root.clientWidth;
  const height = root.clientHeight;
  if (!players || !width || !height) return;
  const margin = 6;
  const gap = 4;
  // Last, boxes of one line (name, count, action): wider, but half as tall; on a felt more
  // than twice as wide as tall (a phone held sideways), or when no other size fits.
  const sizes = ["", "ring-compact", "ring-tiny", "ring-line"];
  const wide = width > 2 * height;
  const place = (size) => {
    root.classList.remove("ring-compact", "ring-tiny", "ring-line");
    if (size) root.classList.add(size);
    const boxW = Math.max(...boxes.map((box) => box.offsetWidth)) + gap;
    const boxH = Math.max(...boxes.map((box) => box.offsetHeight)) + gap;
    const halfX = Math.max(0, (width / 2 - boxW / 2 - margin) / boxW);
    const halfY = Math.max(0, (height / 2 - boxH / 2 - margin) / boxH);
    const path = seatPath(halfX, halfY);
    const step = path.length / players;
    for (const box of boxes) {
      const [x, y] = path.at(Number(box.dataset.offset) * step);
      box.style.left = `${Math.round(width / 2 + x * boxW - box.offsetWidth / 2)}px`;
      box.style.top = `${Math.round(height / 2 + y * boxH - box.offsetHeight / 2)}px`;
    }
    // The centre (the move on top) keeps clear of the side columns of boxes.
    root.parentElement?.style.setProperty("--ring-box-w", `${boxW + margin}px`);
    // Neighbours one unit apart, and the rows facing each other too.
    return step >= 1 && 2 * halfX >= 1 && 2 * halfY >= 1;
  };
  // The biggest boxes that fit and still leave a free part of the felt that holds a move
  // on top with its caption whole (many seats on a short felt: smaller boxes, rather than
  // the move squeezed into a corner); failing that, the size that lets it be biggest.
  const center = root.parentElement?.querySelector(".center");
  const need = centreRoom(root, center);
  let best = null; // {size, scale} of the fitting size whose free part holds the most
  let placed = null;
  for (const size of sizes) {
    if (size === "ring-line" && best && !wide) break;
    placed = size;
    if (!place(size)) continue;
    const part = bestPart(root, need);
    const scale = part ? part.scale : 0;
    if (!best || scale > best.scale + 0.01) best = { size, scale };
    if (scale >= 0.95) break;
  }
  if (best && best.size !== placed) place(best.size);
  if (center) fitCenter(center, root);
}

/**
 * The room the centre asks for: at least a typical move on top (two table cards under a
 * caption), or what it holds now, unwrapped (as fitCenter measures it).
 */
function centreRoom(ring, center) {
  const sample = document.createElement("div");
  sample.className = "card card-table";
  sample.style.visibility = "hidden";
  ring.append(sample);
  const card = { width: sample.offsetWidth || 30, height: sample.offsetHeight || 42 };
  sample.remove();
  const need = { width: card.width * 2, height: card.height + 18 };
  if (!center || !center.childElementCount) return need;
  const saved = [center.style.maxWidth, center.style.left, center.style.transform];
  center.style.transform = "none";
  center.style.left = "0px";
  center.style.maxWidth = "none";
  need.width = Math.max(need.width, center.offsetWidth);
  need.height = Math.max(need.height, center.offsetHeight);
  [center.style.maxWidth, center.style.left, center.style.transform] = saved;
  return need;
}

/**
 * Place the centre (the move on top, who leads, the hook window) in the free part of the
 * felt that lets it be biggest, nearest the middle: on a short felt (a phone held
 * sideways) the boxes above and below the middle leave it little height there, but room
 * on either side. Scaled down only if no free part holds it whole.
 */
export function fitCenter(center, ring) {
  const width = ring.clientWidth;
  const height = ring.clientHeight;
  center.style.left = "";
  center.style.top = "";
  center.style.maxWidth = "";
  center.style.transform = "";
  if (!center.childElementCount || !width || !height) return;
  // Its size unwrapped (the moves side by side, the words on a line), from the felt's edge.
  center.style.maxWidth = "none";
  center.style.left = "0px";
  const natural = { width: center.offsetWidth, height: center.offsetHeight };
  const best = bestPart(ring, natural);
  if (!best) return;
  const fits = (rect, size) => Math.min(1, rect.width / size.width, rect.height / size.height);
  const { rect } = best;
  // Words wrap to the part's width (before scaling); then the whole is scaled to fit.
  center.style.maxWidth = `${Math.floor(rect.width / best.scale)}px`;
  const scale = fits(rect, { width: center.offsetWidth, height: center.offsetHeight });
  center.style.left = `${rect.left + rect.width / 2}px`;
  center.style.top = `${rect.top + rect.height / 2}px`;
  center.style.transform = scale < 1 ? `translate(-50%, -50%) scale(${scale.toFixed(3)})` : "";
}

/**
 * The free part of the felt (no seat box crosses it) that lets something of `natural`
 * size be biggest, nearest the middle: {rect, scale}, or null for an empty felt.
 */
function bestPart(ring, natural) {
  const width = ring.clientWidth;
  const height = ring.clientHeight;
  const pad = 4;
  const boxes = [...ring.children].map((box) => ({
    left: box.offsetLeft - pad,
    top: box.offsetTop - pad,
    right: box.offsetLeft + box.offsetWidth + pad,
    bottom: box.offsetTop + box.offsetHeight + pad,
  }));
  const edges = (low, high, start, end) =>
    [...new Set([start, end, ...boxes.flatMap((box) => [box[low], box[high]])])]
      .filter((edge) => edge >= start && edge <= end)
      .sort((a, b) => a - b);
  const xs = edges("left", "right", pad, width - pad);
  const ys = edges("top", "bottom", pad, height - pad);
  const fits = (rect, size) => Math.min(1, rect.width / size.width, rect.height / size.height);
  let best = null;
  // Every rectangle between edges that no box crosses (a dozen boxes: a few thousand).
  for (let i = 0; i < xs.length; i += 1) {
    for (let j = i + 1; j < xs.length; j += 1) {
      const across = boxes.filter((box) => box.left < xs[j] && box.right > xs[i]);
      for (let k = 0; k < ys.length; k += 1) {
        for (let m = k + 1; m < ys.length; m += 1) {
          if (across.some((box) => box.top < ys[m] && box.bottom > ys[k])) break;
          const rect = { left: xs[i], top: ys[k], width: xs[j] - xs[i], height: ys[m] - ys[k] };
          const scale = fits(rect, natural);
          const off = Math.hypot(rect.left + rect.width / 2 - width / 2, rect.top + rect.height / 2 - height / 2);
          if (!best || scale > best.scale + 0.01 || (scale > best.scale - 0.01 && off < best.off)) {
            best = { rect, scale, off };
          }
        }
      }
    }
  }
  return best;
}

/**
 * The path the seat centres follow, in units of one box (its width across, its height
 * down): a rectangle of half-extents (x, y) with its corners cut at 45 degrees. Along an
 * edge one unit is one box; around a cut corner both coordinates change together; so
 * seats one unit apart or more never overlap. It starts at the bottom centre and runs
 * clockwise on screen (to the left first), as play goes around a real table.
 */
function seatPath(x, y) {
  const cut = Math.min(1, x, y);
  const points = [
    [0, y],
    [-(x - cut), y],
    [-x, y - cut],
    [-x, -(y - cut)],
    [-(x - cut), -y],
    [x - cut, -y],
    [x, -(y - cut)],
    [x, y - cut],
    [x - cut, y],
    [0, y],
  ];
  const lengths = [];
  for (let i = 1; i < points.length; i += 1) {
    const [ax, ay] = points[i - 1];
    const [bx, by] = points[i];
    lengths.push(Math.max(Math.abs(bx - ax), Math.abs(by - ay)));
  }
  return {
    length: lengths.reduce((sum, part) => sum + part, 0),
    at(distance) {
      let left = distance;
      for (let i = 0; i < lengths.length; i += 1) {
        if (left <= lengths[i] || i === lengths.length - 1) {
          const share = lengths[i] ? Math.min(1, left / lengths[i]) : 0;
          const [ax, ay] = points[i];
          const [bx, by] = points[i + 1];
          return [ax + (bx - ax) * share, ay + (by - ay) * share];
        }
        left -= lengths[i];
      }
      return points[0];
    },
  };
}

/**
 * The move to beat and who played it, with the move it beat beside it (dimmed); a bomb is
 * marked. Or who leads, or whose tribute return is awaited; a hook chain when one runs.
 */
export function renderCenter(root, state) {
  const view = state.view;
  root.replaceChildren();
  if (view.top) {
    const moves = trickMoves(currentTrick(view));
    const previous = moves.length >= 2 ? moves[moves.length - 2] : null;
    const who = seatName(state, view.top_seat);
    root.append(el("div", "top-label", t("top_by", { name: who })));
    const row = el("div", "moves");
    if (previous && previous.move !== view.top) {
      const before = moveElement(previous.move, { size: "table", level: view.level });
      before.classList.add("previous-move");
      before.dataset.testid = `${state.testPrefix || ""}previous-move`;
      before.title = t("beaten_move", { name: seatName(state, previous.seat), move: moveLabel(previous.move) });
      row.append(before);
    }
    const move = moveElement(view.top, { size: "table", level: view.level });
    move.dataset.testid = `${state.testPrefix || ""}top-move`;
    move.dataset.move = view.top;
    move.setAttribute("role", "img");
    move.setAttribute("aria-label", t("top_by", { name: who }) + " " + moveLabel(view.top));
    if (isBomb(view.top)) move.classList.add("bomb");
    row.append(move);
    root.append(row);
    if (isBomb(view.top)) root.append(el("div", "bomb-label", t(view.top === "44A" ? "bomb_414" : "kind_bomb")));
  } else if ((view.tributes || []).some((entry) => !entry.returned)) {
    const entry = view.tributes.find((item) => !item.returned);
    root.append(el("div", "top-label", t("tribute_waiting", { name: seatName(state, entry.to) })));
  } else if (!view.is_over && view.turn !== null && view.turn !== undefined) {
    root.append(el("div", "top-label", t("leads", { name: seatName(state, view.turn) })));
  }
  if (view.window) {
    // An unhook window follows a hook: say who hooked the rank with which pair (during the
    // window nobody's move is on top, so this is the only place it shows).
    const label = el("div", "chain-label", t(view.window.kind === "hook" ? "window_open_hook" : "window_open_unhook", {
      rank: moveLabel(view.window.rank),
      pair: moveLabel(view.window.claimed),
      name: seatName(state, view.window.claimed_seat),
    }));
    label.dataset.testid = "window";
    root.append(label);
  }
  const ring = root.parentElement?.querySelector(".ring");
  if (ring) fitCenter(root, ring);
}

/** The trick being played (the last one, when it is still open). */
export function currentTrick(view) {
  const grouped = groupTricks(view.log, view.players);
  const last = grouped.tricks[grouped.tricks.length - 1];
  return last && !last.closed ? last : null;
}

/** Who paid which card to whom this round, and what came back. */
export function renderTribute(root, state) {
  const view = state.view;
  const tributes = view.tributes || [];
  root.hidden = tributes.length === 0;
  root.replaceChildren();
  if (!tributes.length) return;
  root.append(el("h3", "", t("tribute_title")));
  // The reader's own tribute (paid or received) first: on a phone the strip shows two lines.
  const mine = (entry) => entry.from === state.mySeat || entry.to === state.mySeat;
  const ordered = [...tributes.filter(mine), ...tributes.filter((entry) => !mine(entry))];
  for (const entry of ordered) {
    const row = el("div", "tribute-row");
    row.dataset.testid = "tribute-row";
    if (mine(entry)) {
      row.classList.add("mine");
      row.dataset.mine = "true";
    }
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

/** The round's public log grouped by trick (tribute first), the newest trick first. */
export function renderLog(root, state) {
  const view = state.view;
  const grouped = groupTricks(view.log, view.players);
  const groups = [];
  const group = (title, events) => {
    const item = el("li", "trick-group");
    item.append(el("div", "trick-title", title));
    const lines = el("ol");
    for (const event of events) {
      const line = el("li", "", describeEvent(state, event));
      line.dataset.type = event.type;
      line.dataset.seat = String(event.seat);
      lines.append(line);
    }
    item.append(lines);
    return item;
  };
  if (grouped.tribute.length) groups.push(group(t("tribute_title"), grouped.tribute));
  grouped.tricks.forEach((trick, index) => {
    groups.push(group(t("trick_n", { n: index + 1, name: seatName(state, trick.leader) }), trick.events));
  });
  groups.reverse();
  root.replaceChildren(...groups);
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
    const won = view.event_goal ? "event_table_decided" : "match_won";
    const banner = el("div", "winner-banner", t(won, { team: teamName(view.match_winner) }));
    banner.dataset.testid = "match-winner";
    root.append(banner);
  }
}
