// What a browser remembers: the player's name, a seat token per table, settings.

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
  settings() {
    return readJson("414.settings", {});
  },
  setSettings(settings) {
    localStorage.setItem("414.settings", JSON.stringify(settings));
  },
};
