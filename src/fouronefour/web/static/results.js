// Round and match results: the dialog after each round, the winner at the end,
// Play again (host) and Replay.

import { t } from "./i18n.js";
import { $ } from "./dom.js";
import { eventGoal, eventTypes, lastRoundEnd, tableView } from "./state.js";
import { request, session } from "./session.js";
import { renderResults } from "./table.js";
import { showError } from "./toast.js";
import { watchAgain } from "./playagain.js";

let shown = null; // {result, previousLevels} in the dialog
let openReplays = null; // from app.js
let focusBefore = null; // where the keyboard was when the dialog opened: it goes back there

export function resetResults() {
  shown = null;
  closeResults();
}

function closeResults() {
  if ($("results").hidden) return;
  $("results").hidden = true;
  if (focusBefore && focusBefore.isConnected) focusBefore.focus({ preventScroll: true });
  focusBefore = null;
}

/** The dialog takes the keyboard (not from a line being typed), on its first button. */
function focusResults() {
  const active = document.activeElement;
  if (active && active.closest("input, textarea, select")) return;
  if (!$("results").contains(active)) focusBefore = active;
  const first = [...$("results").querySelectorAll("button")].find((button) => !button.hidden);
  if (first) first.focus({ preventScroll: true });
}

export function showResults(result, previousLevels) {
  shown = { result, previousLevels };
  const state = session.state;
  const over =
    Boolean(state.state && state.state.match_over) && result === state.results[state.results.length - 1];
  $("results-title").textContent = over
    ? t(eventGoal(state) ? "event_table_decided_title" : "match_over_title")
    : t("round_over_title", { n: result.round_number || state.results.length });
  renderResults($("results-body"), tableView(state), result, previousLevels);
  const opening = $("results").hidden;
  $("results").hidden = false;
  renderResultButtons();
  if (opening) focusResults();
}

export function showLastResults() {
  const last = lastRoundEnd(session.state);
  if (last) showResults(last.result, last.previousLevels);
}

/** After a change: a round's end opens the dialog; a match's end shows the winner. */
export function onResultsChange(previous, next, message) {
  const events = eventTypes(message);
  if (events.has("match_start")) resetResults();
  // With an end-of-round pause (protocol 3) the results are read on the table, not in a
  // dialog over it; the dialog is for the end of a match (and servers without the pause).
  const pausing = Boolean(next.state && next.state.round_end);
  if (events.has("round_over") && next.roundEnd && !pausing && !(next.state && next.state.match_over)) {
    showResults(next.roundEnd.result, next.roundEnd.previousLevels);
  }
  else if (events.has("match_over")) showLastResults();
  if (next.state && next.state.match_over && $("results").hidden && !shown && next.results.length) {
    showLastResults();
  }
}

export function renderResultButtons() {
  const state = session.state;
  const finished = state.table && state.table.status === "finished";
  // (an event's table is decided: the event makes the next round's tables)
  $("results-again").hidden = !(finished && state.host && state.role === "player" && !eventGoal(state));
  $("results-replay").hidden = !finished;
  watchAgain(); // (a new table with the same players: playagain.js)
  // A modal keeps the keyboard: if what had it went (a button hidden, the page redrawn
  // behind), its first button takes it again.
  const dialog = $("results");
  if (!dialog.hidden && !dialog.contains(document.activeElement)) focusResults();
}

export function retranslateResults() {
  if (shown && !$("results").hidden) showResults(shown.result, shown.previousLevels);
}

export async function playAgain() {
  try {
    await request({ type: "play_again" });
    resetResults();
  } catch (error) {
    showError(error);
  }
}

export function initResults(replays) {
  openReplays = replays;
  $("results-close").addEventListener("click", closeResults);
  $("results").addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeResults();
  });
  $("results-again").addEventListener("click", playAgain);
  $("results-replay").addEventListener("click", () => openReplays());
}
