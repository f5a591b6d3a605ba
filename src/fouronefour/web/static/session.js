// The table this tab is at: its state (changed only through `reduce`), its connection,
// and the screens that listen for changes.

import { initialState, reduce } from "./state.js";

export const session = {
  state: initialState(),
  conn: null,
};

const listeners = [];

/** Call `listener(previous, next, message)` after every change. */
export function onChange(listener) {
  listeners.push(listener);
}

/** Apply a message to the state and tell the listeners. */
export function dispatch(message) {
  const previous = session.state;
  session.state = reduce(previous, message);
  for (const listener of listeners) listener(previous, session.state, message);
}

/** Send a request over the table's connection (rejects with ApiError; options: net.js). */
export function request(message, options) {
  if (!session.conn) return Promise.reject(new Error("not connected"));
  return session.conn.request(message, options);
}

/** The server's clock now, in ms. */
export function serverNow() {
  return Date.now() + session.state.clockOffset;
}
