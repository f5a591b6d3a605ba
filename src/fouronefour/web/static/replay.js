// Replay of a finished match (GET /api/tables/{code}/replays/{n}): the table as it was at
// each step (seats, the move on top) with every hand shown below, step by step, a round at
// a time or playing on its own at a chosen speed; a summary of the match (rounds, the
// levels of both teams round by round as a small chart) and the table's chat at the step
// it was said. Once a match is over nothing in it is private, so declined hook offers are
// shown too. Each round's analysis (analysis.js): each team's chance to win, decision by
// decision, the label of the decision shown with the better move, and the marked moves with
// "Show me"; and the replay itself as a JSON file (what `fouronefour analyse` reads).

import { t } from "./i18n.js";
import { api } from "./net.js";
import { moveElement, moveLabel } from "./cards.js";
import { moveKind } from "./moves.js";
import { $, el, showScreen } from "./dom.js";
import { renderCenter, renderRing, layoutRing, teamName } from "./table.js";
import { showError, toast } from "./toast.js";
import {
  MARKED,
  analysisStatus,
  betterText,
  chartLegend,
  decisionList,
  labelChip,
  roundAnalysis,
  winChart,
} from "./analysis.js";

const LEVELS = "23456789TJQKA";
const BASE_STEP_MS = 900;
const SHOWN_EVENTS = new Set(["play", "pass", "hook", "unhook", "finish", "return"]);

let current = null; // {replay, frames, index, onClose, timer}

function seatLabel(replay, seat) {
  const info = replay.seats[seat] || {};
  if (info.kind === "bot" || !info.name) return t("bot_name", { n: seat + 1 });
  return info.name;
}

/** Frames: each round's start after the deal and tribute, then the state after each step. */
function buildFrames(replay) {
  const frames = [];
  for (const round of replay.rounds) {
    frames.push({ round, reveal: round.start, step: null, log: [] });
    let log = [];
    for (const step of replay.steps) {
      if (step.round_number !== round.round_number) continue;
      log = [...log, ...(step.events || []).filter((event) => SHOWN_EVENTS.has(event.type))];
      frames.push({ round, reveal: step.after, step, log });
    }
  }
  return frames;
}

function describeStep(replay, frame) {
  if (!frame.step) {
    // Tribute is paid only where a caught player gave a card: never in round 1, nor with
    // tribute off. Every card paid is returned, so a return step says one was paid.
    const number = frame.round.round_number;
    const paid = replay.steps.some((step) => step.round_number === number && step.decision === "return");
    return t(paid ? "replay_round_start" : "replay_round_start_plain", { n: number, level: moveLabel(frame.round.level) });
  }
  const step = frame.step;
  const name = seatLabel(replay, step.seat);
  if (step.move === "pass") {
    if (step.decision === "hook") return t("replay_declines_hook", { name });
    if (step.decision === "unhook") return t("replay_declines_unhook", { name });
    return t("log_pass", { name });
  }
  const move = moveLabel(step.move);
  if (step.decision === "hook") return t("log_hook", { name, move });
  if (step.decision === "unhook") return t("log_unhook", { name, move });
  if (step.decision === "return") return t("replay_returns", { name, card: move });
  return t("log_play", { name, kind: t(`kind_${moveKind(step.move)}`), move });
}

/** The table renderers' input for a frame (table.js): seats, no viewer, the round's log. */
function frameView(replay, frame) {
  const reveal = frame.reveal;
  return {
    seats: replay.seats.map((seat) => ({ name: seat.name, kind: seat.kind, connected: true })),
    mySeat: null,
    testPrefix: "replay-table-",
    view: {
      players: reveal.hands.length,
      level: reveal.level,
      counts: reveal.counts || reveal.hands.map((hand) => hand.length),
      finished: reveal.finished,
      turn: reveal.to_act,
      top: reveal.top,
      top_seat: reveal.top_seat,
      window: null,
      tributes: [],
      log: frame.log,
      is_over: reveal.to_act === null || reveal.to_act === undefined,
    },
  };
}

function renderHands(replay, frame) {
  const reveal = frame.reveal;
  const seats = [];
  for (let seat = 0; seat < reveal.hands.length; seat += 1) {
    const row = el("div", `replay-seat team-${seat % 2}`);
    row.dataset.testid = `replay-seat-${seat}`;
    if (frame.step && frame.step.seat === seat) row.classList.add("acting");
    const place = reveal.finished.indexOf(seat);
    const who = el("div", "who", `${seatLabel(replay, seat)} · ${teamName(seat % 2)}`);
    if (place >= 0) who.textContent += ` · ${t("place_n", { n: place + 1 })}`;
    row.append(who);
    const hand = moveElement(reveal.hands[seat], { size: "mini", level: reveal.level });
    hand.dataset.testid = `replay-hand-${seat}`;
    hand.setAttribute("role", "img");
    hand.setAttribute("aria-label", reveal.hands[seat] ? moveLabel(reveal.hands[seat]) : t("hand_empty_short"));
    row.append(hand);
    seats.push(row);
  }
  $("replay-hands").replaceChildren(...seats);
}

/** Chat lines said up to this frame (the replay's `chat`, each with the step it followed). */
function renderChat(replay, frame) {
  const lines = replay.chat || [];
  const box = $("replay-chat");
  const upTo = frame.step ? frame.step.i + 1 : firstStepOf(replay, frame.round);
  const said = lines.filter((line) => line.step <= upTo).slice(-6);
  box.hidden = !lines.length;
  box.replaceChildren(
    ...said.map((line) => {
      const item = el("li");
      item.append(el("b", "", `${line.name}: `), el("span", "", line.phrase ? t(`phrase_${line.phrase}`) : line.text));
      return item;
    }),
  );
}

function firstStepOf(replay, round) {
  return round.first_step ?? 0;
}

function render() {
  const { replay, frames, index } = current;
  const frame = frames[index];
  $("replay-step").textContent = t("replay_step", { i: index + 1, n: frames.length, round: frame.round.round_number });
  $("replay-slider").max = String(frames.length - 1);
  $("replay-slider").value = String(index);
  $("replay-back").disabled = index === 0;
  $("replay-first").disabled = index === 0;
  $("replay-forward").disabled = index === frames.length - 1;
  $("replay-last").disabled = index === frames.length - 1;
  $("replay-round").value = String(frame.round.round_number);
  $("replay-event").textContent = describeStep(replay, frame);
  const view = frameView(replay, frame);
  renderRing($("replay-ring"), view);
  renderCenter($("replay-center"), view);
  renderHands(replay, frame);
  renderChat(replay, frame);
  renderAnalysis();
  $("replay-autoplay").textContent = current.timer ? t("replay_pause") : t("replay_autoplay");
  $("replay-autoplay").setAttribute("aria-pressed", String(Boolean(current.timer)));
}

/** The analysis of the round shown: its graph and marked moves, the shown decision's label. */
function renderAnalysis() {
  const { replay, frames, index } = current;
  const frame = frames[index];
  const round = frame.round;
  const entry = roundAnalysis(replay.code, replay.match, round.round_number, null, () => {
    const wanted = current !== null && current.replay === replay && current.frames[current.index].round === round;
    if (wanted) renderAnalysis();
    return wanted;
  });
  const box = $("replay-analysis");
  const title = el("h3", "", t("analysis_title", { n: round.round_number }));
  title.id = "replay-analysis-title";
  box.replaceChildren(title);
  const verdict = $("replay-verdict");
  verdict.replaceChildren();
  if (entry.status !== "ready") {
    box.append(el("p", "hint-text analysis-status", analysisStatus(entry)));
    return;
  }
  const decisions = entry.data.decisions;
  const shown = frame.step ? frame.step.i - firstStepOf(replay, round) : null;
  const show = (i) => showDecision(round, i);
  box.append(winChart(decisions, round.round_number, shown, show), chartLegend());
  const marked = decisions.map((decision, i) => ({ decision, index: i })).filter(({ decision }) => MARKED.has(decision.label));
  const name = (seat) => seatLabel(replay, seat);
  if (marked.length) box.append(decisionList(marked, name, show, name));
  else box.append(el("p", "hint-text", t("analysis_no_marks")));
  const decision = shown !== null ? decisions[shown] : null;
  // (Its words are its text: an aria-label on a plain div is prohibited, axe
  // aria-prohibited-attr, and was read by no screen reader.)
  if (decision) {
    verdict.append(labelChip(decision));
    if (MARKED.has(decision.label)) verdict.append(" ", el("span", "analysis-better", betterText(decision)));
  }
}

/** "Show me": the table at decision `i` of `round`, its line in view. */
function showDecision(round, i) {
  const step = firstStepOf(current.replay, round) + i;
  stopAutoplay();
  go(current.frames.findIndex((frame) => frame.step && frame.step.i === step));
  $("replay-event").scrollIntoView({ block: "nearest" });
}

/**
 * The replay as the server sends it, as a file: what `fouronefour analyse` reads. Its text,
 * not the parsed object: a match's seed is a 62-bit number, which JavaScript would round.
 */
async function downloadReplay() {
  const { replay } = current;
  const text = await api.replayText(replay.code, replay.match);
  const blob = new Blob([text], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const link = el("a");
  link.href = url;
  link.download = `414-${replay.code}-match-${replay.match}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function go(index) {
  if (!current) return;
  current.index = Math.max(0, Math.min(current.frames.length - 1, index));
  render();
}

function stopAutoplay() {
  if (current && current.timer) {
    clearInterval(current.timer);
    current.timer = null;
  }
}

function toggleAutoplay() {
  if (!current) return;
  if (current.timer) {
    stopAutoplay();
  } else {
    if (current.index === current.frames.length - 1) current.index = 0;
    const speed = Number($("replay-speed").value) || 1;
    current.timer = setInterval(() => {
      if (!current || current.index >= current.frames.length - 1) {
        stopAutoplay();
        if (current) render();
        return;
      }
      go(current.index + 1);
    }, BASE_STEP_MS / speed);
  }
  render();
}

/** Rounds, winner and a chart of both teams' levels after each round (SVG, no library). */
function renderSummary(replay) {
  const results = replay.results || [];
  const box = $("replay-summary");
  box.replaceChildren();
  box.append(
    el("p", "replay-summary-line", t("replay_summary", { rounds: results.length, team: teamName(replay.winning_team) })),
  );
  const levels = [["2", "2"], ...results.map((result) => result.levels_after)];
  const width = 320;
  const height = 140;
  const pad = 24;
  const x = (i) => pad + (i * (width - 2 * pad)) / Math.max(1, levels.length - 1);
  const y = (rank) => height - pad - (LEVELS.indexOf(rank) * (height - 2 * pad)) / (LEVELS.length - 1);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "level-chart");
  svg.setAttribute("role", "img");
  svg.dataset.testid = "level-chart";
  const described = [0, 1].map((team) => `${teamName(team)}: ${levels.map((pair) => moveLabel(pair[team])).join(" → ")}`);
  svg.setAttribute("aria-label", `${t("replay_levels")}. ${described.join(". ")}`);
  for (const rank of ["2", "6", "T", "A"]) {
    const line = document.createElementNS(ns, "line");
    line.setAttribute("x1", String(pad));
    line.setAttribute("x2", String(width - pad));
    line.setAttribute("y1", String(y(rank)));
    line.setAttribute("y2", String(y(rank)));
    line.setAttribute("class", "grid");
    const label = document.createElementNS(ns, "text");
    label.setAttribute("x", "4");
    label.setAttribute("y", String(y(rank) + 4));
    label.textContent = moveLabel(rank);
    svg.append(line, label);
  }
  for (const team of [0, 1]) {
    const path = document.createElementNS(ns, "polyline");
    path.setAttribute("points", levels.map((pair, i) => `${x(i)},${y(pair[team])}`).join(" "));
    path.setAttribute("class", `team-line team-${team}`);
    svg.append(path);
    levels.forEach((pair, i) => {
      const dot = document.createElementNS(ns, "circle");
      dot.setAttribute("cx", String(x(i)));
      dot.setAttribute("cy", String(y(pair[team])));
      dot.setAttribute("r", "3");
      dot.setAttribute("class", `team-dot-${team}`);
      svg.append(dot);
    });
  }
  box.append(svg);
  const legend = el("div", "chart-legend");
  for (const team of [0, 1]) legend.append(el("span", `legend team-${team}`, teamName(team)));
  box.append(legend);
}

function fillRounds(replay) {
  const picker = $("replay-round");
  picker.replaceChildren(
    ...replay.rounds.map((round) => {
      const option = document.createElement("option");
      option.value = String(round.round_number);
      option.textContent = t("round_n", { n: round.round_number });
      return option;
    }),
  );
}

let wired = false;
function wire() {
  if (wired) return;
  wired = true;
  $("replay-first").addEventListener("click", () => go(0));
  $("replay-back").addEventListener("click", () => go(current.index - 1));
  $("replay-forward").addEventListener("click", () => go(current.index + 1));
  $("replay-last").addEventListener("click", () => go(current.frames.length - 1));
  $("replay-slider").addEventListener("input", (event) => go(Number(event.target.value)));
  $("replay-round").addEventListener("change", (event) => {
    const round = Number(event.target.value);
    go(current.frames.findIndex((frame) => frame.round.round_number === round));
  });
  $("replay-autoplay").addEventListener("click", toggleAutoplay);
  $("replay-download").addEventListener("click", () => current && downloadReplay().catch(showError));
  $("replay-speed").addEventListener("change", () => {
    if (current && current.timer) {
      stopAutoplay();
      toggleAutoplay();
    }
  });
  $("replay-close").addEventListener("click", () => {
    stopAutoplay();
    const onClose = current && current.onClose;
    current = null;
    if (onClose) onClose();
  });
  new ResizeObserver(() => layoutRing($("replay-ring"))).observe($("replay-felt"));
  document.addEventListener("keydown", (event) => {
    if (!current || $("screen-replay").hidden || event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowRight") go(current.index + 1);
    else if (event.key === "ArrowLeft") go(current.index - 1);
    else if (event.key === " ") {
      event.preventDefault();
      toggleAutoplay();
    }
  });
}

/** Show a replay (the screen must be visible); `onClose` runs when the viewer closes. */
export function openReplay(replay, onClose) {
  wire();
  stopAutoplay();
  current = { replay, frames: buildFrames(replay), index: 0, onClose, timer: null };
  fillRounds(replay);
  renderSummary(replay);
  render();
}

/** Re-render after a language switch. */
export function rerenderReplay() {
  if (!current) return;
  fillRounds(current.replay);
  renderSummary(current.replay);
  render();
}

/** How a match is named in the picker: its winner and length when the server says them. */
function matchLabel(entry) {
  if (entry.winning_team === undefined || entry.winning_team === null || !entry.rounds) {
    return t("replay_match_plain", { n: entry.match });
  }
  return t("replay_match", { n: entry.match, team: teamName(entry.winning_team), rounds: entry.rounds });
}

/**
 * The replay screen for table `code`: the picker lists its finished matches, the last one
 * opens; closing shows the screen `backTo` again.
 */
export async function openReplays(code, backTo) {
  try {
    const list = await api.replays(code);
    if (!list.matches.length) {
      toast("no_replays");
      return;
    }
    const picker = $("replay-match");
    picker.replaceChildren(
      ...list.matches.map((entry) => {
        const option = document.createElement("option");
        option.value = String(entry.match);
        option.textContent = matchLabel(entry);
        return option;
      }),
    );
    picker.hidden = list.matches.length < 2;
    const open = async (match) => {
      const replay = await api.replay(code, match);
      picker.value = String(match);
      $("results").hidden = true;
      showScreen("screen-replay");
      openReplay(replay, () => showScreen(backTo));
    };
    picker.onchange = () => open(Number(picker.value)).catch(showError);
    await open(list.matches[list.matches.length - 1].match);
  } catch (error) {
    showError(error);
  }
}

/** One match's replay (from My games): the screen `backTo` again when it closes. */
export async function openMatchReplay(code, match, backTo) {
  try {
    const replay = await api.replay(code, match);
    const picker = $("replay-match");
    picker.replaceChildren();
    picker.hidden = true;
    picker.onchange = null;
    $("results").hidden = true;
    showScreen("screen-replay");
    openReplay(replay, () => showScreen(backTo));
  } catch (error) {
    showError(error);
  }
}
