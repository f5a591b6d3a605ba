// Clubs (docs/clubs.md): my clubs and a new one (/clubs), an invite link (/c/join#invite=),
// a club's page (/c/ID: the table link, members and their roles, the invite link, the
// admins' tools, the leaderboard, the history and the chat wall), and the club's table
// link (/c/ID/table), which seats this profile at the club's table of the evening.
//
// Club names and wall lines are other people's text: always textContent, never markup.

import * as i18n from "./i18n.js";
import { t } from "./i18n.js";
import { ApiError, request } from "./net.js";
import { $, button, el, showScreen } from "./dom.js";
import { storage } from "./storage.js";
import { currentProfile, drawAvatar, loadMe } from "./profile.js";
import { showError, toast } from "./toast.js";

let go = null; // (path) => void: another page of the app (pushState), from app.js
let replace = null; // (path) => void: the same, in place of this page (the table link)
let shown = null; // the club page's data while it is shown
let chatTimer = null;
let pendingInvite = null; // the invite of the /c/join page shown

/** The club API (net.js): the session is the HttpOnly cookie; changes send the CSRF header. */
const call = (method, path, body) => request(method, path, body);

const clubPath = (id) => `/api/clubs/${encodeURIComponent(id)}`;

/** The page the location names: {view: "list" | "join" | "club" | "table", id}, or null. */
export function clubRoute() {
  const path = location.pathname;
  if (path === "/clubs" || path === "/clubs/") return { view: "list" };
  if (path === "/c/join") return { view: "join" };
  const match = path.match(/^\/c\/([A-Za-z0-9_-]{1,64})(\/table)?\/?$/);
  if (!match) return null;
  return { view: match[2] ? "table" : "club", id: match[1] };
}

export async function showClubRoute(route) {
  stopChat();
  if (!currentProfile()) await loadMe();
  if (route.view === "table") return openTable(route.id);
  if (route.view === "club") return showClub(route.id);
  showScreen("screen-clubs");
  $("club-join-panel").hidden = true;
  if (route.view === "join") await showJoin();
  await loadList();
}

// ------------------------------------------------------------------ list and joining

async function loadList() {
  let answer;
  try {
    answer = await call("GET", "/api/clubs");
  } catch (error) {
    showError(error);
    return;
  }
  const list = $("clubs-list");
  list.replaceChildren();
  for (const club of answer.clubs) {
    const item = el("li", "club-item");
    const link = el("a", "club-link", club.name);
    link.href = `/c/${encodeURIComponent(club.id)}`;
    link.dataset.meLink = "";
    link.dataset.testid = "club-link";
    const about = el("span", "hint-text club-about", `${t(`club_role_${club.role}`)} · ${t("club_members_n", { n: club.members })}`);
    item.append(link, about);
    list.append(item);
  }
  $("clubs-none").hidden = answer.clubs.length > 0;
}

async function showJoin() {
  const match = location.hash.match(/invite=([A-Za-z0-9_-]{1,64})/);
  pendingInvite = match ? match[1] : null;
  if (!pendingInvite) return;
  try {
    const club = await call("POST", "/api/clubs/invite", { invite: pendingInvite });
    $("club-join-name").textContent = `${club.name} · ${t("club_members_n", { n: club.members })}`;
    $("club-join-panel").hidden = false;
  } catch (error) {
    showError(error);
  }
}

async function join() {
  try {
    const club = await call("POST", "/api/clubs/join", { invite: pendingInvite });
    go(`/c/${encodeURIComponent(club.id)}`);
  } catch (error) {
    if (error instanceof ApiError && error.code === "already_member") {
      const club = await call("POST", "/api/clubs/invite", { invite: pendingInvite }).catch(() => null);
      if (club) return go(`/c/${encodeURIComponent(club.id)}`);
    }
    showError(error);
  }
}

async function create(event) {
  event.preventDefault();
  const input = $("club-create-name");
  try {
    const club = await call("POST", "/api/clubs", { name: input.value });
    input.value = "";
    go(`/c/${encodeURIComponent(club.id)}`);
  } catch (error) {
    showError(error);
  }
}

// ------------------------------------------------------------------ the club's table

async function openTable(id) {
  showScreen("screen-clubs");
  toast("club_opening");
  try {
    const seat = await call("POST", `${clubPath(id)}/table`, {});
    storage.setInvite(seat.code, seat.invite);
    storage.setSeat(seat.code, seat.seat, seat.token);
    replace(`/t/${seat.code}#invite=${seat.invite}`);
  } catch (error) {
    replace(`/c/${encodeURIComponent(id)}`);
    showError(error); // (after the route, which clears toasts)
  }
}

// ------------------------------------------------------------------ one club

async function showClub(id) {
  showScreen("screen-club");
  try {
    shown = await call("GET", clubPath(id));
  } catch (error) {
    shown = null;
    showError(error);
    $("club-name").textContent = "";
    return;
  }
  paintClub();
  await Promise.all([loadBoard(), loadHistory(), loadChat()]);
  chatTimer = setInterval(() => {
    if (document.body.dataset.screen === "club" && !document.hidden) loadChat();
  }, 15000);
}

function stopChat() {
  clearInterval(chatTimer);
  chatTimer = null;
}

const RANK = { owner: 3, admin: 2, member: 1 };

function paintClub() {
  const club = shown;
  if (!club) return;
  $("club-name").textContent = club.name;
  $("club-role").textContent = `${t(`club_role_${club.role}`)} · ${t("club_members_n", { n: club.members.length })}`;
  const tablePath = `/c/${encodeURIComponent(club.id)}/table`;
  $("club-table").href = tablePath;
  $("club-events").href = `/c/${encodeURIComponent(club.id)}/events`; // (tournaments.js)
  $("club-invite").value = `${location.origin}/c/join#invite=${club.invite}`;
  const admin = RANK[club.role] >= RANK.admin;
  $("club-invite-new").hidden = !admin;
  $("club-settings").hidden = !admin;
  if (admin) {
    $("club-settings-name").value = club.name;
    $("club-settings-players").value = String(club.table_settings.players || 4);
    $("club-settings-rated").checked = club.table_settings.rated === true;
  }
  const members = $("club-members");
  members.replaceChildren();
  const me = currentProfile();
  for (const member of club.members) {
    const item = el("li", "club-member");
    item.dataset.testid = "club-member";
    const avatar = el("span", "avatar");
    avatar.setAttribute("aria-hidden", "true");
    drawAvatar(avatar, member.avatar);
    const name = el("a", "player-name", member.name);
    name.href = `/#player/${encodeURIComponent(member.id)}`;
    name.dataset.meLink = "";
    const role = el("span", `badge club-role-${member.role}`, t(`club_role_${member.role}`));
    item.append(avatar, name, role);
    if (me && member.id !== me.id && RANK[club.role] > RANK[member.role] && admin) {
      const tools = el("span", "club-tools");
      const actions = member.role === "member" ? ["promote", "kick", "ban"] : ["demote", "kick", "ban"];
      for (const action of actions) {
        const b = button("btn btn-small", t(`club_${action}`), `club-${action}`);
        b.addEventListener("click", () => act(member, action));
        tools.append(b);
      }
      item.append(tools);
    }
    members.append(item);
  }
  const banned = $("club-banned");
  banned.replaceChildren();
  for (const person of club.banned || []) {
    const item = el("li", "club-member");
    const b = button("btn btn-small", t("club_unban"), "club-unban");
    b.addEventListener("click", () => change("DELETE", `${clubPath(club.id)}/bans/${encodeURIComponent(person.id)}`));
    item.append(el("span", "player-name", person.name), b);
    banned.append(item);
  }
  $("club-banned-box").hidden = !(club.banned && club.banned.length);
}

async function change(method, path, body) {
  try {
    shown = await call(method, path, body);
    paintClub();
    return true;
  } catch (error) {
    showError(error);
    return false;
  }
}

async function act(member, action) {
  if ((action === "kick" || action === "ban") && !window.confirm(t(`club_confirm_${action}`, { name: member.name }))) return;
  await change("POST", `${clubPath(shown.id)}/members/${encodeURIComponent(member.id)}`, { action });
}

async function loadBoard() {
  const rows = await call("GET", `${clubPath(shown.id)}/leaderboard`).catch(showError);
  if (!rows) return;
  const list = $("club-board");
  list.replaceChildren();
  for (const row of rows) {
    const item = el("li", "board-row club-board-row");
    const ordinal = Number(row.rating.ordinal).toLocaleString(i18n.language(), { maximumFractionDigits: 1, minimumFractionDigits: 1 });
    item.append(el("span", "board-rank", `${row.rank}.`), el("span", "player-name", row.name), el("strong", "board-rating", ordinal));
    // (A provisional rating reads 0.0 for many: say why. "0 of 0 won together" says nothing.)
    if (row.rating.provisional) item.append(el("span", "hint-text club-provisional", t("provisional", { n: row.rating.matches })));
    if (row.among.matches > 0) {
      item.append(el("span", "hint-text club-among", t("club_board_among", { wins: row.among.wins, matches: row.among.matches })));
    }
    list.append(item);
  }
}

async function loadHistory() {
  const entries = await call("GET", `${clubPath(shown.id)}/history`).catch(showError);
  if (!entries) return;
  const list = $("club-history");
  list.replaceChildren();
  for (const entry of entries) {
    if (entry.kind === "event") {
      list.append(eventEntry(entry));
      continue;
    }
    const item = el("li", "game-item");
    const when = new Date(entry.finished_at).toLocaleString(i18n.language(), { dateStyle: "medium", timeStyle: "short" });
    const head = el("div", "game-head");
    head.append(el("strong", null, when), el("span", "hint-text", entry.rated ? t("game_rated") : t("game_casual")));
    const who = el("p", "club-history-seats");
    entry.seats.forEach((seat, i) => {
      if (i) who.append(document.createTextNode(", "));
      const name = seat.former ? t("former_player") : seat.bot_level ? t(`bot_${seat.bot_level}`) : seat.name || "?";
      who.append(el(seat.rank === 1 ? "strong" : "span", null, name));
    });
    item.append(head, who);
    list.append(item);
  }
  $("club-history-none").hidden = entries.length > 0;
}

/** A finished event in the club's history: its name (a link to its page) and its final
 * table, small; names are the players' own (text), a deleted profile's "a former player". */
function eventEntry(entry) {
  const item = el("li", "game-item club-history-event");
  item.dataset.testid = "club-history-event";
  const when = new Date(entry.finished_at).toLocaleString(i18n.language(), { dateStyle: "medium", timeStyle: "short" });
  const head = el("div", "game-head");
  const link = el("a", "club-history-event-name", entry.name);
  link.href = entry.link;
  link.addEventListener("click", (e) => {
    e.preventDefault();
    go(entry.link);
  });
  head.append(link, el("span", "hint-text", `${t("club_history_event")} · ${when}`));
  const table = el("table", "ev-standings club-history-standings");
  const titles = el("tr");
  for (const key of ["ev_place", "ev_entrant", "ev_points", "ev_buchholz"]) {
    const cell = el("th", null, t(key));
    cell.scope = "col";
    titles.append(cell);
  }
  table.append(titles);
  // (The server gives the first places, `places` in all: the rest are on the event's page.)
  for (const place of entry.standings) {
    const names = place.players.map((player) => (player.former ? t("former_player") : player.name));
    if (entry.entry === "pairs" && names.length === 1) names.push(t("ev_bot_partner"));
    const row = el("tr");
    for (const value of [place.place, names.join(" & "), place.points, place.buchholz]) row.append(el("td", null, String(value)));
    table.append(row);
  }
  item.append(head, table);
  const more = entry.places - entry.standings.length;
  if (more > 0) item.append(el("p", "hint-text", t("club_history_event_more", { n: more })));
  return item;
}

async function loadChat() {
  if (!shown) return;
  const lines = await call("GET", `${clubPath(shown.id)}/chat`).catch(() => null);
  if (!lines) return;
  const list = $("club-chat");
  const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
  list.replaceChildren();
  for (const line of lines) {
    const item = el("li", "club-chat-line");
    const when = new Date(line.at).toLocaleString(i18n.language(), { weekday: "short", hour: "2-digit", minute: "2-digit" });
    item.append(el("span", "club-chat-who", line.name), el("span", "hint-text club-chat-when", when), el("span", "club-chat-text", line.text));
    list.append(item);
  }
  $("club-chat-none").hidden = lines.length > 0;
  if (atEnd) list.scrollTop = list.scrollHeight;
}

async function say(event) {
  event.preventDefault();
  const input = $("club-chat-text");
  try {
    await call("POST", `${clubPath(shown.id)}/chat`, { text: input.value });
    input.value = "";
    await loadChat();
    $("club-chat").scrollTop = $("club-chat").scrollHeight;
  } catch (error) {
    showError(error);
  }
}

async function saveSettings(event) {
  event.preventDefault();
  const settings = { ...shown.table_settings, players: Number($("club-settings-players").value) };
  if ($("club-settings-rated").checked) settings.rated = true;
  else delete settings.rated;
  if (await change("PATCH", clubPath(shown.id), { name: $("club-settings-name").value, table_settings: settings })) toast("club_saved");
}

function copy(text) {
  const done = () => toast("club_copied");
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, () => {});
  else {
    const input = $("club-invite");
    const before = input.value;
    input.value = text;
    input.select();
    document.execCommand("copy");
    input.value = before;
    done();
  }
}

async function leave() {
  if (!window.confirm(t("club_confirm_leave", { name: shown.name }))) return;
  try {
    await call("POST", `${clubPath(shown.id)}/leave`, {});
    go("/clubs");
  } catch (error) {
    showError(error);
  }
}

/** Wire the clubs' pages; `navigate(path)` and `replacePage(path)` show another page. */
export function initClubs(navigate, replacePage) {
  go = navigate;
  replace = replacePage;
  $("club-create").addEventListener("submit", create);
  $("club-join").addEventListener("click", join);
  $("club-chat-form").addEventListener("submit", say);
  $("club-settings").addEventListener("submit", saveSettings);
  $("club-leave").addEventListener("click", leave);
  $("club-invite-copy").addEventListener("click", () => copy($("club-invite").value));
  $("club-table-copy").addEventListener("click", () => copy(`${location.origin}${$("club-table").getAttribute("href")}`));
  $("club-invite-new").addEventListener("click", () => change("POST", `${clubPath(shown.id)}/invite`, {}));
  $("club-table").addEventListener("click", (event) => {
    event.preventDefault();
    go($("club-table").getAttribute("href"));
  });
  i18n.onLanguageChange(() => {
    if (document.body.dataset.screen === "club" && shown) {
      paintClub();
      loadBoard();
      loadHistory();
      loadChat();
    }
  });
}
