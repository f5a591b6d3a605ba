// The table connection: HTTP calls and one WebSocket per tab (docs/protocol.md).
//
// The socket says `hello` with the seat token (if any) and the last version applied; the
// server answers with the missed updates or a snapshot. Updates must arrive with versions
// increasing by one: a gap means something was lost, so the socket is closed and opened
// again with `since`, which gets exactly what is missing.
//
// A message the server refuses for its rate limit (`rate_limited` with `retry_after_ms`) is
// sent again, unchanged, once that time has passed; the requests after it wait their turn,
// then go at the pace the server said (protocol.md section 3, "Rate limit").

import { storage } from "./storage.js";

function randomId() {
  // crypto.getRandomValues works on plain http too (randomUUID needs a secure context).
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// In a cluster, answers naming a table carry its owner's `node`: the socket asks for it
// (`?node=`), so that a load balancer routing by it sends the socket to the owner
// (docs/protocol.md section 3; without it the socket is relayed, which works too).
const nodes = new Map(); // table code -> its owner's node, as last told

/** A request's place in this page's order, from its id (`<prefix>.<n>`). */
function sequence(id) {
  return Number(String(id).split(".").pop());
}

export class ApiError extends Error {
  constructor(code, message, retryAfterMs = null, replaced = false) {
    super(message || code);
    this.code = code;
    this.retryAfterMs = retryAfterMs; // a chat line over its limit, an analysis being made: when to ask again
    this.replaced = replaced; // too_many_connections: newer connections of the seat took over
  }
}

/** The session's CSRF token: the readable `fof_csrf` cookie (docs/players.md, "CSRF"). */
export function csrfToken() {
  for (const part of document.cookie.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === "fof_csrf") return decodeURIComponent(value.join("="));
  }
  return null;
}

export async function request(method, path, body, code = null, { headers: more = {}, asText = false } = {}) {
  const headers = body === undefined ? { ...more } : { ...more, "Content-Type": "application/json" };
  // Every state-changing call proves it comes from this page; the players' routes refuse
  // one without it (403 bad_csrf), the tables' routes ignore it.
  const csrf = method !== "GET" ? csrfToken() : null;
  if (csrf) headers["X-CSRF-Token"] = csrf;
  // A private table answers only with its invite (docs/protocol.md section 2).
  const invite = code && storage.invite(code);
  if (invite) headers["X-Invite"] = invite;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (asText && response.ok) return response.text();
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  // (An analysis being made answers 202 Accepted with an error body: not ready yet.)
  if (response.ok && data && typeof data.node === "string") nodes.set(code || data.code, data.node);
  if (!response.ok || (response.status === 202 && data && data.error)) {
    const error = (data && data.error) || {};
    throw new ApiError(
      error.code || `http_${response.status}`,
      error.message || response.statusText,
      error.retry_after_ms ?? null,
    );
  }
  return data;
}

export const api = {
  config: () => request("GET", "/api/config"),
  createTable: (options) => request("POST", "/api/tables", options),
  table: (code) => request("GET", `/api/tables/${encodeURIComponent(code)}`, undefined, code),
  join: (code, name, seat) => {
    const invite = storage.invite(code);
    const body = invite ? { name, seat, invite } : { name, seat };
    const removed = storage.removed(code);
    if (removed) body.token = removed;
    return request("POST", `/api/tables/${encodeURIComponent(code)}/join`, body);
  },
  claim: (code, handoff, name) => {
    const removed = storage.removed(code);
    const body = removed ? { handoff, name, token: removed } : { handoff, name };
    return request("POST", `/api/tables/${encodeURIComponent(code)}/claim`, body);
  },
  replays: (code) => request("GET", `/api/tables/${encodeURIComponent(code)}/replays`, undefined, code),
  replay: (code, match) =>
    request("GET", `/api/tables/${encodeURIComponent(code)}/replays/${match}`, undefined, code),
  // The same as it came (its numbers unrounded: a seed has 62 bits).
  replayText: (code, match) =>
    request("GET", `/api/tables/${encodeURIComponent(code)}/replays/${match}`, undefined, code, { asText: true }),
  // A round's analysis: everyone's once the match is over, else the seat's own (its token).
  analysis: (code, match, round, token) =>
    request("GET", `/api/tables/${encodeURIComponent(code)}/analysis?match=${match}&round=${round}`, undefined, code, {
      headers: token ? { "X-Token": token } : {},
    }),
  // The players' room (docs/players.md, "HTTP"): the session is the HttpOnly cookie.
  me: () => request("GET", "/api/me"),
  updateMe: (change) => request("PATCH", "/api/me", change),
  claimProfile: (username, password) => request("POST", "/api/me/claim", { username, password }),
  signIn: (username, password) => request("POST", "/api/session", { username, password }),
  signOut: () => request("DELETE", "/api/session"),
  signOutEverywhere: () => request("DELETE", "/api/sessions"),
  changePassword: (oldPassword, newPassword) =>
    request("POST", "/api/me/password", { old_password: oldPassword, new_password: newPassword }),
  sessions: () => request("GET", "/api/me/sessions"),
  endSession: (id) => request("DELETE", `/api/me/sessions/${encodeURIComponent(id)}`),
  deviceCode: () => request("POST", "/api/me/device-code"),
  redeemCode: (code) => request("POST", "/api/session/device", { code }),
  passkeyOptions: () => request("POST", "/api/me/passkeys/options"),
  addPasskey: (credential) => request("POST", "/api/me/passkeys", { credential }),
  passkeySignInOptions: () => request("POST", "/api/session/passkey/options"),
  passkeySignIn: (credential) => request("POST", "/api/session/passkey", { credential }),
  deleteMe: () => request("DELETE", "/api/me"),
  myGames: (after, limit = 20) =>
    request("GET", `/api/me/games?limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ""}`),
  player: (id) => request("GET", `/api/players/${encodeURIComponent(id)}`),
  ratings: (id) => request("GET", `/api/players/${encodeURIComponent(id)}/ratings`),
  // A signed-in player's seat at this table, on this device (docs/protocol.md section 2).
  returnSeat: (code) => {
    const invite = storage.invite(code);
    return request("POST", `/api/tables/${encodeURIComponent(code)}/return`, invite ? { invite } : {}, code);
  },
  leaderboard: (among) => request("GET", `/api/leaderboard?among=${among === "played" ? "played" : "all"}`),
};

/**
 * One table's live connection. `handlers`: onWelcome(msg), onSnapshot(msg), onUpdate(msg),
 * onPresence(msg), onStatus(connected: bool), onFatal(error) for errors that close the connection for good.
 */
//
// Fatal refusals: the connection is closed and not opened again on its own, since opening
// it again would be refused the same way (or, for a seat's connection replaced by newer
// ones, would close another tab of the same player in turn).
const FATAL = new Set(["bad_token", "kicked", "table_not_found", "hello_required", "bad_protocol", "too_many_connections"]);

export class TableConnection {
  constructor(code, token, handlers) {
    this.code = code;
    this.token = token || null;
    this.handlers = handlers;
    this.version = null; // last version applied
    this.socket = null;
    this.pending = new Map(); // id -> {resolve, reject}
    this.nextId = 1;
    this.idPrefix = randomId();
    this.closedForGood = false;
    this.retryDelay = 300;
    this.pingTimer = null;
    this.name = null;
    this.held = []; // requests refused for the rate limit (or queued behind one), in order
    this.holdTimer = null;
    this.greeted = false; // welcomed on this socket: a later too_many_connections means replaced
    // A seat's page tells the server when it is out of sight, so that its turn may come as a
    // notification (docs/protocol.md, "Visibility"; docs/push.md).
    this.onVisibility = () => this.tellVisibility(false);
  }

  /** Say whether the page is hidden (a player's socket only; `welcomed`: said at once when
   * hidden, else only a change is worth a message). */
  tellVisibility(welcomed) {
    if (!this.token || !this.greeted || (welcomed && !document.hidden)) return;
    this.sendRaw({ type: "visibility", hidden: document.hidden });
  }

  open() {
    this.closedForGood = false;
    document.addEventListener("visibilitychange", this.onVisibility); // (once: the same function)
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const node = nodes.get(this.code);
    this.askedNode = node || null;
    const query = node ? `?node=${encodeURIComponent(node)}` : "";
    const socket = new WebSocket(`${scheme}//${location.host}/ws/${encodeURIComponent(this.code)}${query}`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.greeted = false;
      const hello = { type: "hello", protocol: 3 };
      if (this.token) hello.token = this.token;
      else if (this.name) hello.name = this.name; // a spectator's name for chat and presence
      if (this.version !== null) hello.since = this.version;
      const invite = storage.invite(this.code);
      if (invite) hello.invite = invite; // a private table's spectators need it
      socket.send(JSON.stringify(hello));
      this.retryDelay = 300;
      this.handlers.onStatus?.(true);
      clearInterval(this.pingTimer);
      // Keeps idle proxies from dropping the socket and notices a dead link.
      this.pingTimer = setInterval(() => this.sendRaw({ type: "ping" }), 25000);
    });
    socket.addEventListener("message", (event) => this.receive(socket, event.data));
    socket.addEventListener("close", () => this.closed(socket));
  }

  closed(socket) {
    if (socket !== this.socket) return;
    clearInterval(this.pingTimer);
    this.dropHeld();
    for (const { reject } of this.pending.values()) reject(new ApiError("disconnected"));
    this.pending.clear();
    if (this.closedForGood) return;
    // A fatal refusal (bad token, no table) arrives as an error first and sets closedForGood.
    this.handlers.onStatus?.(false);
    setTimeout(() => {
      if (!this.closedForGood && socket === this.socket) this.open();
    }, this.retryDelay);
    this.retryDelay = Math.min(this.retryDelay * 2, 5000);
  }

  /** Close for good (leaving the table, or switching to a seat token). */
  close() {
    this.closedForGood = true;
    document.removeEventListener("visibilitychange", this.onVisibility);
    clearInterval(this.pingTimer);
    this.dropHeld();
    if (this.socket) this.socket.close();
    this.socket = null;
  }

  /** Reopen with a seat token (after taking a seat): a fresh snapshot as that player. */
  reopenAs(token) {
    this.close();
    this.token = token;
    this.version = null;
    this.open();
  }

  receive(socket, text) {
    if (socket !== this.socket) return;
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    switch (message.type) {
      case "welcome":
        if (typeof message.node === "string") {
          // The table's owner now (in a cluster): another than the one asked for when
          // that one died and the table moved. Go to it once, straight away, rather than
          // through the relay for as long as this socket lives (docs/hosting.md).
          nodes.set(this.code, message.node);
          if (this.askedNode && this.askedNode !== message.node && !this.moved) {
            this.moved = true;
            this.close();
            this.open();
            return;
          }
        }
        this.moved = false;
        this.greeted = true;
        this.handlers.onWelcome?.(message);
        this.tellVisibility(true);
        break;
      case "snapshot":
        this.version = message.v;
        this.handlers.onSnapshot?.(message);
        break;
      case "update":
        if (this.version !== null && message.v !== this.version + 1) {
          if (message.v <= this.version) return; // already applied (a duplicate)
          socket.close(); // a gap: reconnect with `since` to fetch what is missing
          return;
        }
        this.version = message.v;
        this.handlers.onUpdate?.(message);
        if (message.ack) this.settle(message.ack, true); // the ack of our own request
        break;
      case "presence":
        this.handlers.onPresence?.(message);
        break;
      case "ack":
      case "hint":
      case "pong":
        this.settle(message, true);
        break;
      case "error":
        if (!this.settle(message, false)) this.handleUnanswered(message);
        break;
      default:
        break;
    }
  }

  settle(message, ok) {
    const entry = message.id !== undefined ? this.pending.get(message.id) : undefined;
    if (!entry) return false;
    if (!ok && message.code === "rate_limited" && entry.resend && message.retry_after_ms > 0) {
      this.hold(entry.payload, message.retry_after_ms);
      return true;
    }
    this.pending.delete(message.id);
    if (ok) entry.resolve(message);
    else entry.reject(new ApiError(message.code, message.message, message.retry_after_ms ?? null));
    return true;
  }

  handleUnanswered(message) {
    if (FATAL.has(message.code)) {
      this.closedForGood = true;
      const replaced = message.code === "too_many_connections" && this.greeted && this.token !== null;
      this.handlers.onFatal?.(new ApiError(message.code, message.message, null, replaced));
    } else if (message.code === "rate_limited" && message.retry_after_ms > 0) {
      // Refused before the hello was read (too many lookups): wait as told to reconnect.
      this.retryDelay = Math.max(this.retryDelay, message.retry_after_ms);
    }
  }

  /** Send `payload` again after `ms`; the requests after it wait behind it. */
  hold(payload, ms) {
    // In the order they were first sent (several refused at once come back in that order).
    this.held.push(payload);
    this.held.sort((a, b) => sequence(a.id) - sequence(b.id));
    clearTimeout(this.holdTimer);
    this.holdTimer = setTimeout(() => this.release(ms), ms);
  }

  /** Send the held requests one at a time, `pace` ms apart (a refusal holds them again). */
  release(pace) {
    this.holdTimer = null;
    const payload = this.held.shift();
    if (payload === undefined) return;
    if (this.pending.has(payload.id)) this.sendRaw(payload);
    if (this.held.length) this.holdTimer = setTimeout(() => this.release(pace), pace);
  }

  dropHeld() {
    clearTimeout(this.holdTimer);
    this.holdTimer = null;
    this.held = [];
  }

  sendRaw(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  /**
   * Send a message with an id; resolves with its ack/hint, rejects with ApiError. Refused
   * for the rate limit, it is sent again when the server says, unless `resend` is false
   * (then it rejects with `rate_limited` and its `retryAfterMs`).
   */
  request(message, { resend = true } = {}) {
    // Unique across page loads: the server answers a repeated id of an accepted move with
    // the old ack, so a counter restarting at 1 after a refresh would be mistaken for it.
    const id = `${this.idPrefix}.${this.nextId++}`;
    const payload = { ...message, id };
    return new Promise((resolve, reject) => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
        reject(new ApiError("disconnected"));
        return;
      }
      this.pending.set(id, { resolve, reject, payload, resend });
      if (this.holdTimer !== null) this.held.push(payload); // behind a refused one, in order
      else this.sendRaw(payload);
    });
  }
}
