// Short messages at the top of the screen. A toast keeps its translation key, so it
// follows a language switch; a new round or another screen clears it.

import { t } from "./i18n.js";
import { ApiError } from "./net.js";
import { $ } from "./dom.js";

let timer = null;
let shown = null; // {key, params, raw, error}

function paint() {
  const box = $("toast");
  if (!shown) {
    box.hidden = true;
    return;
  }
  box.textContent = shown.key ? t(shown.key, shown.params) : shown.raw;
  box.classList.toggle("error", shown.error);
  box.hidden = false;
}

/** Show the string `key` (translated now and after any language switch). */
export function toast(key, params = {}, { error = false } = {}) {
  shown = { key, params, raw: null, error };
  paint();
  clearTimeout(timer);
  timer = setTimeout(clearToast, 3500);
}

export function clearToast() {
  clearTimeout(timer);
  shown = null;
  paint();
}

/** Re-translate the toast on screen (after a language switch). */
export function retranslateToast() {
  paint();
}

/** An error as a toast: a server error code has its own string, else its message. */
export function showError(error) {
  if (error instanceof ApiError) {
    const key = `error_${error.code}`;
    if (t(key) !== key) {
      toast(key, {}, { error: true });
      return;
    }
    shown = null;
    toastRaw(error.message || error.code);
    return;
  }
  toastRaw(String(error && error.message ? error.message : error));
}

function toastRaw(text) {
  shown = { key: null, params: {}, raw: text, error: true };
  paint();
  clearTimeout(timer);
  timer = setTimeout(clearToast, 3500);
}
