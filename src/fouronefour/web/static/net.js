// The table connection: HTTP calls and one WebSocket per tab (docs/protocol.md).
//
// The socket says `hello` with the seat token (if any) and the last version applied; the
// server answers with the missed updates or a snapshot. Updates must arrive with versions
// increasing by one: a gap means something was lost, so the socket is closed and opened
// again with `since`, which gets exactly what is missing.

function randomId() {
  // crypto.getRandomValues works on plain http too (randomUUID needs a secure context).
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class ApiError extends Error {
  constructor(code, message, retryAfterMs = null) {
    super(message || code);
    this.code = code;
    this.retryAfterMs = retryAfterMs; // a chat line over its limit: when to try again
  }
}

async function request(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(error.code || `http_${response.status}`, error.message || response.statusText);
  }
  return data;
}

export const api = {
  config: () => request("GET", "/api/config"),
  createTable: (options) => request("POST", "/api/tables", options),
  table: (code) => request("GET", `/api/tables/${encodeURIComponent(code)}`),
  join: (code, name, seat) =>
    request("POST", `/api/tables/${encodeURIComponent(code)}/join`, { name, seat }),
  claim: (code, handoff, name) =>
    request("POST", `/api/tables/${encodeURIComponent(code)}/claim`, { handoff, name }),
  replays: (code) => request("GET", `/api/tables/${encodeURIComponent(code)}/replays`),
  replay: (code, match) =>
    request("GET", `/api/tables/${encodeURIComponent(code)}/replays/${match}`),
};

/**
 * One table's live connection. `handlers`: onWelcome(msg), onSnapshot(msg), onUpdate(msg),
 * onPresence(msg), onStatus(connected: bool), onFatal(error) for errors that close the connection for good.
 */
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
  }

  open() {
    this.closedForGood = false;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}/ws/${encodeURIComponent(this.code)}`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      const hello = { type: "hello", protocol: 3 };
      if (this.token) hello.token = this.token;
      else if (this.name) hello.name = this.name; // a spectator's name for chat and presence
      if (this.version !== null) hello.since = this.version;
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
    clearInterval(this.pingTimer);
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
        this.handlers.onWelcome?.(message);
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
    this.pending.delete(message.id);
    if (ok) entry.resolve(message);
    else entry.reject(new ApiError(message.code, message.message, message.retry_after_ms ?? null));
    return true;
  }

  handleUnanswered(message) {
    const fatal = ["bad_token", "kicked", "table_not_found", "hello_required", "bad_protocol", "too_many_connections"];
    if (fatal.includes(message.code)) {
      this.closedForGood = true;
      this.handlers.onFatal?.(new ApiError(message.code, message.message));
    }
  }

  sendRaw(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  /** Send a message with an id; resolves with its ack/hint, rejects with ApiError. */
  request(message) {
    // Unique across page loads: the server answers a repeated id of an accepted move with
    // the old ack, so a counter restarting at 1 after a refresh would be mistaken for it.
    const id = `${this.idPrefix}.${this.nextId++}`;
    return new Promise((resolve, reject) => {
      if (!this.sendRaw({ ...message, id })) {
        reject(new ApiError("disconnected"));
        return;
      }
      this.pending.set(id, { resolve, reject });
    });
  }
}
