// Home: pick a name, create a table or join one by its code.

import { t } from "./i18n.js";
import { api } from "./net.js";
import { $, showScreen } from "./dom.js";
import { storage } from "./storage.js";
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
  return options;
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

/** The bot picker offers the bots the server has, by their translated names. */
function renderBotPicker() {
  if (!config) return;
  const select = $("create-form").elements.bot;
  const chosen = select.value || config.default_bot;
  select.replaceChildren(
    ...config.bots.map((name) => {
      const option = document.createElement("option");
      option.value = name;
      option.textContent = t(`bot_${name}`);
      return option;
    }),
  );
  select.value = config.bots.includes(chosen) ? chosen : config.default_bot || config.bots[0];
}

function applyConfig(loaded) {
  config = loaded;
  renderBotPicker();
  const limits = config.limits || {};
  const players = $("create-form").elements.players;
  if (limits.min_players) players.min = limits.min_players;
  if (limits.max_players) players.max = limits.max_players;
  const defaults = config.defaults || {};
  if (defaults.hook_mode) $("create-form").elements.hook_windows.value = defaults.hook_mode;
}

export function showHome() {
  setBaseTitle("414");
  showScreen("screen-home");
  $("topbar-info").textContent = "";
  $("name-input").value = storage.name();
}

export function retranslateHome() {
  renderBotPicker();
}

/** Wire the home screen; `enter(code)` opens a table. */
export function initHome(enter) {
  enterTable = enter;
  $("create-form").addEventListener("submit", createTable);
  $("join-form").addEventListener("submit", joinByCode);
  $("name-form").addEventListener("submit", (event) => event.preventDefault());
  api.config().then(applyConfig, () => {});
}
