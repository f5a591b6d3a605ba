// Who is at the table beyond the seats: how many watch and who (presence), and the host's
// tools that are not about the lobby: pause and resume, the table's settings, handing a
// seat over. A player can hand their own seat to a new device; a link with #claim= takes it.

import { t } from "./i18n.js";
import { api, ApiError } from "./net.js";
import { $, el, button } from "./dom.js";
import { storage } from "./storage.js";
import { dispatch, request, session } from "./session.js";
import { seatName } from "./table.js";
import { showError, toast } from "./toast.js";

/** The eye chip: spectators now, their names in its title (lobby and game). */
export function renderPresence() {
  const presence = session.state.presence;
  for (const chip of document.querySelectorAll(".presence-chip")) {
    const count = presence ? presence.spectators : 0;
    chip.hidden = !presence || !count; // nobody watching: nothing to say
    chip.textContent = t("watching_count", { n: count });
    const names = presence && presence.watchers.length ? `: ${presence.watchers.join(", ")}` : "";
    chip.title = t("watching_count", { n: count }) + names;
    chip.setAttribute("aria-label", chip.title);
  }
}

/** Seats with their hand-over buttons, the host's pause and the table settings. */
export function renderPeople(view) {
  const state = session.state;
  const table = state.table;
  const host = state.host && state.role === "player";
  const list = $("people-seats");
  list.replaceChildren(
    ...table.seats.map((seat) => {
      const item = el("li", `people-seat team-${seat.team}`);
      item.append(el("span", "who", seatName(view, seat.seat)));
      const mine = state.role === "player" && seat.seat === state.seat;
      if (seat.kind === "human") item.append(el("span", "status-tag", seat.online ? t("online") : t("offline")));
      if ((host && seat.kind !== "empty") || mine) {
        const give = button("btn btn-small", t(mine ? "handoff_mine" : "handoff_seat"), `handoff-${seat.seat}`);
        give.addEventListener("click", () => handoff(seat.seat));
        item.append(give);
      }
      return item;
    }),
  );
  $("host-tools").hidden = !host;
  if (!host) return;
  const settings = table.settings || {};
  $("host-counter").checked = settings.card_counter !== false;
  $("host-spectator-chat").checked = Boolean(settings.spectator_chat);
  if (document.activeElement !== $("host-pause-seconds")) {
    $("host-pause-seconds").value = String(settings.round_pause_seconds ?? 15);
  }
  const paused = Boolean(state.state && state.state.paused);
  $("host-pause").textContent = t(paused ? "resume_table" : "pause_table");
  $("host-pause").disabled = table.status !== "playing";
}

async function handoff(seat) {
  try {
    const ack = await request({ type: "handoff", seat });
    const secret = ack.handoff.secret;
    // At a private table the invite goes along: the newcomer's page must find the table.
    const invite = storage.invite(session.state.code);
    const link = `${location.origin}/t/${session.state.code}#claim=${secret}${invite ? `&invite=${invite}` : ""}`;
    $("handoff-link").value = link;
    $("handoff-secret").textContent = secret;
    $("handoff-for").textContent = t("handoff_for", { name: seatName(tableSeats(), seat) });
    $("handoff-box").hidden = false;
    $("handoff-link").select();
  } catch (error) {
    showError(error);
  }
}

function tableSeats() {
  const table = session.state.table;
  return { seats: table.seats.map((seat) => ({ name: seat.name, kind: seat.kind })) };
}

function setting(change) {
  request({ type: "settings", ...change }).catch(showError);
}

/** The secret of a handoff link (#claim=...), if this page was opened with one. */
export function claimSecret() {
  const match = location.hash.match(/claim=([A-Za-z0-9_-]+)/);
  return match ? match[1] : null;
}

/** Offer "Take this seat" to whoever opened a handoff link. */
export function renderClaim() {
  const secret = claimSecret();
  const state = session.state;
  $("claim").hidden = !secret || state.role === "player";
  if (!$("claim").hidden && !$("claim-name").value) $("claim-name").value = storage.name();
}

async function claim(event) {
  event.preventDefault();
  const name = $("claim-name").value.trim();
  if (!name) {
    $("claim-name").focus();
    toast("need_name", {}, { error: true });
    return;
  }
  storage.setName(name);
  const code = session.state.code;
  try {
    const claimed = await api.claim(code, claimSecret(), name);
    storage.setSeat(code, claimed.seat, claimed.token);
    storage.forgetRemoved(code); // (the host's handoff let this player back)
    history.replaceState(null, "", `/t/${code}`);
    dispatch({ type: "table", table: claimed.table });
    session.conn.reopenAs(claimed.token);
    $("claim").hidden = true;
  } catch (error) {
    if (error instanceof ApiError && error.code === "bad_handoff") history.replaceState(null, "", `/t/${code}`);
    showError(error);
  }
}

export function initPeople() {
  $("host-counter").addEventListener("change", (event) => setting({ card_counter: event.target.checked }));
  $("host-spectator-chat").addEventListener("change", (event) => setting({ spectator_chat: event.target.checked }));
  $("host-pause-seconds").addEventListener("change", (event) => {
    const seconds = Number(event.target.value);
    if (Number.isFinite(seconds)) setting({ round_pause_seconds: seconds });
  });
  $("host-pause").addEventListener("click", () => {
    const paused = Boolean(session.state.state && session.state.state.paused);
    request({ type: paused ? "resume" : "pause" }).catch(showError);
  });
  $("handoff-copy").addEventListener("click", () => {
    $("handoff-link").select();
    navigator.clipboard?.writeText($("handoff-link").value).catch(() => {});
    toast("link_copied");
  });
  $("handoff-close").addEventListener("click", () => {
    $("handoff-box").hidden = true;
  });
  $("claim").addEventListener("submit", claim);
}
