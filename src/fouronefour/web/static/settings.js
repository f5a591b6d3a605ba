// The player's own settings, remembered in this browser: sounds, vibration, desktop
// notifications, motion, muted chat players. One dialog from the top bar.

import { t } from "./i18n.js";
import { $ } from "./dom.js";
import { storage } from "./storage.js";

const DEFAULTS = { sound: true, vibrate: true, notify: false, motion: "system", muted: [] };

let current = { ...DEFAULTS, ...storage.settings() };
const listeners = [];

export function settings() {
  return current;
}

export function onSettingsChange(listener) {
  listeners.push(listener);
}

export function updateSettings(change) {
  current = { ...current, ...change };
  storage.setSettings(current);
  paint();
  for (const listener of listeners) listener(current);
}

/** Whether moves should glide (the player's choice, else the system's reduced motion). */
export function motionAllowed() {
  if (current.motion === "off") return false;
  if (current.motion === "on") return true;
  return !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function paint() {
  $("settings-toggle").setAttribute("aria-pressed", String(!current.sound));
  $("settings-toggle").classList.toggle("muted", !current.sound);
  $("set-sound").checked = current.sound;
  $("set-vibrate").checked = current.vibrate;
  $("set-notify").checked = current.notify;
  $("set-motion").value = current.motion;
}

async function askNotifications(wanted) {
  if (!wanted) return updateSettings({ notify: false });
  if (!("Notification" in window)) return updateSettings({ notify: false });
  let permission = Notification.permission;
  if (permission === "default") permission = await Notification.requestPermission();
  updateSettings({ notify: permission === "granted" });
  if (permission !== "granted") $("set-notify-note").textContent = t("notify_denied");
}

export function initSettings() {
  const dialog = $("settings");
  $("settings-toggle").addEventListener("click", () => {
    dialog.hidden = !dialog.hidden;
    if (!dialog.hidden) $("set-sound").focus();
  });
  $("settings-close").addEventListener("click", () => {
    dialog.hidden = true;
    $("settings-toggle").focus();
  });
  dialog.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      dialog.hidden = true;
      $("settings-toggle").focus();
    }
  });
  $("set-sound").addEventListener("change", (event) => updateSettings({ sound: event.target.checked }));
  $("set-vibrate").addEventListener("change", (event) => updateSettings({ vibrate: event.target.checked }));
  $("set-notify").addEventListener("change", (event) => askNotifications(event.target.checked));
  $("set-motion").addEventListener("change", (event) => updateSettings({ motion: event.target.value }));
  paint();
}
