// Friends (docs/friends.md): the list with status dots on the home screen, requests in and
// out, add by username, block; "Add friend" and "Block" on another player's profile; one
// click invites a friend to the table this tab is at; invites received shown at the top.
//
// One profile socket (/ws/me) per tab tells the statuses and invites live; it says which
// table this tab is at (the server believes it only if the profile holds a seat there).
// Names are other people's text: always textContent, never markup.

import { t } from "./i18n.js";
import { request as call } from "./net.js"; // (the CSRF header on every change)
import { $, el, button } from "./dom.js";
import { storage } from "./storage.js";
import { onChange, session } from "./session.js";
import { showError, toast } from "./toast.js";

let lists = { friends: [], incoming: [], outgoing: [], blocked: [] };
let listsLoaded = false; // (a profile's friend buttons wait for them: no Add friend flashing)
const statuses = new Map(); // friend id -> {status, table?}
let invites = []; // waiting for this profile, newest first
let blocked = new Set(); // profile ids this profile blocks (their chat is hidden)
let socket = null;
let retryMs = 500;
let stopped = false; // the server said no (no session): not opened again on its own
let atTable = null; // the table last told to the server
let enter = null; // (link) => void: open a table (from app.js)
const blockListeners = [];

/** Whether this profile blocks `profileId` (a table's chat hides their lines). */
export function blocks(profileId) {
  return Boolean(profileId) && blocked.has(profileId);
}

/** Call `listener()` when the blocked profiles change. */
export function onBlocksChange(listener) {
  blockListeners.push(listener);
}

// ------------------------------------------------------------------ the socket

function connect() {
  if (stopped || socket) return;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/me`);
  socket = ws;
  ws.addEventListener("open", () => {
    retryMs = 500;
    atTable = null;
    tellTable();
  });
  ws.addEventListener("message", (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    handle(message);
  });
  ws.addEventListener("close", () => {
    if (socket === ws) socket = null;
    if (stopped) return;
    setTimeout(connect, retryMs + Math.random() * 300);
    retryMs = Math.min(retryMs * 2, 10000);
  });
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function handle(message) {
  if (message.type === "presence") {
    for (const [id, status] of Object.entries(message.friends || {})) statuses.set(id, status);
    renderFriends();
  } else if (message.type === "friends_changed") {
    loadFriends();
  } else if (message.type === "invites") {
    invites = Array.isArray(message.invites) ? message.invites : [];
    renderInvites();
  } else if (message.type === "invite") {
    invites = [message, ...invites.filter((i) => i.id !== message.id)];
    renderInvites();
  } else if (message.type === "error" && message.code === "no_session") {
    stopped = true;
  }
}

/** Tell the server which table this tab is at (a seat's player), or none. */
function tellTable() {
  const state = session.state;
  const code = state.table && state.role === "player" ? state.code : null;
  if (code === atTable) return;
  atTable = code;
  const invite = code ? storage.invite(code) : null;
  send(invite ? { type: "at", table: code, invite } : { type: "at", table: code });
}

// ------------------------------------------------------------------ lists

export async function loadFriends() {
  try {
    lists = await call("GET", "/api/friends");
  } catch {
    return; // (no session, no players' room: nothing to show)
  }
  listsLoaded = true;
  for (const friend of lists.friends) statuses.set(friend.id, { status: friend.status, table: friend.table });
  blocked = new Set(lists.blocked.map((p) => p.id));
  for (const listener of blockListeners) listener();
  renderFriends();
  if (shownProfile) showProfileActions(...shownProfile);
}

function statusOf(id) {
  return statuses.get(id) || { status: "offline" };
}

function statusText(status) {
  if (status.status === "table") return t(status.table ? "friends_status_table_here" : "friends_status_table");
  return t(status.status === "online" ? "friends_status_online" : "friends_status_offline");
}

function dot(status) {
  const node = el("span", `status-dot status-${status.status}`);
  node.setAttribute("aria-hidden", "true");
  return node;
}

function person(p, testid) {
  const item = el("li", "friend-row");
  item.dataset.testid = testid;
  item.dataset.id = p.id;
  const name = el("a", "friend-name", p.name);
  name.href = `/#player/${encodeURIComponent(p.id)}`;
  name.dataset.meLink = "";
  item.append(name);
  return item;
}

function act(label, testid, work, className = "btn btn-small") {
  const node = button(className, t(label), testid);
  node.addEventListener("click", async () => {
    node.disabled = true;
    try {
      await work();
    } catch (error) {
      showError(error);
    } finally {
      node.disabled = false;
    }
  });
  return node;
}

const order = { table: 0, online: 1, offline: 2 };

export function renderFriends() {
  if (!$("friends-panel")) return;
  const friends = [...lists.friends].sort(
    (a, b) => order[statusOf(a.id).status] - order[statusOf(b.id).status] || a.name.localeCompare(b.name),
  );
  $("friends-list").replaceChildren(
    ...friends.map((friend) => {
      const status = statusOf(friend.id);
      const item = person(friend, "friend");
      item.prepend(dot(status));
      item.dataset.status = status.status;
      item.append(el("span", "friend-status", statusText(status)));
      const remove = act("friends_remove", "friend-remove", async () => {
        if (!window.confirm(t("friends_remove_confirm", { name: friend.name }))) return;
        await call("DELETE", `/api/friends/${encodeURIComponent(friend.id)}`);
        await loadFriends();
      }, "btn btn-small btn-quiet");
      item.append(remove);
      return item;
    }),
  );
  $("friends-none").hidden = lists.friends.length > 0;
  $("friends-incoming-box").hidden = !lists.incoming.length;
  $("friends-incoming").replaceChildren(
    ...lists.incoming.map((p) => {
      const item = person(p, "friend-incoming");
      item.append(
        act("friends_accept", "friend-accept", async () => {
          await call("POST", `/api/friends/requests/${encodeURIComponent(p.id)}/accept`);
          toast("friends_now_friends", { name: p.name });
          await loadFriends();
        }, "btn btn-small btn-primary"),
        act("friends_decline", "friend-decline", async () => {
          await call("DELETE", `/api/friends/requests/${encodeURIComponent(p.id)}`);
          await loadFriends();
        }),
        act("friends_block", "friend-block", () => block(p)),
      );
      return item;
    }),
  );
  $("friends-outgoing-box").hidden = !lists.outgoing.length;
  $("friends-outgoing").replaceChildren(
    ...lists.outgoing.map((p) => {
      const item = person(p, "friend-outgoing");
      item.append(
        act("friends_withdraw", "friend-withdraw", async () => {
          await call("DELETE", `/api/friends/requests/sent/${encodeURIComponent(p.id)}`);
          await loadFriends();
        }),
      );
      return item;
    }),
  );
  $("friends-blocked-box").hidden = !lists.blocked.length;
  $("friends-blocked").replaceChildren(
    ...lists.blocked.map((p) => {
      const item = person(p, "friend-blocked");
      item.append(
        act("friends_unblock", "friend-unblock", async () => {
          await call("DELETE", `/api/friends/blocks/${encodeURIComponent(p.id)}`);
          await loadFriends();
        }),
      );
      return item;
    }),
  );
  renderTableInvites();
}

async function block(p) {
  if (!window.confirm(t("friends_block_confirm", { name: p.name }))) return;
  await call("POST", "/api/friends/blocks", { id: p.id });
  await loadFriends();
}

async function ask(body) {
  const answer = await call("POST", "/api/friends/requests", body);
  toast(answer.status === "friends" ? "friends_now_friends" : "friends_requested");
  await loadFriends();
}

// ------------------------------------------------------------------ at a table

/** The players at this table (profiles) who are not yet friends: "Add friend" for each. */
function tableMates() {
  const state = session.state;
  if (!state.table || state.role !== "player") return [];
  const known = new Set([profileId, ...blocked, ...lists.friends.map((f) => f.id), ...lists.outgoing.map((p) => p.id)]);
  return state.table.seats.filter((seat) => seat.kind === "human" && seat.profile && !known.has(seat.profile));
}

/** The table's invite box: each friend with their status and an Invite button; the
 * players here who are not friends yet, with Add friend. */
function renderTableInvites() {
  const box = $("friends-invite");
  if (!box) return;
  const state = session.state;
  const mates = tableMates();
  $("friends-mates").replaceChildren(
    ...mates.map((seat) => {
      const item = el("li", "friend-row");
      item.dataset.testid = "table-mate";
      item.append(el("span", "friend-name", seat.name || ""));
      item.append(
        act("friends_add_friend", "table-mate-add", async () => {
          const code = state.code;
          const invite = storage.invite(code);
          await ask(invite ? { id: seat.profile, table: code, invite } : { id: seat.profile, table: code });
        }),
      );
      return item;
    }),
  );
  const here = state.table && state.role === "player" && (lists.friends.length > 0 || mates.length > 0);
  box.hidden = !here;
  if (!here) return;
  $("friends-invite-heading").hidden = !lists.friends.length;
  const friends = [...lists.friends].sort((a, b) => order[statusOf(a.id).status] - order[statusOf(b.id).status]);
  // (a friend seated at this table already is here: nothing to invite them to)
  const seated = new Set(state.table.seats.map((seat) => seat.profile).filter(Boolean));
  $("friends-invite-list").replaceChildren(
    ...friends.slice(0, 12).map((friend) => {
      const atThisTable = seated.has(friend.id);
      const status = atThisTable ? { status: "table", table: state.code } : statusOf(friend.id);
      const item = el("li", "friend-row");
      item.dataset.testid = "invite-friend";
      item.append(dot(status), el("span", "friend-name", friend.name), el("span", "friend-status", statusText(status)));
      if (atThisTable) return item;
      item.append(
        act("friends_invite", "invite-friend-button", async () => {
          const code = session.state.code;
          const invite = storage.invite(code);
          const body = invite ? { id: friend.id, table: code, invite } : { id: friend.id, table: code };
          await call("POST", "/api/friends/invites", body);
          toast("friends_invited", { name: friend.name });
        }),
      );
      return item;
    }),
  );
}

// ------------------------------------------------------------------ invites received

function renderInvites() {
  const box = $("friend-invites");
  const now = Date.now();
  // (an invite to a table this page holds a seat at leads nowhere new: a waiting friend's
  // play-again seat, taken already; nor one to the table this page shows, opened from the
  // notice: it is seen)
  const shown = session.state.table ? session.state.code : null;
  const taken = invites.filter((i) => storage.seat(i.code) || i.code === shown);
  if (taken.length) invites = invites.filter((i) => !taken.includes(i));
  for (const invite of taken) send({ type: "seen", id: invite.id });
  const live = invites.filter((i) => !i.expires_at || i.expires_at > now).slice(0, 3);
  box.hidden = !live.length;
  box.replaceChildren(
    ...live.map((invite) => {
      const item = el("div", "friend-invite");
      item.dataset.testid = "friend-invite";
      item.append(el("span", "friend-invite-text", t("friends_invites_you", { name: invite.from.name })));
      const join = button("btn btn-small btn-primary", t("friends_join"), "friend-invite-join");
      join.addEventListener("click", () => {
        seen(invite);
        enter(invite.link);
      });
      const dismiss = button("btn btn-small", t("friends_dismiss"), "friend-invite-dismiss");
      dismiss.addEventListener("click", () => seen(invite));
      item.append(join, dismiss);
      return item;
    }),
  );
}

function seen(invite) {
  invites = invites.filter((i) => i.id !== invite.id);
  send({ type: "seen", id: invite.id });
  renderInvites();
}

// ------------------------------------------------------------------ another player's profile

/** The profile page's friend buttons for player `id` (hidden on one's own). */
let shownProfile = null; // [id, own] of the profile page shown (drawn again as lists load)

export function showProfileActions(id, own) {
  shownProfile = [id, own];
  const box = $("profile-friend");
  if (!box) return;
  box.hidden = own || !id || !listsLoaded;
  if (own || !id || !listsLoaded) return;
  const friend = lists.friends.some((f) => f.id === id);
  const asked = lists.outgoing.some((p) => p.id === id);
  const isBlocked = blocked.has(id);
  $("profile-add-friend").hidden = friend || asked || isBlocked;
  $("profile-block").hidden = isBlocked;
  $("profile-unblock").hidden = !isBlocked;
  box.dataset.id = id;
}

export function retranslateFriends() {
  renderFriends();
  renderInvites();
}

/** Wire the friends' controls; `open(link)` goes to a table's link. */
export function initFriends(open) {
  enter = open;
  $("friends-add").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("friends-username");
    const username = input.value.trim();
    if (!username) return;
    try {
      await ask({ username });
      input.value = "";
    } catch (error) {
      showError(error);
    }
  });
  $("profile-add-friend").addEventListener("click", async () => {
    try {
      await ask({ id: $("profile-friend").dataset.id });
      showProfileActions($("profile-friend").dataset.id, false);
    } catch (error) {
      showError(error);
    }
  });
  $("profile-block").addEventListener("click", async () => {
    const id = $("profile-friend").dataset.id;
    try {
      await block({ id, name: $("profile-name").textContent });
      showProfileActions(id, false);
    } catch (error) {
      showError(error);
    }
  });
  $("profile-unblock").addEventListener("click", async () => {
    const id = $("profile-friend").dataset.id;
    try {
      await call("DELETE", `/api/friends/blocks/${encodeURIComponent(id)}`);
      await loadFriends();
      showProfileActions(id, false);
    } catch (error) {
      showError(error);
    }
  });
  let tableKey = "";
  onChange(() => {
    tellTable();
    const state = session.state;
    const seats = state.table ? state.table.seats.map((seat) => seat.profile || "").join() : "";
    const key = `${state.code}:${state.role}:${seats}`;
    if (key !== tableKey) {
      tableKey = key;
      renderTableInvites();
      renderInvites(); // (a seat taken here: its table's invites are seen)
    }
  });
}

let profileId = null; // whose lists and socket these are

/** Once the profile is known (or another signs in): the lists, and the socket (opened
 * again as it closes); none without a profile. */
export async function startFriends(id) {
  if (id === profileId) return;
  profileId = id;
  stopped = !id;
  if (socket) socket.close(); // (opened again, with the new session's cookie)
  socket = null;
  lists = { friends: [], incoming: [], outgoing: [], blocked: [] };
  statuses.clear();
  invites = [];
  renderInvites();
  if (!id) {
    renderFriends();
    return;
  }
  await loadFriends();
  connect();
}
