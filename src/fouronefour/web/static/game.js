// The game screen: scoreboard, seats around the felt, the centre, tribute, the log, the
// status line with its timer, the own hand and the hook offers.

import { t } from "./i18n.js";
import { moveLabel } from "./cards.js";
import { $, button } from "./dom.js";
import { decisionOf, eventGoal, tableView } from "./state.js";
import { request, serverNow, session } from "./session.js";
import { renderRoundPanel } from "./roundpanel.js";
import { renderRoundEnd } from "./roundend.js";
import { renderMyAnalysis } from "./myanalysis.js";
import { renderPeople, renderPresence } from "./people.js";
import { renderChat } from "./chat.js";
import {
  layoutRing,
  renderCenter,
  renderRing,
  renderScoreboard,
  renderTribute,
  seatName,
  teamName,
} from "./table.js";
import { renderHand } from "./hand.js";
import { renderOffer, tickOffer } from "./offer.js";
import { playAgain, renderResultButtons, showLastResults } from "./results.js";
import { showError } from "./toast.js";

let openReplays = null; // from app.js

function secondsLeft(deadline) {
  if (!deadline) return null;
  return Math.max(0, Math.ceil((deadline - serverNow()) / 1000));
}

function pendingReturn(state) {
  const tributes = state.state ? state.state.tributes || [] : [];
  return tributes.find((entry) => entry.to === state.seat && !entry.returned);
}

function renderStatus(view) {
  const state = session.state;
  const pub = state.state;
  const line = $("status-line");
  line.classList.remove("my-turn");
  line.replaceChildren();
  let text = "";
  let deadline = null;
  const current = decisionOf(state);
  if (pub.match_over && eventGoal(state)) {
    text = t("event_table_decided", { team: teamName(pub.match_winner) });
  } else if (pub.match_over) {
    text = t("match_won", { team: teamName(pub.match_winner) });
  } else if (pub.paused) {
    text = t("table_paused");
  } else if (pub.round_end) {
    text = t("round_over_title", { n: pub.round_end.round_number });
  } else if (current === "play") {
    text = pub.top ? t("your_turn_beat", { move: moveLabel(pub.top) }) : t("your_turn_lead");
    deadline = state.you.deadline;
    line.classList.add("my-turn");
  } else if (current === "return") {
    const entry = pendingReturn(state);
    text = t("your_turn_return", { name: entry ? seatName(view, entry.from) : "" });
    deadline = state.you.deadline;
    line.classList.add("my-turn");
  } else if (pub.window) {
    text = t(pub.window.kind === "hook" ? "window_hook" : "window_unhook", {
      move: moveLabel(pub.window.claimed),
      name: seatName(view, pub.window.claimed_seat),
    });
    deadline = pub.window.closes_at;
  } else if (pub.turn !== null && pub.turn !== undefined) {
    text = t("waiting_for", { name: seatName(view, pub.turn) });
    deadline = pub.deadline;
  }
  const words = document.createElement("span");
  words.className = "status-text";
  words.textContent = text;
  words.title = text;
  line.append(words);
  if (deadline) {
    const pill = document.createElement("span");
    pill.className = "timer-pill";
    pill.dataset.deadline = String(deadline);
    pill.dataset.testid = "timer";
    pill.textContent = `${secondsLeft(deadline)}s`;
    line.append(pill);
  }
  if (pub.match_over && state.table.status === "finished") {
    const replay = button("btn btn-small", t("replay_open"), "status-replay");
    replay.addEventListener("click", () => openReplays());
    line.append(" ", replay);
    // (An event's table is decided: the event makes the next round's tables.)
    if (state.host && state.role === "player" && !eventGoal(state)) {
      const again = button("btn btn-small btn-primary", t("play_again"), "status-play-again");
      again.addEventListener("click", playAgain);
      line.append(" ", again);
    }
  } else if (state.you && state.you.away) {
    const back = button("btn btn-small btn-warn", t("im_back"), "im-back");
    back.addEventListener("click", () => request({ type: "back" }).catch(showError));
    words.textContent = `${text} ${t("away_note")}`.trim();
    words.title = words.textContent;
    line.append(back);
  }
}

export function renderGame() {
  const state = session.state;
  const view = tableView(state);
  const game = view.view;
  // Facts for scripts and tests that drive the page (and for styling).
  const root = $("game");
  root.dataset.decision = decisionOf(state) || "";
  root.dataset.prompt = state.you && state.you.decision ? String(state.you.prompt_v) : "";
  root.dataset.turn = game.turn ?? "";
  root.dataset.topSeat = game.top_seat ?? "";
  root.dataset.round = game.round_number ?? "";
  root.dataset.window = game.window ? game.window.kind : "";
  if (state.results.length) view.onShowResults = showLastResults;
  renderScoreboard($("scoreboard"), view);
  renderRing($("ring"), view);
  renderCenter($("center"), view);
  renderTribute($("tribute-panel"), view);
  renderRoundPanel(view);
  renderRoundEnd(view);
  renderMyAnalysis();
  renderPeople(view);
  renderPresence();
  renderChat();
  renderHand();
  renderStatus(view);
  renderOffer();
  renderResultButtons();
}

/** Timers count down between updates. */
export function tickGame() {
  for (const pill of document.querySelectorAll(".timer-pill")) {
    pill.textContent = `${secondsLeft(Number(pill.dataset.deadline))}s`;
  }
  tickOffer();
}

export function initGame(replays) {
  openReplays = replays;
  // The seats follow the felt's size (a rotated phone, a resized window, the tribute strip).
  new ResizeObserver(() => layoutRing($("ring"))).observe($("felt"));
}
