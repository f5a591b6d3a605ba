// Replay of a finished match (GET /api/tables/{code}/replays/{n}): every hand shown,
// step by step, forward and back. Once a match is over nothing in it is private, so
// declined hook offers are shown too.

import { t } from "./i18n.js";
import { api } from "./net.js";
import { moveElement, moveLabel } from "./cards.js";
import { moveKind } from "./moves.js";
import { $, showScreen } from "./dom.js";
import { teamName } from "./table.js";
import { showError, toast } from "./toast.js";

let current = null; // {replay, frames, index, onClose}

function seatLabel(replay, seat) {
  const info = replay.seats[seat] || {};
  if (info.kind === "bot" || !info.name) return t("bot_name", { n: seat + 1 });
  return info.name;
}

/** Frames: each round's start after the deal and tribute, then the state after each step. */
function buildFrames(replay) {
  const frames = [];
  for (const round of replay.rounds) {
    frames.push({ round, reveal: round.start, step: null });
    for (const step of replay.steps) {
      if (step.round_number === round.round_number) frames.push({ round, reveal: step.after, step });
    }
  }
  return frames;
}

function describeStep(replay, frame) {
  if (!frame.step) return t("replay_round_start", { n: frame.round.round_number, level: moveLabel(frame.round.level) });
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

function render() {
  const { replay, frames, index } = current;
  const frame = frames[index];
  const reveal = frame.reveal;
  $("replay-step").textContent = t("replay_step", { i: index + 1, n: frames.length, round: frame.round.round_number });
  $("replay-slider").max = String(frames.length - 1);
  $("replay-slider").value = String(index);
  $("replay-back").disabled = index === 0;
  $("replay-first").disabled = index === 0;
  $("replay-forward").disabled = index === frames.length - 1;
  $("replay-last").disabled = index === frames.length - 1;
  $("replay-event").textContent = describeStep(replay, frame);
  const seats = [];
  for (let seat = 0; seat < reveal.hands.length; seat += 1) {
    const row = document.createElement("div");
    row.className = `replay-seat team-${seat % 2}`;
    row.dataset.testid = `replay-seat-${seat}`;
    if (frame.step && frame.step.seat === seat) row.classList.add("acting");
    const who = document.createElement("div");
    who.className = "who";
    const place = reveal.finished.indexOf(seat);
    who.textContent = `${seatLabel(replay, seat)} · ${t(seat % 2 === 0 ? "team_a" : "team_b")}`;
    if (place >= 0) who.textContent += ` · ${t("place_n", { n: place + 1 })}`;
    if (reveal.top && reveal.top_seat === seat) {
      const top = moveElement(reveal.top, { size: "mini", level: reveal.level });
      top.classList.add("replay-top");
      who.append(document.createElement("br"), t("replay_on_top"), " ", top);
    }
    row.append(who);
    const hand = moveElement(reveal.hands[seat], { size: "table", level: reveal.level });
    hand.dataset.testid = `replay-hand-${seat}`;
    row.append(hand);
    seats.push(row);
  }
  $("replay-hands").replaceChildren(...seats);
}

function go(index) {
  if (!current) return;
  current.index = Math.max(0, Math.min(current.frames.length - 1, index));
  render();
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
  $("replay-close").addEventListener("click", () => {
    const onClose = current && current.onClose;
    current = null;
    if (onClose) onClose();
  });
  document.addEventListener("keydown", (event) => {
    if (!current || $("screen-replay").hidden) return;
    if (event.key === "ArrowRight") go(current.index + 1);
    else if (event.key === "ArrowLeft") go(current.index - 1);
  });
}

/** Show a replay (the screen must be visible); `onClose` runs when the viewer closes. */
export function openReplay(replay, onClose) {
  wire();
  current = { replay, frames: buildFrames(replay), index: 0, onClose };
  render();
}

/** Re-render after a language switch. */
export function rerenderReplay() {
  if (current) render();
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
        option.textContent = t("replay_match", {
          n: entry.match,
          team: teamName(entry.winning_team),
          rounds: entry.rounds,
        });
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
