// One lesson at a real table (docs/tutorial.md). The table's own renderers (table.js, and
// the hand's layout from hand.js) draw the learner's view; the lesson's texts sit beside the
// table on wide screens and above it on phones, never over the hand or its buttons.
//
// The server keeps nothing: every request carries the learner's accepted moves, and the
// answer says whether the try was the lesson's move and, if not, why (docs/protocol.md,
// section 2, Lessons). The moves so far are kept in this browser, so a reload resumes.

import { language, t } from "./i18n.js";
import { ApiError } from "./net.js";
import { $, button, el, showScreen } from "./dom.js";
import { canonicalMove, indexesForMove } from "./cards.js";
import { layoutHand } from "./hand.js";
import {
  describeEvent,
  renderCenter,
  renderLog,
  renderResults,
  renderRing,
  renderScoreboard,
  renderTribute,
} from "./table.js";
import { storage } from "./storage.js";
import { showError } from "./toast.js";
import { lessonList, markDone, navigate, nextLesson } from "./learn.js";

const local = {
  id: null,
  moves: [], // the learner's accepted moves
  answer: null, // the server's last answer
  asked: null, // {moves, try} of the last request: asked again after a language switch
  selection: new Set(), // indexes into the hand
  hinted: false,
  busy: false,
};

/** Wide screens show the lesson's texts beside the table (style.css, Learn 414). */
function wide() {
  return window.matchMedia("(min-width: 900px)").matches;
}

function movesKey(id) {
  return `414.lesson.${id}`;
}

function savedMoves(id) {
  try {
    const moves = JSON.parse(localStorage.getItem(movesKey(id)) || "[]");
    return Array.isArray(moves) && moves.every((move) => typeof move === "string") ? moves : [];
  } catch {
    return [];
  }
}

async function post(id, body) {
  const response = await fetch(`/api/lessons/${encodeURIComponent(id)}/step`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => null);
  if (!response.ok || !data) {
    const error = (data && data.error) || {};
    throw new ApiError(error.code || `http_${response.status}`, error.message || response.statusText);
  }
  return data;
}

/** Ask the server about the lesson after `moves`, trying `attempt` (or nothing). */
async function ask(moves, attempt = null) {
  const id = local.id;
  local.busy = true;
  renderButtons();
  local.asked = { moves: [...moves], try: attempt };
  try {
    const answer = await post(id, { moves, try: attempt, lang: language() });
    if (id !== local.id) return;
    take(answer);
  } catch (error) {
    if (id !== local.id) return;
    if (error instanceof ApiError && error.code === "bad_message" && moves.length) {
      // Saved moves the lesson no longer accepts (it was changed): start it again.
      localStorage.removeItem(movesKey(id));
      local.moves = [];
      local.busy = false;
      await ask([]);
      return;
    }
    showError(error);
    if (error instanceof ApiError && error.code === "lesson_not_found") navigate("/learn");
  } finally {
    if (id === local.id) {
      local.busy = false;
      renderButtons();
    }
  }
}

function take(answer) {
  local.answer = answer;
  const feedback = answer.feedback;
  if (feedback && feedback.accepted) {
    local.moves = [...local.asked.moves, feedback.move];
    localStorage.setItem(movesKey(local.id), JSON.stringify(local.moves));
    local.hinted = false;
  }
  if (feedback) {
    local.selection = new Set();
    // On a phone the rule folds away after the first try, so that the feedback, the table,
    // the hand and its buttons fit on one screen; beside the table (wide) it stays open.
    if (!wide()) $("lesson-intro-box").open = false;
  }
  if (answer.done) {
    markDone(local.id);
    $("lesson-intro-box").open = false; // room for the summary and Next lesson
  }
  render();
}

// ------------------------------------------------------------------ the table

function seatLabel(seat, mine, players) {
  const offset = (seat - mine + players) % players;
  if (offset === 0) return storage.name() || t("practice_name");
  if (players === 4) return t(["", "lesson_left", "lesson_partner", "lesson_right"][offset]);
  return t("seat_n", { n: seat + 1 });
}

/** The shape table.js renders: seats, the learner's seat and a game view. */
function tableState(answer) {
  const view = answer.view;
  const offer = answer.window;
  const seats = [];
  for (let seat = 0; seat < view.players; seat += 1) {
    seats.push({ name: seatLabel(seat, answer.seat, view.players), connected: true, kind: "human" });
  }
  return {
    seats,
    mySeat: answer.seat,
    lastResult: null,
    view: {
      players: view.players,
      level: view.level,
      order: view.order,
      counts: view.counts,
      finished: view.finished,
      // The learner's own offer: it is their decision, and the claimed move is on top, as
      // the real table shows the seat offered a claim.
      turn: offer ? answer.seat : view.turn,
      top: offer ? offer.claimed : view.top,
      top_seat: offer ? offer.claimed_seat : view.top_seat,
      window: offer,
      tributes: view.tributes,
      log: view.log,
      levels: answer.levels,
      round_number: 1,
      match_over: false,
      match_winner: null,
      is_over: view.is_over,
      pause: null,
      paused: false,
    },
  };
}

function renderHandCards() {
  const answer = local.answer;
  const cards = answer.view.hand;
  const box = $("lesson-hand");
  if (!cards.length) {
    box.replaceChildren(el("div", "hand-empty", t("hand_empty")));
    return;
  }
  layoutHand(box, cards, { level: answer.view.level, selection: local.selection, onToggle: toggleCard });
}

function toggleCard(index) {
  const decision = local.answer && local.answer.view.decision;
  if (!decision || local.busy) return;
  if (local.selection.has(index)) local.selection.delete(index);
  else if (decision === "return") local.selection = new Set([index]);
  else local.selection.add(index);
  renderHandCards();
  renderButtons();
}

function selectedMove() {
  const cards = local.answer.view.hand;
  return canonicalMove([...local.selection].map((index) => cards[index]));
}

function renderButtons() {
  const answer = local.answer;
  const decision = answer && !answer.done ? answer.view.decision : null;
  const play = $("lesson-play");
  const pass = $("lesson-pass");
  const claim = decision === "hook" || decision === "unhook";
  play.textContent = t(claim ? decision : decision === "return" ? "give_back" : "play");
  pass.textContent = t(claim ? "decline" : "pass");
  // Any selection may be tried: a wrong try is how the lesson explains.
  play.disabled = local.busy || !decision || local.selection.size === 0;
  pass.disabled = local.busy || !decision;
  $("lesson-hint-btn").disabled = local.busy || !decision || !answer.hint_move;
  $("lesson-clear").disabled = local.busy || local.selection.size === 0;
  $("screen-lesson").dataset.busy = local.busy ? "true" : "";
}

// ------------------------------------------------------------------ the lesson's texts

function renderFeedback(answer) {
  const box = $("lesson-feedback");
  const feedback = answer.feedback;
  box.replaceChildren();
  box.className = "lesson-feedback";
  if (!feedback || (feedback.accepted && !feedback.text)) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.classList.add(feedback.accepted ? "ok" : "wrong");
  box.dataset.reason = feedback.reason || "";
  const mark = el("strong", "lesson-mark", feedback.accepted ? "✓ " : "✗ ");
  box.append(mark, document.createTextNode(feedback.text));
  if (!feedback.accepted) box.append(el("span", "lesson-retry", ` ${t("lesson_retry")}`));
}

/** Against bots: what the others did since the learner's move. */
function renderNews(answer, state) {
  const box = $("lesson-news");
  const others = answer.decisions === null ? answer.events.filter((event) => event.seat !== answer.seat) : [];
  box.hidden = !others.length;
  box.replaceChildren(...others.slice(-8).map((event) => el("li", "", describeEvent(state, event))));
}

function renderPanel(answer, state) {
  $("lesson-title").textContent = answer.title;
  $("lesson-section").textContent = answer.section ? `· ${t("learn_section", { n: answer.section })}` : "";
  const progress = $("lesson-progress");
  if (answer.done) progress.textContent = t("learn_done");
  else if (answer.decisions) {
    progress.textContent = t("lesson_step", { n: answer.moves + 1, of: answer.decisions });
  } else progress.textContent = "";
  $("lesson-intro").textContent = answer.say.intro;
  renderFeedback(answer);
  renderNews(answer, state);
  const task = $("lesson-task");
  task.textContent = answer.done ? answer.say.done : answer.say.task;
  task.classList.toggle("lesson-done-text", answer.done);
  const hint = $("lesson-hint");
  hint.hidden = !(local.hinted && answer.say.hint && !answer.done);
  hint.textContent = answer.say.hint || "";
  const result = $("lesson-result");
  result.hidden = !answer.result;
  if (answer.result) {
    renderResults(result, state, { ...answer.result, round_number: 1 }, answer.result.levels_before);
  }
  $("lesson-end").hidden = !answer.done;
  const next = nextLesson(local.id);
  $("lesson-next").hidden = !next;
  $("lesson-list").hidden = Boolean(next);
  // After the last lesson the next step is a real game: Practice, one click away.
  $("lesson-practice").hidden = Boolean(next);
  $("lesson-practice").textContent = t("lesson_practise");
}

function render() {
  const answer = local.answer;
  if (!answer) return;
  const state = tableState(answer);
  const screen = $("screen-lesson");
  // Facts for scripts and tests that drive the page.
  screen.dataset.lesson = local.id;
  screen.dataset.moves = String(answer.moves);
  screen.dataset.decision = answer.done ? "" : answer.view.decision || "";
  screen.dataset.done = answer.done ? "true" : "";
  screen.dataset.feedback = answer.feedback ? (answer.feedback.accepted ? "ok" : "wrong") : "";
  renderPanel(answer, state);
  renderScoreboard($("lesson-scoreboard"), state);
  renderRing($("lesson-ring"), state);
  renderCenter($("lesson-center"), state);
  renderTribute($("lesson-tribute"), state);
  renderLog($("lesson-log"), state);
  renderHandCards();
  renderButtons();
}

// ------------------------------------------------------------------ actions

function playSelected() {
  if (local.selection.size) ask(local.moves, selectedMove());
}

function showHint() {
  const answer = local.answer;
  if (!answer || !answer.hint_move) return;
  local.hinted = true;
  const indexes = answer.hint_move === "pass" ? [] : indexesForMove(answer.view.hand, answer.hint_move);
  local.selection = new Set(indexes || []);
  render();
}

export async function openLesson(id) {
  local.id = id;
  local.moves = savedMoves(id);
  local.answer = null;
  local.selection = new Set();
  local.hinted = false;
  showScreen("screen-lesson");
  const screen = $("screen-lesson");
  screen.dataset.moves = "";
  screen.dataset.done = "";
  screen.dataset.feedback = "";
  $("topbar-info").textContent = t("learn_title");
  document.title = `414 · ${t("learn_title")}`;
  $("lesson-intro-box").open = !local.moves.length || wide();
  lessonList().then(() => {
    if (local.id === id && local.answer) renderPanel(local.answer, tableState(local.answer));
  }, () => {});
  await ask(local.moves);
}

export function retranslateLesson() {
  if ($("screen-lesson").hidden || !local.id || !local.asked) return;
  ask(local.asked.moves, local.asked.try);
}

export function initLesson() {
  $("lesson-play").addEventListener("click", playSelected);
  $("lesson-pass").addEventListener("click", () => ask(local.moves, "pass"));
  $("lesson-hint-btn").addEventListener("click", showHint);
  $("lesson-clear").addEventListener("click", () => {
    local.selection = new Set();
    render();
  });
  $("lesson-again").addEventListener("click", () => {
    localStorage.removeItem(movesKey(local.id));
    openLesson(local.id);
  });
  $("lesson-next").addEventListener("click", () => {
    const next = nextLesson(local.id);
    if (next) navigate(`/learn/${next.id}`);
  });
  $("lesson-list").addEventListener("click", () => navigate("/learn"));
  const practise = button("btn btn-primary", t("lesson_practise"), "lesson-practice");
  practise.id = "lesson-practice";
  practise.hidden = true;
  $("lesson-end").append(practise);
  // Practice starts from the home page's form (its bot level, the name given there).
  practise.addEventListener("click", () => {
    navigate("/");
    $("practice-form").requestSubmit();
  });
  window.addEventListener("resize", () => {
    if (!$("screen-lesson").hidden && local.answer) render();
  });
  document.addEventListener("keydown", (event) => {
    if ($("screen-lesson").hidden || event.target.closest("input, select, textarea")) return;
    // Enter on a button is that button's; on a card of the hand (or nowhere) it plays.
    if (event.target.closest("button, a") && !event.target.closest("#lesson-hand")) return;
    if (event.key === "Enter" && !$("lesson-play").disabled) playSelected();
    else if (event.key === "Escape") {
      local.selection = new Set();
      render();
    }
  });
}
