// Round analysis (GET /api/tables/{code}/analysis, docs/protocol.md section 2; the method:
// docs/analysis.md): fetched once per round and kept, asked again as the server's hint says
// while the round is being analysed. Renders each team's chance to win the round, decision
// by decision (inline SVG, like the replay's level chart), and a decision's label with the
// better move, in words and in colour.

import { t } from "./i18n.js";
import { api } from "./net.js";
import { moveLabel } from "./cards.js";
import { el, button } from "./dom.js";
import { teamName } from "./table.js";

/** Labels worth a mark: the player lost something by the move. */
export const MARKED = new Set(["inaccuracy", "mistake", "blunder"]);
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 10000;
const SVG = "http://www.w3.org/2000/svg";

const loaded = new Map(); // "code/match/round/whose" -> {status, data, error}

/**
 * The analysis of a round as far as it is known: `{status: "loading" | "pending" | "ready"
 * | "none", data, error}`. Starts loading it the first time; `changed()` is called when the
 * status changes, and returns whether it is still wanted (if not, a pending round is not
 * asked for again until it is wanted again).
 */
export function roundAnalysis(code, match, round, token, changed) {
  const key = `${code}/${match}/${round}/${token ? "seat" : "all"}`;
  let entry = loaded.get(key);
  if (!entry || (entry.status === "pending" && !entry.asking)) {
    entry = entry || { status: "loading", data: null, error: null, asking: false };
    loaded.set(key, entry);
    ask(entry, code, match, round, token, changed);
  }
  return entry;
}

async function ask(entry, code, match, round, token, changed) {
  entry.asking = true;
  try {
    entry.data = await api.analysis(code, match, round, token);
    entry.status = "ready";
    entry.asking = false;
  } catch (error) {
    if (error.code === "analysis_pending") {
      entry.status = "pending";
      const wait = Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, error.retryAfterMs || RETRY_MIN_MS));
      if (changed()) {
        setTimeout(() => ask(entry, code, match, round, token, changed), wait);
        return;
      }
      entry.asking = false;
      return;
    }
    entry.status = "none";
    entry.error = error;
    entry.asking = false;
  }
  changed();
}

export function percent(chance) {
  return `${Math.round(chance * 100)}%`;
}

export function labelText(label) {
  return t(`analysis_label_${label}`);
}

/** A move as read: "Pass" for a pass or a declined offer, else its cards. */
export function moveText(move) {
  return move === "pass" ? t("pass") : moveLabel(move);
}

/** "Better: 4 4 (31% → 55% chance to win)". */
export function betterText(decision) {
  return t("analysis_better", {
    move: moveText(decision.best_move),
    played: percent(decision.played_win_chance),
    best: percent(decision.best_win_chance),
  });
}

/** A decision's label as a coloured chip with its name in words. */
export function labelChip(decision) {
  const chip = el("span", `analysis-label label-${decision.label}`, labelText(decision.label));
  chip.dataset.label = decision.label;
  return chip;
}

/**
 * Team 0's chance to win before each decision as the round's graph shows it: the mean of
 * each seat's latest own estimate (docs/analysis.md, "The graph"), so the line moves when
 * the game does and not when the turn passes. An analysis stored before has a spectator's
 * estimate instead; one without either (older servers) falls back on each mover's own.
 */
function teamZeroChances(decisions) {
  return decisions.map((d) => {
    if (typeof d.graph_chance === "number") return d.graph_chance;
    if (typeof d.spectator_chance === "number") return d.spectator_chance;
    return d.seat % 2 === 0 ? d.win_chance : 1 - d.win_chance;
  });
}

/**
 * The win-chance graph of a round: each team's chance to win before each decision, the
 * marked decisions as dots (`onPick(index)` when one is clicked) and `current` (an index
 * into `decisions`, or null) as a line.
 */
export function winChart(decisions, round, current, onPick) {
  const width = 340;
  const height = 130;
  const pad = { left: 34, right: 8, top: 8, bottom: 14 };
  const n = decisions.length;
  const x = (i) => pad.left + (n > 1 ? (i * (width - pad.left - pad.right)) / (n - 1) : 0);
  const y = (chance) => pad.top + (1 - chance) * (height - pad.top - pad.bottom);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "win-chart");
  svg.setAttribute("role", "img");
  svg.dataset.testid = "win-chart";
  const zero = teamZeroChances(decisions);
  const marked = decisions.filter((d) => MARKED.has(d.label)).length;
  const ends = [0, 1].map((team) => {
    const first = team === 0 ? zero[0] : 1 - zero[0];
    const last = team === 0 ? zero[n - 1] : 1 - zero[n - 1];
    return `${teamName(team)} ${percent(first)} → ${percent(last)}`;
  });
  svg.setAttribute("aria-label", t("analysis_chart", { n: round, teams: ends.join(", "), marked }));
  for (const chance of [0, 0.5, 1]) {
    const line = document.createElementNS(SVG, "line");
    line.setAttribute("x1", String(pad.left));
    line.setAttribute("x2", String(width - pad.right));
    line.setAttribute("y1", String(y(chance)));
    line.setAttribute("y2", String(y(chance)));
    line.setAttribute("class", chance === 0.5 ? "grid mid" : "grid");
    const label = document.createElementNS(SVG, "text");
    label.setAttribute("x", "2");
    label.setAttribute("y", String(y(chance) + 4));
    label.textContent = percent(chance);
    svg.append(line, label);
  }
  if (current !== null && current !== undefined && current >= 0 && current < n) {
    const now = document.createElementNS(SVG, "line");
    now.setAttribute("x1", String(x(current)));
    now.setAttribute("x2", String(x(current)));
    now.setAttribute("y1", String(pad.top));
    now.setAttribute("y2", String(height - pad.bottom));
    now.setAttribute("class", "now");
    now.dataset.testid = "win-chart-now";
    svg.append(now);
  }
  for (const team of [0, 1]) {
    const path = document.createElementNS(SVG, "polyline");
    const chances = team === 0 ? zero : zero.map((c) => 1 - c);
    path.setAttribute("points", chances.map((c, i) => `${x(i).toFixed(1)},${y(c).toFixed(1)}`).join(" "));
    path.setAttribute("class", `team-line team-${team}`);
    svg.append(path);
  }
  decisions.forEach((d, i) => {
    if (!MARKED.has(d.label)) return;
    const own = d.seat % 2 === 0 ? zero[i] : 1 - zero[i];
    const dot = document.createElementNS(SVG, "circle");
    dot.setAttribute("cx", String(x(i)));
    dot.setAttribute("cy", String(y(own)));
    dot.setAttribute("r", "5");
    dot.setAttribute("class", `mark label-${d.label} team-${d.seat % 2}`);
    dot.dataset.index = String(i);
    if (onPick) dot.addEventListener("click", () => onPick(i));
    svg.append(dot);
  });
  return svg;
}

/** The legend under a win-chance graph: the teams' lines and the marks' colours. */
export function chartLegend() {
  const legend = el("div", "chart-legend");
  for (const team of [0, 1]) legend.append(el("span", `legend team-${team}`, teamName(team)));
  for (const label of MARKED) legend.append(el("span", `legend-mark label-${label}`, labelText(label)));
  return legend;
}

/** "After Ann 7 · Bob pass" (the trick the decision was made in), or "Leading the trick". */
export function trickText(decision, trickNames) {
  const trick = decision.trick || [];
  if (decision.decision === "return") return "";
  if (!trick.length) return t("analysis_trick_lead");
  const moves = trick.map((step) => `${trickNames(step.seat)} ${moveText(step.move)}`).join(" · ");
  return t("analysis_trick_after", { moves });
}

/**
 * One line per entry of `entries` (each `{decision, index}`): who played what (`nameOf(seat)`,
 * if given), its label and the better move; `showMe(index)` adds a "Show me" button;
 * `trickNames(seat)`, if given, adds the trick each decision was made in.
 */
export function decisionList(entries, nameOf, showMe, trickNames) {
  const list = el("ol", "analysis-list");
  for (const { decision, index } of entries) {
    const item = el("li", `analysis-item label-${decision.label}`);
    item.dataset.testid = "analysis-item";
    item.dataset.label = decision.label;
    item.dataset.decision = decision.decision;
    const text = el("span", "analysis-text");
    const who = nameOf ? `${nameOf(decision.seat)}: ` : "";
    text.append(el("b", "", `${who}${moveText(decision.move)}`), " ", labelChip(decision));
    if (MARKED.has(decision.label)) text.append(" ", el("span", "analysis-better", betterText(decision)));
    const context = trickNames ? trickText(decision, trickNames) : "";
    if (context) {
      const trick = el("span", "analysis-trick", context);
      trick.dataset.testid = "analysis-trick";
      text.prepend(trick, " ");
    }
    item.append(text);
    if (showMe) {
      const go = button("btn btn-small", t("analysis_show_me"), "show-me");
      go.setAttribute(
        "aria-label",
        t("analysis_show_me_named", { what: `${who}${moveText(decision.move)}`, label: labelText(decision.label) }),
      );
      go.addEventListener("click", () => showMe(index));
      item.append(go);
    }
    list.append(item);
  }
  return list;
}

/** What to say while an analysis is not shown: loading, being made, or none. */
export function analysisStatus(entry) {
  if (entry.status === "pending") return t("analysis_pending");
  if (entry.status === "none") {
    return entry.error && entry.error.code === "no_analysis" ? t("analysis_none") : t("analysis_failed");
  }
  return t("analysis_loading");
}
