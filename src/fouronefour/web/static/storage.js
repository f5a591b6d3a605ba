// What a browser remembers: the player's name, a seat token and a private table's invite
// per table, settings.

function readJson(key, fallback) {
  try {
    const value = JSON.parse(localStorage.getItem(key) || "null");
    return value ?? fallback;
  } catch {
    return fallback;
  }
}

export const storage = {
  name() {
    return localStorage.getItem("414.name") || "";
  },
  setName(name) {
    localStorage.setItem("414.name", name);
  },
  seat(code) {
    return readJson(`414.table.${code}`, null);
  },
  setSeat(code, seat, token) {
    localStorage.setItem(`414.table.${code}`, JSON.stringify({ seat, token }));
  },
  forgetSeat(code) {
    localStorage.removeItem(`414.table.${code}`);
  },
  /** The token this browser held when the host removed it from the table (a join or a
   * claim sends it: the server refuses a removed player unless the host hands a seat). */
  removed(code) {
    return localStorage.getItem(`414.removed.${code}`);
  },
  setRemoved(code, token) {
    localStorage.setItem(`414.removed.${code}`, token);
  },
  forgetRemoved(code) {
    localStorage.removeItem(`414.removed.${code}`);
  },
  /** A private table's invite (the secret of its invite link), once this browser had it. */
  invite(code) {
    return localStorage.getItem(`414.invite.${code}`);
  },
  setInvite(code, invite) {
    localStorage.setItem(`414.invite.${code}`, invite);
  },
  settings() {
    return readJson("414.settings", {});
  },
  setSettings(settings) {
    localStorage.setItem("414.settings", JSON.stringify(settings));
  },
};
