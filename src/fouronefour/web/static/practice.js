// Practice: one click from home to a table with three bots at a chosen level. The table is
// created over HTTP, then filled with bots and started over its WebSocket as soon as the
// host's connection has its first snapshot (docs/protocol.md sections 2 and 3).

import { fillBotPicker } from "./botpicker.js";
import { t } from "./i18n.js";
import { api } from "./net.js";
import { $ } from "./dom.js";
import { storage } from "./storage.js";
import { onChange, request } from "./session.js";
import { showError } from "./toast.js";

const BOT_KEY = "414.practice.bot";

let enterTable = null; // (code) => void, from app.js
// what is offered until the server's config arrives: the levels, as the create form does
const LEVELS = ["beginner", "casual", "strong", "expert"];
let config = { bots: LEVELS, levels: LEVELS.map((name) => ({ name })), default_bot: "strong" };
let picked = null; // what the person picked here, if anything
let pending = null; // the code of the practice table to fill and start

function renderBotPicker() {
  // the level last practised against, else what is picked now, else the server's default
  fillBotPicker($("practice-bot"), config, localStorage.getItem(BOT_KEY) || picked);
}

async function startPractice(event) {
  event.preventDefault();
  const bot = $("practice-bot").value;
  localStorage.setItem(BOT_KEY, bot);
  const typed = $("name-input").value.trim();
  const name = typed || storage.name() || t("practice_name");
  const submit = $("practice-start");
  submit.disabled = true;
  try {
    const created = await api.createTable({
      name,
      seat: 0,
      players: 4,
      bot,
      hook_mode: "fast", // nothing to hide from bots: no pause after every single card
      turn_seconds: 300,
    });
    storage.setSeat(created.code, created.seat, created.token);
    pending = created.code;
    history.pushState(null, "", created.link || `/t/${created.code}`);
    enterTable(created.code);
  } catch (error) {
    showError(error);
  } finally {
    submit.disabled = false;
  }
}

/** Once the practice table's host is connected in the lobby: bots in, and start. */
async function fillAndStart(previous, next, message) {
  if (!pending || next.code !== pending || message.type !== "snapshot") return;
  if (!next.host || !next.table || next.table.status !== "lobby") return;
  pending = null;
  try {
    await request({ type: "fill_bots" });
    await request({ type: "start" });
  } catch (error) {
    showError(error);
  }
}

export function retranslatePractice() {
  renderBotPicker();
}

/** Wire the Practice button; `enter(code)` opens a table. */
export function initPractice(enter) {
  enterTable = enter;
  $("practice-form").addEventListener("submit", startPractice);
  onChange(fillAndStart);
  renderBotPicker();
  $("practice-bot").addEventListener("change", (event) => {
    picked = event.target.value;
  });
  api.config().then((answer) => {
    config = answer;
    renderBotPicker();
  }, () => {});
}
