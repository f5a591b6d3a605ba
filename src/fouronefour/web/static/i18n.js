// Translations: every UI string lives in static/i18n/<lang>.json.
//
// The language is the one remembered in localStorage, else the browser's first
// supported language, else English. Strings take {name} placeholders.

export const LANGUAGES = {
  en: "English",
  de: "Deutsch",
  it: "Italiano",
  hi: "हिन्दी",
  zh: "中文",
};
const STORAGE_KEY = "414.lang";
const FALLBACK = "en";

let strings = {};
let fallbackStrings = {};
let current = FALLBACK;
const listeners = new Set();

function staticBase() {
  // i18n.js sits in the static directory: the JSON files are beside it.
  return new URL("./i18n/", import.meta.url);
}

async function load(lang) {
  const response = await fetch(new URL(`${lang}.json`, staticBase()));
  if (!response.ok) throw new Error(`cannot load translations for ${lang}`);
  return response.json();
}

/** The language to start with: remembered, else the browser's, else English. */
export function preferredLanguage() {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (saved && saved in LANGUAGES) return saved;
  for (const tag of navigator.languages || [navigator.language || ""]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base in LANGUAGES) return base;
  }
  return FALLBACK;
}

export function language() {
  return current;
}

/** Switch language (and remember it); re-translates the page and tells listeners. */
export async function setLanguage(lang, { remember = true } = {}) {
  if (!(lang in LANGUAGES)) lang = FALLBACK;
  if (!Object.keys(fallbackStrings).length) fallbackStrings = await load(FALLBACK);
  strings = lang === FALLBACK ? fallbackStrings : await load(lang);
  current = lang;
  if (remember) localStorage.setItem(STORAGE_KEY, lang);
  document.documentElement.lang = lang;
  translatePage(document);
  for (const listener of listeners) listener(lang);
}

export function onLanguageChange(listener) {
  listeners.add(listener);
}

/**
 * The string for `key` with {placeholders} filled in; the key itself if missing. A count
 * `n` picks the language's plural form where one is given: `key_one` ("1 spettatore")
 * before `key` ("{n} spettatori"), by the language's plural rules.
 */
export function t(key, params = {}) {
  // (The form of the language shown only: another language's forms follow other rules.)
  const form = typeof params.n === "number" ? strings[`${key}_${new Intl.PluralRules(current).select(params.n)}`] : null;
  const text = form ?? strings[key] ?? fallbackStrings[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) =>
    name in params ? String(params[name]) : whole,
  );
}

/** Fill elements marked data-i18n (text), -placeholder, -title (also its accessible
 * name) and -label (the accessible name only). */
export function translatePage(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
  for (const el of root.querySelectorAll("[data-i18n-title]")) {
    el.title = t(el.dataset.i18nTitle);
    el.setAttribute("aria-label", el.title);
  }
  for (const el of root.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
}
