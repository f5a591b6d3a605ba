// Quick match (docs/quickmatch.md): join the public queue from the home page, wait on a
// screen that shows the time waited and when bots come, cancel; once the server has seated
// this profile the page asks for its seat (polling: the token comes in a body, never a URL)
// and goes to the table.

import { t } from "./i18n.js";
import { ApiError, csrfToken } from "./net.js";
import { $ } from "./dom.js";
import { storage } from "./storage.js";
import { showError } from "./toast.js";
import { profileLoaded } from "./profile.js";

const POLL_MS = 1000;

let enterTable = null; // (code) => void, from app.js
let timer = null;
let waiting = null; // {since: ms on this clock, botsAt: ms or null}
let ticker = null;

/** A quick-match call with the session's CSRF token (every one needs it: GET too). */
async function call(method) {
  const response = await fetch("/api/quickmatch", {
    method,
    headers: { "X-CSRF-Token": csrfToken() || "" },
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(error.code || `http_${response.status}`, error.message || response.statusText, error.retry_after_ms ?? null);
  }
  return data;
}

function clock(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

function paint() {
  if (!waiting) return;
  const now = Date.now();
  $("quickmatch-waited").textContent = t("quickmatch_waited", { time: clock(now - waiting.since) });
  if (waiting.botsAt !== null) {
    const left = Math.ceil((waiting.botsAt - now) / 1000);
    $("quickmatch-bots").textContent = left > 0 ? t("quickmatch_bots_in", { n: left }) : t("quickmatch_bots_now");
  }
  $("quickmatch-people").textContent = waiting.people ? t("quickmatch_people", { n: waiting.people }) : "";
}

function showWaiting(status) {
  const now = Date.now();
  const waited = status.waited_ms || 0;
  waiting = {
    since: now - waited,
    botsAt: typeof status.bots_after_ms === "number" ? now + status.bots_after_ms : null,
    people: status.waiting || 0,
  };
  const opening = $("quickmatch-wait").hidden;
  $("quickmatch-wait").hidden = false;
  paint();
  if (opening) $("quickmatch-cancel").focus({ preventScroll: true });
  if (!ticker) ticker = setInterval(paint, 500);
}

function stopWaiting() {
  waiting = null;
  clearTimeout(timer);
  timer = null;
  clearInterval(ticker);
  ticker = null;
  $("quickmatch-wait").hidden = true;
  $("quickmatch-start").disabled = false;
}

/** Take the seat the server found: keep its token as a join's, and go to the table. */
function sit(seat) {
  stopWaiting();
  storage.setSeat(seat.code, seat.seat, seat.token);
  if (seat.invite) storage.setInvite(seat.code, seat.invite);
  history.pushState(null, "", `/t/${seat.code}`);
  enterTable(seat.code);
}

async function poll() {
  timer = null;
  let status;
  try {
    status = await call("GET");
  } catch (error) {
    if (waiting) timer = setTimeout(poll, POLL_MS * 3); // (the server away a moment)
    return;
  }
  if (!waiting) return; // cancelled meanwhile
  if (status.state === "seated") sit(status);
  else if (status.found) timer = setTimeout(poll, POLL_MS / 4); // (its table is being made)
  else if (status.state === "waiting") {
    showWaiting(status);
    timer = setTimeout(poll, POLL_MS);
  } else stopWaiting();
}

async function join() {
  $("quickmatch-start").disabled = true;
  try {
    await profileLoaded(); // (the session a guest gets on the first visit)
    const status = await call("POST");
    showWaiting(status);
    timer = setTimeout(poll, POLL_MS);
  } catch (error) {
    $("quickmatch-start").disabled = false;
    if (error instanceof ApiError && error.code === "already_queued") {
      waiting = { since: Date.now(), botsAt: null, people: 0 };
      poll();
      return;
    }
    showError(error);
  }
}

async function cancel() {
  const was = waiting;
  stopWaiting();
  if (!was) return;
  try {
    await call("DELETE");
  } catch (error) {
    // Seated meanwhile: the table is there, go to it.
    if (error instanceof ApiError && error.code === "not_queued") {
      waiting = was;
      poll();
      return;
    }
    showError(error);
  }
}

/** A page opened while its profile waits (a reload) picks the waiting up again; one whose
 * profile was seated meanwhile, and never took the seat, goes to it. */
export async function resumeQuickMatch() {
  try {
    await profileLoaded();
    const status = await call("GET");
    if (status.state === "waiting") {
      showWaiting(status);
      timer = setTimeout(poll, POLL_MS);
    } else if (status.state === "seated" && !storage.seat(status.code)) {
      sit(status); // (seated while this page was closed: its seat was never taken)
    }
  } catch {
    // (no session yet, or the server away: the button is there)
  }
}

export function retranslateQuickMatch() {
  paint();
}

export function initQuickMatch(enter) {
  enterTable = enter;
  $("quickmatch-start").addEventListener("click", join);
  $("quickmatch-cancel").addEventListener("click", cancel);
  $("quickmatch-wait").addEventListener("keydown", (event) => {
    if (event.key === "Escape") cancel();
  });
}
