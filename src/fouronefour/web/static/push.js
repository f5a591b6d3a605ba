// Notifications that reach a closed tab (docs/push.md): the account page's panel that
// subscribes this device to Web Push (the browser asks for permission only when the player
// clicks "Turn on"), unsubscribes it, and switches each kind of notice on or off for the
// profile. The service worker (sw.js) shows what arrives.

import { t } from "./i18n.js";
import { ApiError, request } from "./net.js";
import { $ } from "./dom.js";
import { showError, toast } from "./toast.js";

const KINDS = ["invite", "turn", "club_event"];
let state = { available: false, settings: null, endpoints: [] };
let busy = false;

/** Whether this browser can receive Web Push at all (a secure context with a worker). */
export function pushSupported() {
  return window.isSecureContext && "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

function keyBytes(key) {
  const base64 = (key + "=".repeat((4 - (key.length % 4)) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

async function currentSubscription() {
  if (!pushSupported()) return null;
  const registration = await navigator.serviceWorker.getRegistration("/");
  return registration ? registration.pushManager.getSubscription() : null;
}

function say(key) {
  $("push-status").textContent = t(key);
}

async function paint() {
  const supported = pushSupported();
  const subscription = supported ? await currentSubscription() : null;
  const on = Boolean(subscription && Notification.permission === "granted" && state.endpoints.includes(subscription.endpoint));
  $("push-enable").hidden = on;
  $("push-disable").hidden = !on;
  $("push-enable").disabled = busy || !supported || !state.available || (supported && Notification.permission === "denied");
  $("push-disable").disabled = busy;
  if (!supported) say("push_unsupported");
  else if (!state.available) say("push_unavailable");
  else if (Notification.permission === "denied") say("push_denied");
  else say(on ? "push_on" : "push_off");
  for (const kind of KINDS) {
    const box = $(`push-kind-${kind}`);
    box.checked = state.settings ? state.settings[kind] : true;
    box.disabled = busy || !state.settings;
  }
}

/** Read the profile's choices and devices again, and show them (the account page). */
export async function paintPush() {
  try {
    state = await request("GET", "/api/me/push");
  } catch (error) {
    state = { available: false, settings: null, endpoints: [] };
    if (!(error instanceof ApiError && error.code === "no_session")) showError(error);
  }
  // A device subscribed before (this profile's, or kept by the browser from another):
  // told to the server again, so that it is this profile's.
  const subscription = state.available ? await currentSubscription() : null;
  if (subscription && Notification.permission === "granted" && !state.endpoints.includes(subscription.endpoint)) {
    try {
      await request("POST", "/api/me/push/subscriptions", subscription.toJSON());
      state.endpoints.push(subscription.endpoint);
    } catch {
      // (shown as off: the player may turn it on again)
    }
  }
  await paint();
}

async function turnOn() {
  busy = true;
  await paint();
  try {
    // The browser's question, asked because the player clicked: never before.
    const permission = await Notification.requestPermission();
    if (permission !== "granted") return;
    const { key } = await request("GET", "/api/push/key");
    const registration = await navigator.serviceWorker.register("/sw.js");
    await navigator.serviceWorker.ready;
    let subscription = await registration.pushManager.getSubscription();
    if (subscription && subscription.options?.applicationServerKey) {
      // A subscription made for another key (the server's keys were made anew) is useless.
      const made = btoa(String.fromCharCode(...new Uint8Array(subscription.options.applicationServerKey)));
      const wanted = btoa(String.fromCharCode(...keyBytes(key)));
      if (made !== wanted) {
        await subscription.unsubscribe();
        subscription = null;
      }
    }
    subscription ||= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
    await request("POST", "/api/me/push/subscriptions", subscription.toJSON());
    state.endpoints.push(subscription.endpoint);
  } catch (error) {
    if (error instanceof ApiError) showError(error);
    else toast("push_failed", {}, { error: true });
  } finally {
    busy = false;
    await paint();
  }
}

async function turnOff() {
  busy = true;
  await paint();
  try {
    const subscription = await currentSubscription();
    if (subscription) {
      const endpoint = subscription.endpoint;
      await subscription.unsubscribe();
      await request("DELETE", "/api/me/push/subscriptions", { endpoint });
      state.endpoints = state.endpoints.filter((one) => one !== endpoint);
    }
  } catch (error) {
    showError(error);
  } finally {
    busy = false;
    await paint();
  }
}

async function switchKind(kind, wanted) {
  try {
    const answer = await request("PATCH", "/api/me/push/settings", { [kind]: wanted });
    state.settings = answer.settings;
  } catch (error) {
    showError(error);
  }
  await paint();
}

export function initPush() {
  $("push-enable").addEventListener("click", turnOn);
  $("push-disable").addEventListener("click", turnOff);
  for (const kind of KINDS) {
    $(`push-kind-${kind}`).addEventListener("change", (event) => switchKind(kind, event.target.checked));
  }
}
