// Telling a player it is their turn when they look elsewhere: a short sound (synthesised
// with Web Audio: nothing to download), the tab's title and icon, a vibration on phones,
// and a desktop notification while the tab is hidden (if allowed). A hook offer has a
// sound of its own. All of it follows the settings (settings.js).

import { t } from "./i18n.js";
import { decisionOf } from "./state.js";
import { settings } from "./settings.js";

let audio = null;
let baseTitle = "414";
let alerting = false;

function context() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  if (!audio) audio = new Context();
  if (audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}

/** A few notes as short sine blips: [frequency Hz, start s, length s]. */
function chime(notes) {
  const ctx = context();
  if (!ctx) return;
  const now = ctx.currentTime;
  for (const [frequency, start, length] of notes) {
    const tone = ctx.createOscillator();
    const gain = ctx.createGain();
    tone.type = "sine";
    tone.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(0.25, now + start + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    tone.connect(gain).connect(ctx.destination);
    tone.start(now + start);
    tone.stop(now + start + length + 0.05);
  }
}

const SOUNDS = {
  turn: [[660, 0, 0.18], [880, 0.14, 0.25]],
  offer: [[988, 0, 0.12], [988, 0.16, 0.12], [1319, 0.32, 0.22]],
};

function favicon(alert) {
  const link = document.querySelector("link[rel=icon]");
  if (!link) return;
  if (!link.dataset.normal) link.dataset.normal = link.href;
  link.href = alert ? "/static/icons/alert.svg" : link.dataset.normal;
}

function setAlerting(on, kind) {
  alerting = on;
  document.title = on ? `● ${t(kind === "offer" ? "title_offer" : "title_turn")} · ${baseTitle}` : baseTitle;
  favicon(on);
}

/** The page's title when nothing asks for attention (set by the screen). */
export function setBaseTitle(title) {
  baseTitle = title;
  if (!alerting) document.title = title;
}

function notify(kind) {
  if (!settings().notify || !document.hidden) return;
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  try {
    const note = new Notification("414", {
      body: t(kind === "offer" ? "title_offer" : "title_turn"),
      tag: "414-turn",
      icon: "/static/icons/icon-192.png",
    });
    note.onclick = () => window.focus();
  } catch {
    // Some browsers allow notifications only from a service worker: the title still tells.
  }
}

/** After a change: a new decision for this seat alerts; its end clears the alert. */
export function alertChange(previous, next) {
  const before = decisionOf(previous);
  const now = decisionOf(next);
  const promptBefore = previous.you ? previous.you.prompt_v : null;
  const promptNow = next.you ? next.you.prompt_v : null;
  // (A seat that is away is played by the table's bot, which takes the turn at once: no
  // turn of the player's own to tell, as no "your turn" push is sent for it, docs/push.md.)
  if (!now || next.role !== "player" || next.you.away) {
    if (alerting) setAlerting(false);
    return;
  }
  if (now === before && promptNow === promptBefore) return;
  const kind = now === "hook" || now === "unhook" ? "offer" : "turn";
  setAlerting(true, kind);
  const chosen = settings();
  // Before a first tap or key on this page (say, after a reload) the browser refuses sound
  // and vibration, and says so in the console: only the title, icon and notification then.
  const touched = navigator.userActivation ? navigator.userActivation.hasBeenActive : true;
  if (chosen.sound && touched) chime(SOUNDS[kind]);
  if (chosen.vibrate && touched && navigator.vibrate) navigator.vibrate(kind === "offer" ? [60, 60, 60] : 120);
  notify(kind);
}

export function initAlerts() {
  // Browsers start sound only after a gesture: the first tap unlocks it for later turns.
  const unlock = () => {
    if (settings().sound) context();
  };
  document.addEventListener("pointerdown", unlock, { once: true });
  document.addEventListener("keydown", unlock, { once: true });
}
