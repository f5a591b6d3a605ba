// The player's profile (docs/players.md): the avatar and name in the top bar and its menu,
// the profile page (own, #me, or anyone's, #player/ID) with the rating, its chart and the
// stats, the settings and account (#me/account: name, avatar, language, claim, sign-in,
// another device, passkeys, sign-out, export, deletion), My games (#games) and the
// leaderboards (#leaderboard).
//
// The server serves the page at "/" only (and at a table's link), so these pages are the
// hash of "/". The session is an HttpOnly cookie the script never sees; net.js sends the
// readable CSRF cookie back as a header. Names are other people's text: always textContent.

import * as i18n from "./i18n.js";
import { t } from "./i18n.js";
import { api, ApiError } from "./net.js";
import { $, el, showScreen } from "./dom.js";
import { openMatchReplay } from "./replay.js";
import { showProfileActions } from "./friends.js";
import { showError, toast } from "./toast.js";
import { paintPush } from "./push.js";
import { storage } from "./storage.js";

/** The built-in avatars (docs/players.md, "Avatar"); the client draws them. */
export const AVATARS = {
  fox: ["🦊", "#f08c3a"],
  owl: ["🦉", "#8d6e63"],
  cat: ["🐱", "#f4b942"],
  panda: ["🐼", "#90a4ae"],
  tiger: ["🐯", "#ff9800"],
  crane: ["🕊️", "#4fc3f7"],
  dragon: ["🐉", "#43a047"],
  rabbit: ["🐰", "#f48fb1"],
  bear: ["🐻", "#a1887f"],
  koi: ["🐟", "#ef5350"],
  turtle: ["🐢", "#66bb6a"],
  horse: ["🐴", "#bcaaa4"],
  monkey: ["🐵", "#d7a86e"],
  rooster: ["🐓", "#e57373"],
  dog: ["🐶", "#ffb74d"],
  ox: ["🐂", "#795548"],
};
/** What the server calls a deleted profile's seat in a history (players/values.py). */

let me = null; // the profile as its player sees it, once GET /api/me answered
let go = null; // (path) => void: show another page of the app (from app.js)
let shownPlayer = null; // the profile page's player id, while it is shown
let games = { list: [], next: null }; // My games, as far as loaded
let board = "all";
let deviceTimer = null;
const listeners = [];

/** The profile of this browser (null until loaded, or when the server has no players). */
export function currentProfile() {
  return me;
}

/** The name a seat starts with on this browser: the one typed last, else a claimed
 * profile's display name (a guest's "Player 1234" is no name its player chose). */
export function seatName() {
  return storage.name() || (me && me.claimed ? me.name : "");
}

export function onProfileChange(listener) {
  listeners.push(listener);
}

function setMe(profile) {
  me = profile;
  paintMe();
  for (const listener of listeners) listener(me);
}

let colourEmoji = null; // whether this device draws emoji in colour (tested once)

/** Whether the device has a colour emoji font: without one an animal would be a box, and
 * the avatar shows the initial of its name instead. */
function emojiDrawn() {
  if (colourEmoji === null) {
    colourEmoji = false;
    try {
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = 24;
      const context = canvas.getContext("2d", { willReadFrequently: true });
      context.font = "20px 'Noto Color Emoji', 'Apple Color Emoji', 'Segoe UI Emoji', sans-serif";
      context.textBaseline = "top";
      context.fillStyle = "#000";
      context.fillText("🦊", 0, 0);
      const pixels = context.getImageData(0, 0, 24, 24).data;
      for (let i = 0; i < pixels.length && !colourEmoji; i += 4) {
        colourEmoji = pixels[i + 3] > 0 && (pixels[i] !== pixels[i + 1] || pixels[i + 1] !== pixels[i + 2]);
      }
    } catch {
      colourEmoji = false;
    }
  }
  return colourEmoji;
}

/** Draw `avatar` into `node`: its animal on its colour (the name as its accessible label). */
export function drawAvatar(node, avatar) {
  const [emoji, colour] = AVATARS[avatar] || [avatar ? "?" : "", "#9e9e9e"];
  const glyph = emojiDrawn() || !AVATARS[avatar] ? emoji : Array.from(t(`avatar_${avatar}`))[0];
  node.classList.toggle("avatar-letter", glyph !== emoji);
  node.textContent = glyph;
  node.style.background = colour;
  node.dataset.avatar = avatar || "";
}

function avatarNode(avatar, className = "avatar") {
  const node = el("span", className);
  node.setAttribute("aria-hidden", "true");
  drawAvatar(node, avatar);
  return node;
}

function fixed(x, digits = 1) {
  return Number(x).toLocaleString(i18n.language(), { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function signed(x) {
  const text = fixed(Math.abs(x));
  if (Math.abs(x) < 0.05) return `±${fixed(0)}`;
  return x > 0 ? `+${text}` : `−${text}`;
}

function percent(x) {
  return x === null || x === undefined ? "–" : `${Math.round(x * 100)}%`;
}

/** A name: the player's page when it is a live profile's, plain text otherwise; a deleted
 * profile's (``former``, said by the server) in the page's language. */
function nameNode(name, playerId, className = "player-name", former = false) {
  const text = former ? t("former_player") : name;
  if (!playerId || former) return el("span", className, text);
  const link = el("a", className, text);
  link.href = `/#player/${encodeURIComponent(playerId)}`;
  link.dataset.meLink = "";
  return link;
}

/** Say what went wrong; a session that ended elsewhere (signed out everywhere, a password
 * changed on another device) leaves this browser a new guest at once. */
function failed(error) {
  showError(error);
  if (error instanceof ApiError && error.code === "no_session") {
    me = null;
    loadMe().then(() => {
      if (document.body.dataset.screen === "account") paintAccount();
    });
  }
}

// ------------------------------------------------------------------ top bar and menu

function paintMe() {
  const button = $("me-button");
  button.hidden = !me;
  if (!me) return;
  drawAvatar($("me-avatar"), me.avatar);
  $("me-name").textContent = me.name;
  button.title = me.name;
  button.setAttribute("aria-label", t("me_menu_label", { name: me.name }));
  drawAvatar($("me-menu-avatar"), me.avatar);
  $("me-menu-name").textContent = me.name;
  $("me-menu-status").textContent = me.claimed ? t("signed_in_as", { username: me.username }) : t("guest_status");
}

function openMenu(open) {
  $("me-menu").hidden = !open;
  $("me-button").setAttribute("aria-expanded", String(open));
  if (open) $("me-menu").querySelector("a").focus();
}

// ------------------------------------------------------------------ routes

/** The profile page the location names (`{view, id}`), or null for none. */
export function profileRoute() {
  if (location.pathname !== "/") return null;
  const hash = location.hash.replace(/^#/, "");
  if (hash === "me") return { view: "me" };
  if (hash === "me/account") return { view: "account" };
  if (hash === "games") return { view: "games" };
  if (hash === "leaderboard") return { view: "leaderboard" };
  const player = hash.match(/^player\/([A-Za-z0-9_-]{1,64})$/);
  if (player) return { view: "player", id: player[1] };
  return null;
}

/** Show the page `route` names (from profileRoute). */
export async function showProfileRoute(route) {
  openMenu(false);
  stopDeviceCode();
  if (!me) await loadMe();
  if (route.view === "account") {
    showScreen("screen-account");
    paintAccount();
  } else if (route.view === "games") {
    showScreen("screen-games");
    await loadGames(true);
  } else if (route.view === "leaderboard") {
    showScreen("screen-leaderboard");
    await loadBoard();
  } else {
    showScreen("screen-profile");
    await showPlayer(route.view === "me" ? me && me.id : route.id);
  }
}

function retranslateRoute() {
  const route = profileRoute();
  const screen = document.body.dataset.screen;
  if (!route || !["profile", "account", "games", "leaderboard"].includes(screen)) return;
  if (screen === "games") renderGames();
  else if (screen === "leaderboard") loadBoard();
  else if (screen === "profile") showPlayer(shownPlayer);
  else paintAccount();
}

// ------------------------------------------------------------------ profile page

async function showPlayer(id) {
  shownPlayer = id;
  if (!id) return;
  const own = me && id === me.id;
  showProfileActions(id, own);
  $("profile-account").hidden = !own;
  $("profile-games").hidden = !own;
  // Nothing of the page shown before stays while this one loads (or if it cannot).
  for (const part of ["profile-name", "profile-kind", "profile-ordinal", "profile-uncertainty", "profile-rank"]) {
    $(part).textContent = "";
  }
  $("profile-provisional").hidden = true;
  $("profile-stats").replaceChildren();
  $("profile-partners").replaceChildren();
  $("profile-opponents").replaceChildren();
  $("profile-chart").replaceChildren();
  drawAvatar($("profile-avatar"), null);
  let player;
  try {
    player = (await api.player(id)).player;
  } catch (error) {
    failed(error);
    return;
  }
  if (shownPlayer !== id) return;
  drawAvatar($("profile-avatar"), player.avatar);
  $("profile-name").textContent = player.name;
  $("profile-kind").textContent = own ? (me.claimed ? t("signed_in_as", { username: me.username }) : t("guest_status")) : "";
  const rating = player.rating;
  $("profile-ordinal").textContent = fixed(rating.ordinal);
  $("profile-uncertainty").textContent = t("rating_uncertainty", { mu: fixed(rating.mu), sigma: fixed(rating.sigma) });
  $("profile-provisional").hidden = !rating.provisional;
  $("profile-provisional").textContent = t("provisional", { n: rating.matches });
  $("profile-rank").textContent = player.rank ? t("rank_n", { n: player.rank }) : "";
  renderStats(player.stats);
  try {
    const answer = await api.ratings(id);
    if (shownPlayer === id) renderChart(answer.ratings);
  } catch (error) {
    failed(error);
  }
}

function renderStats(stats) {
  const rows = [
    ["stats_matches", String(stats.matches)],
    ["stats_wins", String(stats.wins)],
    ["stats_win_rate", percent(stats.win_rate)],
    ["stats_rated", String(stats.rated_matches)],
    ["stats_rounds", String(stats.rounds)],
    ["stats_average_place", stats.average_place === null ? "–" : fixed(stats.average_place)],
    ["stats_accuracy", stats.analysed_matches ? `${percent(stats.accuracy)} (${t("stats_analysed", { n: stats.analysed_matches })})` : "–"],
    ["stats_levels_climbed", String(stats.levels_climbed ?? 0)],
    ["stats_bombs", String(stats.bombs ?? 0)],
    ["stats_four_four_a", String(stats.four_four_a ?? 0)],
    ["stats_hooks_made", String(stats.hooks_made ?? 0)],
    ["stats_hooks_suffered", String(stats.hooks_suffered ?? 0)],
    ["stats_tribute_paid", String(stats.tribute_paid ?? 0)],
    ["stats_tribute_received", String(stats.tribute_received ?? 0)],
  ];
  $("profile-stats").replaceChildren(
    ...rows.map(([key, value]) => {
      const pair = el("div", "stat");
      const data = el("dd", null, value);
      data.dataset.stat = key;
      pair.append(el("dt", null, t(key)), data);
      return pair;
    }),
  );
  for (const [id, tallies] of [["profile-partners", stats.partners], ["profile-opponents", stats.opponents]]) {
    const table = $(id);
    if (!tallies.length) {
      table.replaceChildren(el("caption", "hint-text", t("stats_none")));
      continue;
    }
    const head = el("tr");
    head.append(el("th", null, t("player")), el("th", null, t("stats_matches")), el("th", null, t("stats_win_rate")));
    table.replaceChildren(
      el("thead"),
      el("tbody"),
    );
    table.tHead.append(head);
    for (const tally of tallies) {
      const row = el("tr");
      const cell = el("td");
      cell.append(nameNode(tally.name, tally.player, "player-name", tally.former));
      row.append(cell, el("td", null, String(tally.matches)), el("td", null, percent(tally.win_rate)));
      table.tBodies[0].append(row);
    }
  }
}

/** The rating (ordinal) after each rated match, oldest first (GET
 * /api/players/{id}/ratings), as an inline SVG line from the newcomer's rating. */
function renderChart(ratings) {
  const box = $("profile-chart");
  if (!ratings.length) {
    box.replaceChildren(el("p", "hint-text", t("chart_empty")));
    return;
  }
  const points = ratings.map((rating) => rating.ordinal);
  // (a single match: drawn from where a newcomer starts, mu 25 and sigma 25/3, ordinal 0)
  if (points.length === 1) points.unshift(0);
  const low = Math.floor(Math.min(...points));
  const high = Math.ceil(Math.max(...points, low + 1));
  const width = 320;
  const height = 120;
  const pad = { left: 34, right: 8, top: 8, bottom: 18 };
  const x = (i) => pad.left + (i * (width - pad.left - pad.right)) / Math.max(points.length - 1, 1);
  const y = (v) => pad.top + ((high - v) * (height - pad.top - pad.bottom)) / (high - low);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("chart_label", { n: ratings.length, from: fixed(points[0]), to: fixed(points[points.length - 1]) }));
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  for (const v of [low, high]) {
    add("line", { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: "chart-grid" });
    add("text", { x: pad.left - 4, y: y(v) + 4, "text-anchor": "end", class: "chart-axis" }, String(v));
  }
  const day = (ms) => new Intl.DateTimeFormat(i18n.language(), { dateStyle: "short" }).format(new Date(ms));
  const first = ratings.length === 1 ? t("chart_start") : day(ratings[0].at);
  add("text", { x: pad.left, y: height - 4, class: "chart-axis" }, first);
  add("text", { x: width - pad.right, y: height - 4, "text-anchor": "end", class: "chart-axis" }, day(ratings[ratings.length - 1].at));
  add("polyline", { points: points.map((v, i) => `${x(i)},${y(v)}`).join(" "), class: "chart-line" });
  points.forEach((v, i) => add("circle", { cx: x(i), cy: y(v), r: 2.5, class: "chart-dot" }));
  box.replaceChildren(svg);
}

// ------------------------------------------------------------------ My games

async function loadGames(fresh) {
  try {
    const page = await api.myGames(fresh ? null : games.next);
    games = { list: fresh ? page.games : [...games.list, ...page.games], next: page.next };
  } catch (error) {
    failed(error);
  }
  renderGames();
}

function dateText(ms) {
  return new Intl.DateTimeFormat(i18n.language(), { dateStyle: "medium", timeStyle: "short" }).format(new Date(ms));
}

function seatNode(seat) {
  const node = el("span", "game-seat");
  node.append(nameNode(seat.name, seat.player, "player-name", seat.former));
  if (seat.bot_level) node.append(el("span", "game-level", ` (${t(`bot_${seat.bot_level}`)})`));
  return node;
}

function renderGames() {
  const list = $("games-list");
  $("games-empty").hidden = games.list.length > 0;
  $("games-more").hidden = !games.next;
  list.replaceChildren(
    ...games.list.map((game) => {
      const item = el("li", "game-item");
      item.dataset.testid = "game-item";
      const head = el("div", "game-head");
      const result = el("strong", `game-result ${game.won ? "won" : "lost"}`, t(game.won ? "game_won" : "game_lost"));
      head.append(result);
      if (game.place) head.append(el("span", "game-place", t("game_place", { n: game.place })));
      const mySeat = game.seats.find((seat) => seat.seat === game.seat);
      if (mySeat && game.levels && game.levels[String(mySeat.team)]) {
        head.append(el("span", "game-levels", t("game_levels", { level: game.levels[String(mySeat.team)] })));
      }
      if (game.accuracy !== null && game.accuracy !== undefined) {
        const accuracy = el("span", "game-accuracy", t("game_accuracy", { n: percent(game.accuracy) }));
        accuracy.dataset.testid = "game-accuracy";
        head.append(accuracy);
      }
      head.append(el("span", "badge", t(game.rated ? "game_rated" : "game_casual")));
      if (game.rating_change) {
        const change = el("span", "game-change", signed(game.rating_change.ordinal));
        change.dataset.testid = "game-change";
        change.title = t("rating");
        head.append(change);
      }
      const mine = game.seats.find((seat) => seat.seat === game.seat);
      const team = mine ? mine.team : null;
      const others = game.seats.filter((seat) => seat.seat !== game.seat);
      const partners = others.filter((seat) => seat.team === team);
      const opponents = others.filter((seat) => seat.team !== team);
      const who = el("dl", "game-who");
      for (const [key, seats] of [["game_partners", partners], ["game_opponents", opponents]]) {
        if (!seats.length) continue;
        const data = el("dd");
        seats.forEach((seat, i) => {
          if (i) data.append(", ");
          data.append(seatNode(seat));
        });
        who.append(el("dt", null, t(key)), data);
      }
      const foot = el("div", "game-foot");
      foot.append(el("span", "hint-text", `${dateText(game.finished_at)} · ${t("game_rounds", { n: game.rounds })} · ${game.code}`));
      const replay = el("button", "btn btn-small", t("game_replay"));
      replay.type = "button";
      replay.dataset.testid = "game-replay";
      replay.addEventListener("click", () => openMatchReplay(game.code, game.match, "screen-games"));
      foot.append(replay);
      item.append(head, who, foot);
      return item;
    }),
  );
}

// ------------------------------------------------------------------ leaderboards

async function loadBoard() {
  $("board-all").setAttribute("aria-pressed", String(board === "all"));
  $("board-played").setAttribute("aria-pressed", String(board === "played"));
  let answer;
  try {
    answer = await api.leaderboard(board);
  } catch (error) {
    failed(error);
    return;
  }
  const rows = answer.rows;
  $("board-empty").hidden = rows.length > 0;
  const rank = board === "all" ? answer.your_rank : (rows.find((row) => me && row.player === me.id) || {}).rank;
  $("board-rank").textContent = rank ? t("your_rank", { n: rank }) : me && me.rating.provisional ? t("your_rank_provisional") : "";
  $("board-rows").replaceChildren(
    ...rows.map((row) => {
      const item = el("li", "board-row");
      item.dataset.testid = "board-row";
      item.classList.toggle("mine", Boolean(me && row.player === me.id));
      item.append(el("span", "board-place", String(row.rank)), avatarNode(row.avatar), nameNode(row.name, row.player));
      const rating = el("span", "board-rating", fixed(row.rating.ordinal));
      rating.title = t("rating_uncertainty", { mu: fixed(row.rating.mu), sigma: fixed(row.rating.sigma) });
      item.append(rating);
      return item;
    }),
  );
}

// ------------------------------------------------------------------ settings and account

function paintAccount() {
  if (!me) return;
  const form = $("edit-form");
  if (document.activeElement !== $("edit-name")) $("edit-name").value = me.name;
  form.dataset.avatar = me.avatar;
  for (const option of $("avatar-grid").children) {
    const picked = option.dataset.avatar === me.avatar;
    option.setAttribute("aria-checked", String(picked));
    option.tabIndex = picked ? 0 : -1;
    drawAvatar(option.firstChild, option.dataset.avatar); // (its initial follows the language)
    option.setAttribute("aria-label", t(`avatar_${option.dataset.avatar}`));
    option.title = option.getAttribute("aria-label");
  }
  $("edit-language").value = me.language || i18n.language();
  $("claim-form").hidden = me.claimed;
  $("password-form").hidden = !me.claimed;
  $("signout-all").hidden = !me.claimed;
  // A guest who signs out loses the profile: only a claimed one may sign out here.
  $("signout").hidden = !me.claimed;
  $("signout-guest-note").hidden = me.claimed;
  loadDevices();
  paintPush();
  const passkeys = passkeysPossible();
  $("passkey-add").hidden = !passkeys;
  $("passkey-signin").hidden = !passkeys;
  $("passkey-note").hidden = passkeys;
}

function fillAvatarGrid() {
  const grid = $("avatar-grid");
  grid.setAttribute("role", "radiogroup");
  for (const name of Object.keys(AVATARS)) {
    const option = el("button", "avatar-option");
    option.type = "button";
    option.setAttribute("role", "radio");
    option.dataset.avatar = name;
    option.dataset.testid = `avatar-${name}`;
    option.append(avatarNode(name));
    option.addEventListener("click", () => pickAvatar(name));
    grid.append(option);
  }
  grid.addEventListener("keydown", (event) => {
    const keys = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    if (!(event.key in keys)) return;
    event.preventDefault();
    const names = Object.keys(AVATARS);
    const at = names.indexOf($("edit-form").dataset.avatar);
    const next = names[(at + keys[event.key] + names.length) % names.length];
    pickAvatar(next);
    grid.querySelector(`[data-avatar="${next}"]`).focus();
  });
}

function pickAvatar(name) {
  $("edit-form").dataset.avatar = name;
  for (const option of $("avatar-grid").children) {
    const picked = option.dataset.avatar === name;
    option.setAttribute("aria-checked", String(picked));
    option.tabIndex = picked ? 0 : -1;
  }
}

async function saveEdit(event) {
  event.preventDefault();
  const change = {};
  const name = $("edit-name").value.trim();
  if (name !== me.name) change.name = name;
  if ($("edit-form").dataset.avatar !== me.avatar) change.avatar = $("edit-form").dataset.avatar;
  const language = $("edit-language").value;
  if (language !== me.language) change.language = language;
  if (!Object.keys(change).length) return;
  try {
    setMe((await api.updateMe(change)).profile);
    if (change.language) await i18n.setLanguage(change.language);
    toast("saved");
  } catch (error) {
    failed(error);
  }
}

/** After a sign-in of any kind: the new profile, its language, its profile page. */
async function signedIn(answer) {
  stopDeviceCode();
  setMe(answer.profile);
  if (answer.profile.language && answer.profile.language !== i18n.language()) {
    await i18n.setLanguage(answer.profile.language);
  }
  go("/#me");
  toast("signed_in", { name: answer.profile.name }); // (after the route, which clears toasts)
}

/** Run a form's request with its submit button disabled. */
function submitting(form, work) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const buttons = form.querySelectorAll("button");
    for (const b of buttons) b.disabled = true;
    try {
      await work();
    } catch (error) {
      failed(error);
    } finally {
      for (const b of buttons) b.disabled = false;
    }
  });
}

/** After a sign-out or deletion: a new guest (this browser always has a profile), home,
 * and the toast `key` (after the route, which clears toasts). */
async function signedOut(key, params = {}) {
  stopDeviceCode();
  me = null;
  await loadMe();
  go("/");
  toast(key, params);
}

// ------------------------------------------------------------------ devices

const HOW = new Set(["guest", "claim", "password", "password_change", "device", "passkey"]);

/** The profile's sessions (its signed-in browsers), each but this one with a sign-out. */
async function loadDevices() {
  let answer;
  try {
    answer = await api.sessions();
  } catch (error) {
    failed(error);
    return;
  }
  const list = $("devices-list");
  list.replaceChildren(
    ...answer.sessions.map((one) => {
      const item = el("li", "device-item");
      item.dataset.testid = "device-item";
      const how = HOW.has(one.how) ? t(`how_${one.how}`) : one.how;
      const text = el("span", "device-text", t("device_since", { how, date: dateText(one.created_at) }));
      const used = el("span", "hint-text", t("device_used", { date: dateText(one.last_used) }));
      const words = el("div");
      words.append(text, used);
      item.append(words);
      if (one.current) item.append(el("span", "badge", t("device_this")));
      else {
        const end = el("button", "btn btn-small", t("signout"));
        end.type = "button";
        end.dataset.testid = "device-signout";
        end.addEventListener("click", async () => {
          try {
            await api.endSession(one.id);
            await loadDevices();
          } catch (error) {
            failed(error);
          }
        });
        item.append(end);
      }
      return item;
    }),
  );
}

// ------------------------------------------------------------------ another device

function stopDeviceCode() {
  clearInterval(deviceTimer);
  deviceTimer = null;
  const box = $("device-code-box");
  if (box) box.hidden = true;
}

async function showDeviceCode() {
  stopDeviceCode();
  let code;
  try {
    code = await api.deviceCode();
  } catch (error) {
    failed(error);
    return;
  }
  // The QR code is the server's own SVG of the code (segno): markup from our server, never
  // user content, parsed as SVG so that nothing in it could run.
  const svg = new DOMParser().parseFromString(code.qr_svg, "image/svg+xml").documentElement;
  const qr = $("device-qr");
  if (svg.nodeName.toLowerCase() === "svg") {
    // Shapes only: no script, no embedded HTML, no event handler (should the answer ever
    // carry one).
    for (const node of svg.querySelectorAll("script, foreignObject")) node.remove();
    for (const node of [svg, ...svg.querySelectorAll("*")]) {
      for (const attribute of [...node.attributes]) {
        if (/^on/i.test(attribute.name) || /^\s*javascript:/i.test(attribute.value)) node.removeAttribute(attribute.name);
      }
    }
    // Drawn at the size the page gives it: its own size becomes its view box.
    const width = parseFloat(svg.getAttribute("width"));
    const height = parseFloat(svg.getAttribute("height"));
    if (!svg.getAttribute("viewBox") && width && height) svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", t("device_qr_label"));
    qr.replaceChildren(document.importNode(svg, true));
  } else qr.replaceChildren();
  $("device-code").textContent = code.code;
  $("device-code-box").hidden = false;
  const tick = () => {
    const left = Math.max(0, Math.round((code.expires_at - Date.now()) / 1000));
    const minutes = Math.floor(left / 60);
    const seconds = String(left % 60).padStart(2, "0");
    $("device-countdown").textContent = left > 0 ? t("device_expires", { time: `${minutes}:${seconds}` }) : t("device_expired");
    if (left <= 0) {
      clearInterval(deviceTimer);
      deviceTimer = null;
      $("device-code").classList.add("expired");
    }
  };
  $("device-code").classList.remove("expired");
  tick();
  deviceTimer = setInterval(tick, 1000);
}

// ------------------------------------------------------------------ passkeys

function passkeysPossible() {
  // Browsers offer passkeys to pages over HTTPS or from localhost only (a secure context).
  return Boolean(window.isSecureContext && window.PublicKeyCredential && navigator.credentials);
}

function fromBase64url(text) {
  const plain = text.replace(/-/g, "+").replace(/_/g, "/");
  const bytes = atob(plain + "=".repeat((4 - (plain.length % 4)) % 4));
  return Uint8Array.from(bytes, (c) => c.charCodeAt(0)).buffer;
}

function toBase64url(buffer) {
  const bytes = new Uint8Array(buffer);
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function creationOptions(json) {
  if (PublicKeyCredential.parseCreationOptionsFromJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  return {
    ...json,
    challenge: fromBase64url(json.challenge),
    user: { ...json.user, id: fromBase64url(json.user.id) },
    excludeCredentials: (json.excludeCredentials || []).map((c) => ({ ...c, id: fromBase64url(c.id) })),
  };
}

function requestOptions(json) {
  if (PublicKeyCredential.parseRequestOptionsFromJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  return {
    ...json,
    challenge: fromBase64url(json.challenge),
    allowCredentials: (json.allowCredentials || []).map((c) => ({ ...c, id: fromBase64url(c.id) })),
  };
}

/** A PublicKeyCredential as the JSON the server reads (WebAuthn's toJSON). */
function credentialJson(credential) {
  if (typeof credential.toJSON === "function") return credential.toJSON();
  const response = {};
  for (const key of ["clientDataJSON", "attestationObject", "authenticatorData", "signature", "userHandle"]) {
    if (credential.response[key]) response[key] = toBase64url(credential.response[key]);
  }
  if (credential.response.getTransports) response.transports = credential.response.getTransports();
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    response,
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
  };
}

async function addPasskey() {
  try {
    const { options } = await api.passkeyOptions();
    const credential = await navigator.credentials.create({ publicKey: creationOptions(options) });
    await api.addPasskey(credentialJson(credential));
    toast("passkey_added");
  } catch (error) {
    passkeyFailed(error);
  }
}

async function passkeySignIn() {
  try {
    const { options } = await api.passkeySignInOptions();
    const credential = await navigator.credentials.get({ publicKey: requestOptions(options) });
    await signedIn(await api.passkeySignIn(credentialJson(credential)));
  } catch (error) {
    passkeyFailed(error);
  }
}

function passkeyFailed(error) {
  // The person closed the browser's own dialog: nothing to say.
  if (error && error.name === "NotAllowedError") return;
  if (error instanceof ApiError) failed(error);
  else toast("passkey_failed", {}, { error: true });
}

// ------------------------------------------------------------------ start

let loading = null; // the GET /api/me under way: one at a time (two would make two guests)

/** GET /api/me: this browser's profile (a guest on the first visit, no form). */
export function loadMe() {
  if (!loading) {
    loading = api.me().then(
      (answer) => setMe(answer.profile),
      // No players' room on this server (or its database away): the app works without.
      () => setMe(null),
    ).finally(() => {
      loading = null;
    });
  }
  return loading;
}

/** This browser's profile once GET /api/me has answered (null: none on this server). */
export async function profileLoaded() {
  if (loading) await loading;
  return me;
}

function fillLanguages() {
  const select = $("edit-language");
  for (const [code, name] of Object.entries(i18n.LANGUAGES)) {
    const option = document.createElement("option");
    option.value = code;
    option.textContent = name;
    select.append(option);
  }
}

/** Wire the profile's controls; `navigate(path)` shows another page of the app. */
export function initProfile(navigate) {
  go = navigate;
  fillAvatarGrid();
  fillLanguages();
  $("me-button").addEventListener("click", () => openMenu($("me-menu").hidden));
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-me-link]");
    if (link) {
      event.preventDefault();
      openMenu(false);
      go(link.getAttribute("href"));
      return;
    }
    if (!$("me-menu").hidden && !event.target.closest("#me-menu, #me-button")) openMenu(false);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !$("me-menu").hidden) {
      openMenu(false);
      $("me-button").focus();
    }
  });
  $("edit-form").addEventListener("submit", saveEdit);
  submitting($("claim-form"), async () => {
    const answer = await api.claimProfile($("claim-username").value.trim(), $("claim-password").value);
    $("claim-password").value = "";
    setMe(answer.profile);
    paintAccount();
    toast("claimed");
  });
  submitting($("password-form"), async () => {
    const answer = await api.changePassword($("password-old").value, $("password-new").value);
    $("password-old").value = "";
    $("password-new").value = "";
    setMe(answer.profile);
    toast("password_changed");
  });
  submitting($("signin-form"), async () => {
    const answer = await api.signIn($("signin-username").value.trim(), $("signin-password").value);
    $("signin-password").value = "";
    await signedIn(answer);
  });
  submitting($("code-form"), async () => {
    const answer = await api.redeemCode($("code-input").value.trim());
    $("code-input").value = "";
    await signedIn(answer);
  });
  $("device-show").addEventListener("click", showDeviceCode);
  $("passkey-add").addEventListener("click", addPasskey);
  $("passkey-signin").addEventListener("click", passkeySignIn);
  $("signout").addEventListener("click", async () => {
    try {
      await api.signOut();
      await signedOut("signed_out");
    } catch (error) {
      failed(error);
    }
  });
  $("signout-all").addEventListener("click", async () => {
    try {
      const answer = await api.signOutEverywhere();
      await signedOut("signed_out_all", { n: answer.sessions_ended });
    } catch (error) {
      failed(error);
    }
  });
  $("delete-me").addEventListener("click", () => {
    $("delete-confirm").hidden = false;
    $("delete-no").focus();
  });
  $("delete-no").addEventListener("click", () => {
    $("delete-confirm").hidden = true;
  });
  $("delete-yes").addEventListener("click", async () => {
    $("delete-confirm").hidden = true;
    try {
      await api.deleteMe();
      await signedOut("deleted");
    } catch (error) {
      failed(error);
    }
  });
  $("games-more").addEventListener("click", () => loadGames(false));
  for (const which of ["all", "played"]) {
    $(`board-${which}`).addEventListener("click", () => {
      board = which;
      loadBoard();
    });
  }
  i18n.onLanguageChange(() => {
    paintMe();
    retranslateRoute();
  });
}

/** The top bar's language picker changed the language: the profile keeps it too. */
export function rememberLanguage(language) {
  if (!me || me.language === language) return;
  api.updateMe({ language }).then((answer) => setMe(answer.profile), () => {});
}
