// Lobby: the table's rules, the seats (take one, or watch), the host's fill and start.

import { t } from "./i18n.js";
import { api } from "./net.js";
import { $, el, button } from "./dom.js";
import { storage } from "./storage.js";
import { seatName } from "./profile.js";
import { dispatch, request, session } from "./session.js";
import { eventGoal } from "./state.js";
import { showError, toast } from "./toast.js";
import { teamName } from "./table.js";

const local = { watching: false };

export function resetLobby() {
  local.watching = false;
}

/** The table's rules and timing, so that whoever opens the link knows the game. */
function renderLobbyOptions(options) {
  const on = (flag) => (flag ? "✓" : "✗");
  const ladder = t(options.bomb_ladder === "size" ? "ladder_size" : "ladder_listed");
  const items = [
    [t("decks"), String(options.decks)],
    [t("rule_hooking"), on(options.hooking)],
    [t("rule_tribute"), on(options.tribute)],
    [t("bomb_ladder"), ladder],
    [t("turn_timer"), `${options.turn_seconds} s`],
    [t("hook_windows"), `${t(options.hook_mode === "fast" ? "windows_fast" : "windows_fair")} · ${options.hook_seconds} s`],
    [t("bot_level"), t(`bot_${options.bot}`)],
  ];
  if (options.private) items.push([t("private_short"), t("private_lobby")]);
  $("lobby-options").replaceChildren(
    ...items.map(([label, value]) => {
      const item = el("li");
      item.append(el("span", "", `${label}: `), el("strong", "", value));
      return item;
    }),
  );
}

export function renderLobby() {
  const state = session.state;
  const table = state.table;
  renderLobbyOptions(table.options);
  const list = $("lobby-seats");
  list.replaceChildren();
  const seated = state.role === "player";
  // A player the host removed is offered no seat: only a handoff from the host seats them.
  const removed = !seated && Boolean(storage.removed(state.code));
  const canSit = !seated && !removed && (table.status === "lobby" || table.status === "finished");
  const canJoin = canSit && !local.watching;
  // (an event's table seats whom the event paired: its host removes or moves nobody)
  const hostTools = state.host && seated && !eventGoal(state);
  for (const seat of table.seats) {
    const item = el("li", `lobby-seat team-${seat.team}`);
    item.dataset.testid = `lobby-seat-${seat.seat}`;
    if (seated && seat.seat === state.seat) item.classList.add("mine");
    const dot = el("span", "team-dot", seat.team === 0 ? "A" : "B");
    dot.title = teamName(seat.team);
    item.append(dot);
    const name = el("span", "seat-name");
    if (seat.kind === "empty") {
      name.append(el("span", "seat-empty", t("seat_empty", { n: seat.seat + 1 })));
    } else if (seat.kind === "bot") {
      name.textContent = t("bot_name", { n: seat.seat + 1 });
      name.append(" ", el("span", "bot-tag", t(`bot_${table.options.bot}`)));
    } else {
      name.textContent = seat.name + (seat.online ? "" : ` (${t("offline")})`);
      if (seat.seat === table.host_seat) name.textContent += ` · ${t("host")}`;
    }
    item.append(name);
    // The host's tools (and "Sit here") keep to a line of their own when the name needs
    // the card's width.
    const tools = el("span", "host-seat-tools");
    if (hostTools && seat.seat !== table.host_seat && seat.kind !== "empty") {
      // The host may send a player (or a bot) away before the match or between matches.
      const kick = button("btn btn-small", t("kick"), `kick-${seat.seat}`);
      kick.addEventListener("click", () => request({ type: "kick", seat: seat.seat }).catch(showError));
      tools.append(kick);
    }
    if (hostTools && seat.kind !== "empty") {
      // ... and move people around: swap this seat with another (an empty one too).
      const move = document.createElement("select");
      move.className = "seat-move";
      move.dataset.testid = `move-${seat.seat}`;
      move.setAttribute("aria-label", `${t("move_to")} (${t("seat_n", { n: seat.seat + 1 })})`);
      const none = document.createElement("option");
      none.value = "";
      none.textContent = t("move_to");
      move.append(none);
      for (const other of table.seats) {
        if (other.seat === seat.seat) continue;
        const option = document.createElement("option");
        option.value = String(other.seat);
        option.textContent = t("seat_n", { n: other.seat + 1 });
        move.append(option);
      }
      move.addEventListener("change", () => {
        if (move.value === "") return;
        request({ type: "move_seat", from: seat.seat, to: Number(move.value) }).catch(showError);
      });
      tools.append(move);
    }
    if (canJoin && seat.kind !== "human") {
      const sit = button("btn btn-small btn-primary", t("take_seat"), `take-seat-${seat.seat}`);
      sit.addEventListener("click", () => takeSeat(seat.seat));
      tools.append(sit);
    }
    if (tools.childElementCount) item.append(tools);
    list.append(item);
  }
  $("lobby-name-row").hidden = !canJoin;
  if (canJoin && !$("lobby-name").value) $("lobby-name").value = seatName();
  // "Just watch" is no one-way door: while watching, the same button offers the seats again.
  const watch = $("watch");
  watch.hidden = !canSit;
  watch.dataset.i18n = local.watching ? "watch_stop" : "watch";
  watch.textContent = t(watch.dataset.i18n);
  // An event's table is started by its event (docs/clubs.md), not by its host.
  const event = eventGoal(state);
  const host = state.host && seated && !event;
  const anyEmpty = table.seats.some((seat) => seat.kind === "empty");
  $("fill-bots").hidden = !host;
  $("fill-bots").disabled = !anyEmpty;
  $("start").hidden = !host;
  $("start").disabled = anyEmpty;
  let note = "";
  if (event && seated) note = t("lobby_note_event");
  else if (host) note = anyEmpty ? t("lobby_note_host_empty") : t("lobby_note_host_ready");
  else if (seated) note = t("lobby_note_wait_host");
  else if (removed) note = t("lobby_note_removed");
  else if (local.watching) note = t("lobby_note_watching");
  else note = t("lobby_note_pick");
  $("lobby-note").textContent = note;
}

async function takeSeat(seat) {
  const name = $("lobby-name").value.trim();
  if (!name) {
    $("lobby-name").focus();
    toast("need_name", {}, { error: true });
    return;
  }
  storage.setName(name);
  try {
    const code = session.state.code;
    const joined = await api.join(code, name, seat);
    storage.setSeat(code, joined.seat, joined.token);
    dispatch({ type: "table", table: joined.table });
    session.conn.reopenAs(joined.token);
  } catch (error) {
    showError(error);
  }
}

/** Wire the lobby's buttons; `rerender()` draws the table screen again. */
export function initLobby(rerender) {
  $("watch").addEventListener("click", () => {
    local.watching = !local.watching;
    rerender();
  });
  $("fill-bots").addEventListener("click", () => request({ type: "fill_bots" }).catch(showError));
  $("start").addEventListener("click", () => request({ type: "start" }).catch(showError));
}
