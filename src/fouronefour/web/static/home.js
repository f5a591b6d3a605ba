// Home: pick a name, create a table or join one by its code.

import { fillBotPicker } from "./botpicker.js";
import { t } from "./i18n.js";
import { api } from "./net.js";
import { $, showScreen } from "./dom.js";
import { storage } from "./storage.js";
import { onProfileChange, seatName } from "./profile.js";
import { showError } from "./toast.js";
import { setBaseTitle } from "./alerts.js";

let enterTable = null; // (code) => void, from app.js
let config = null;

function readCreateForm() {
  const form = $("create-form");
  const data = new FormData(form);
  const options = {
    name: $("name-input").value.trim(),
    players: Number(data.get("players")),
    hooking: form.elements.hooking.checked,
    tribute: form.elements.tribute.checked,
    bomb_ladder: data.get("bomb_ladder"),
    turn_seconds: Number(data.get("turn_seconds")),
    hook_mode: data.get("hook_windows"),
    bot: data.get("bot"),
    private: form.elements.private.checked,
    seat: 0,
  };
  const decks = data.get("decks");
  options.decks = decks ? Number(decks) : null;
  if (form.elements.rated.checked) {
    // A rated table plays the standard rules for its player count: the server sets them.
    options.rated = true;
    for (const rule of RULES) delete options[rule];
  }
  return options;
}

/** The rules a rated table does not choose (docs/protocol.md, POST /api/tables). */
const RULES = ["decks", "hooking", "tribute", "bomb_ladder"];

function showRated() {
  const form = $("create-form").elements;
  for (const rule of RULES) form[rule].disabled = form.rated.checked;
}

async function createTable(event) {
  event.preventDefault();
  const nameInput = $("name-input");
  if (!nameInput.value.trim()) {
    nameInput.focus();
    nameInput.reportValidity();
    return;
  }
  storage.setName(nameInput.value.trim());
  const submit = event.submitter || $("create-form").querySelector("[type=submit]");
  submit.disabled = true;
  try {
    const created = await api.createTable(readCreateForm());
    storage.setSeat(created.code, created.seat, created.token);
    if (created.invite) storage.setInvite(created.code, created.invite);
    history.pushState(null, "", created.link || `/t/${created.code}`);
    enterTable(created.code);
  } catch (error) {
    showError(error);
  } finally {
    submit.disabled = false;
  }
}

function joinByCode(event) {
  event.preventDefault();
  const typed = $("join-code").value.trim();
  // A whole invite link may be pasted too: a private table's needs its #invite=... part.
  const link = typed.match(/\/t\/([A-Za-z0-9]+)\/?(#\S*)?$/);
  const code = (link ? link[1] : typed).toUpperCase();
  if (!code) return;
  const name = $("name-input").value.trim();
  if (name) storage.setName(name);
  history.pushState(null, "", `/t/${code}${link && link[2] ? link[2] : ""}`);
  enterTable(code);
}

/** The bot picker offers the levels and bots the server has, by their translated names. */
function renderBotPicker() {
  if (!config) return;
  const select = $("create-form").elements.bot;
  fillBotPicker(select, config, select.value || config.default_bot);
}

function option(value, text) {
  const element = document.createElement("option");
  element.value = String(value);
  element.textContent = text;
  return element;
}

/** Replace a select's options by `values` (labelled by `label(value)`), keeping its choice. */
function offer(select, values, label, chosen) {
  select.replaceChildren(...values.map((value) => option(value, label(value))));
  if (values.map(String).includes(String(chosen))) select.value = String(chosen);
}

/**
 * The create form offers what the server accepts, from GET /api/config: the seats and
 * decks within its limits, its bomb ladders and hook windows, its defaults chosen.
 */
function renderRuleOptions() {
  const form = $("create-form").elements;
  const limits = config.limits || {};
  const choices = config.choices || {};
  const defaults = config.defaults || {};
  if (limits.min_players) form.players.min = limits.min_players;
  if (limits.max_players) form.players.max = limits.max_players;
  if (limits.max_decks) {
    const decks = Array.from({ length: limits.max_decks }, (_, i) => i + 1);
    const chosen = form.decks.value;
    form.decks.replaceChildren(option("", t("decks_auto")), ...decks.map((n) => option(n, String(n))));
    form.decks.value = decks.map(String).includes(chosen) ? chosen : "";
  }
  if (choices.bomb_ladder) {
    const chosen = form.bomb_ladder.value || defaults.bomb_ladder;
    offer(form.bomb_ladder, choices.bomb_ladder, (v) => t(`ladder_${v}`), chosen);
  }
  if (choices.hook_mode) {
    const chosen = form.hook_windows.value || defaults.hook_mode;
    offer(form.hook_windows, choices.hook_mode, (v) => t(`windows_${v}`), chosen);
  }
}

function applyDefaults() {
  const form = $("create-form").elements;
  const defaults = config.defaults || {};
  if (typeof defaults.players === "number") form.players.value = defaults.players;
  if (typeof defaults.hooking === "boolean") form.hooking.checked = defaults.hooking;
  if (typeof defaults.tribute === "boolean") form.tribute.checked = defaults.tribute;
  if (typeof defaults.private === "boolean") form.private.checked = defaults.private;
  if (defaults.bomb_ladder) form.bomb_ladder.value = defaults.bomb_ladder;
  if (defaults.hook_mode) form.hook_windows.value = defaults.hook_mode;
  if (typeof defaults.turn_seconds === "number") {
    const timer = form.turn_seconds;
    const seconds = String(defaults.turn_seconds);
    // the server's default turn timer is offered even when it is none of the usual ones
    if (![...timer.options].some((o) => o.value === seconds)) timer.append(option(seconds, `${seconds} s`));
    timer.value = seconds;
  }
}

function applyConfig(loaded) {
  config = loaded;
  renderBotPicker();
  renderRuleOptions();
  applyDefaults();
}

export function showHome() {
  setBaseTitle("414");
  showScreen("screen-home");
  $("topbar-info").textContent = "";
  $("name-input").value = seatName();
}

export function retranslateHome() {
  renderBotPicker();
  if (config) renderRuleOptions();
}

/** Wire the home screen; `enter(code)` opens a table. */
export function initHome(enter) {
  enterTable = enter;
  $("create-form").addEventListener("submit", createTable);
  $("create-form").elements.rated.addEventListener("change", showRated);
  $("join-form").addEventListener("submit", joinByCode);
  $("name-form").addEventListener("submit", (event) => event.preventDefault());
  api.config().then(applyConfig, () => {});
  // (the profile answers after the first paint: its name, if the field is still empty)
  onProfileChange(() => {
    if (!$("name-input").value) $("name-input").value = seatName();
  });
}
