// A club's events (docs/tournaments.md): the club's list with the setup form
// (`/c/ID/events`) and one event's page (`/e/ID`): register, start, each round's
// tables with their links, and the standings, read again every few seconds while it runs.
// Names are the players' and the admins' own words: always set as text, never as HTML.

import { t, onLanguageChange } from "./i18n.js";
import { ApiError, csrfToken } from "./net.js";
import { $, el, button, showScreen } from "./dom.js";
import { showError } from "./toast.js";
import { currentProfile, loadMe } from "./profile.js";

const POLL_MS = 3000;
const FORMATS = ["swiss", "round_robin"];
const ENTRIES = ["pairs", "individuals"];
const LENGTHS = ["round", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "match"];

let shown = null; // { view: "event", id } or { view: "club", club }
let timer = null;
// The partner picker of the event shown: the club's members (read once a visit) and the
// one chosen, kept across the page's repaints.
let picker = { event: null, members: null, chosen: "" };
let navigate = (path) => {
  history.pushState(null, "", path);
};

async function call(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  const csrf = method === "GET" ? null : csrfToken();
  if (csrf) headers["X-CSRF-Token"] = csrf;
  const response = await fetch(path, {
    method,
    headers,
    body: method === "GET" ? undefined : JSON.stringify(body || {}),
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

/** The route of a tournaments page, or null: `/e/ID`, or `/c/ID/events`. */
export function tournamentRoute() {
  const event = location.pathname.match(/^\/e\/([A-Za-z0-9]{1,32})\/?$/);
  if (event) return { view: "event", id: event[1] };
  const club = location.pathname.match(/^\/c\/([A-Za-z0-9_-]{1,64})\/events\/?$/);
  return club ? { view: "club", club: club[1] } : null;
}

function screen() {
  let section = $("screen-tournament");
  if (!section) {
    section = el("section", "screen");
    section.id = "screen-tournament";
    section.hidden = true;
    section.dataset.testid = "screen-tournament";
    $("app").append(section);
  }
  return section;
}

export function initTournaments(go) {
  navigate = go;
  onLanguageChange(() => {
    if (shown && !screen().hidden) showTournamentRoute(shown);
  });
}

/** Show the page `route` names (from tournamentRoute). */
export async function showTournamentRoute(route) {
  clearTimeout(timer);
  shown = route;
  screen(); // (made on the first visit: then shown)
  showScreen("screen-tournament");
  if (route.view === "event") await paintEvent(route.id);
  else await paintClub(route.club);
}

function stillShown(route) {
  return shown === route && !screen().hidden;
}

// ------------------------------------------------------------------ the club's events

async function paintClub(club) {
  const route = shown;
  const section = screen();
  const panel = el("div", "panel tournament");
  panel.append(el("h2", null, t("ev_club_events")));
  const list = el("ul", "ev-list");
  list.dataset.testid = "ev-list";
  panel.append(list);
  try {
    const answer = await call("GET", `/api/clubs/${encodeURIComponent(club)}/events`);
    if (!stillShown(route)) return;
    for (const event of answer.events) {
      const item = el("li", "ev-item");
      const link = el("a", null, event.name);
      link.href = event.link;
      link.addEventListener("click", (e) => {
        e.preventDefault();
        navigate(event.link);
      });
      item.append(link, el("span", "hint-text", ` ${t(`ev_status_${event.status}`)}`));
      list.append(item);
    }
    if (!answer.events.length) list.append(el("li", "hint-text", t("ev_none")));
  } catch (error) {
    list.append(el("li", "hint-text", t("ev_not_member")));
  }
  panel.append(setupForm(club));
  section.replaceChildren(panel, homeLink(club));
}

function field(label, input) {
  const wrap = el("label", "ev-field");
  wrap.append(el("span", null, label), input);
  return wrap;
}

function select(name, values, labels) {
  const node = el("select");
  node.name = name;
  node.dataset.testid = `ev-${name}`;
  for (const value of values) {
    const option = el("option", null, labels(value));
    option.value = value;
    node.append(option);
  }
  return node;
}

function setupForm(club) {
  const form = el("form", "ev-setup");
  form.dataset.testid = "ev-setup";
  form.append(el("h3", null, t("ev_setup")));
  const name = el("input");
  name.name = "name";
  name.maxLength = 40;
  name.required = true;
  name.dataset.testid = "ev-name";
  const rounds = el("input");
  Object.assign(rounds, { type: "number", min: 1, max: 15, value: 3, name: "rounds" });
  rounds.dataset.testid = "ev-rounds";
  const grace = el("input");
  Object.assign(grace, { type: "number", min: 0, max: 600, value: 60, name: "grace_seconds" });
  const format = select("format", FORMATS, (v) => t(`ev_format_${v}`));
  const entry = select("entry", ENTRIES, (v) => t(`ev_entry_${v}`));
  const length = select("length", LENGTHS, (v) =>
    v === "round" ? t("ev_length_round") : v === "match" ? t("ev_length_match") : t("ev_length_level", { level: v }),
  );
  form.append(
    field(t("ev_name"), name),
    field(t("ev_format"), format),
    field(t("ev_entry"), entry),
    field(t("ev_rounds"), rounds),
    field(t("ev_length"), length),
    field(t("ev_grace"), grace),
  );
  const submit = button("btn btn-primary", t("ev_create"), "ev-create");
  submit.type = "submit";
  form.append(submit);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const event = await call("POST", `/api/clubs/${encodeURIComponent(club)}/events`, {
        name: name.value,
        format: format.value,
        entry: entry.value,
        rounds: Number(rounds.value),
        length: length.value,
        grace_seconds: Number(grace.value),
      });
      navigate(event.link);
    } catch (error) {
      showError(error);
    }
  });
  return form;
}

/** Home, and the club's page when the event's club is known. */
function homeLink(club = null) {
  const row = el("div", "row profile-nav");
  const home = el("a", "btn btn-small", t("home"));
  home.href = "/";
  row.append(home);
  if (club) {
    const back = el("a", "btn btn-small", t("ev_back_to_club"));
    back.href = `/c/${encodeURIComponent(club)}`;
    back.dataset.testid = "ev-club";
    row.append(back);
  }
  return row;
}

// ------------------------------------------------------------------ one event

async function paintEvent(id) {
  const route = shown;
  let event;
  try {
    event = await call("GET", `/api/events/${encodeURIComponent(id)}`);
  } catch (error) {
    if (!stillShown(route)) return;
    const panel = el("div", "panel tournament");
    panel.append(el("h2", null, t("ev_not_found")));
    screen().replaceChildren(panel, homeLink());
    return;
  }
  if (!stillShown(route)) return;
  const poll = () => {
    if (event.status !== "finished") timer = setTimeout(() => stillShown(route) && paintEvent(id), POLL_MS);
  };
  // (Not while a partner is being chosen: a repaint would close the list.)
  const choosing = document.activeElement && document.activeElement.dataset.testid === "ev-partner";
  if (choosing) return poll();
  if (picker.event !== event.id) picker = { event: event.id, members: null, chosen: "" };
  if (wantsPartner(event) && picker.members === null) picker.members = await clubMembers(event.club);
  if (!stillShown(route)) return;
  screen().replaceChildren(eventPanel(event), homeLink(event.club));
  poll();
}

/** The asker may register with a partner: a fixed pairs event, open, they not in it. */
function wantsPartner(event) {
  return event.status === "open" && event.entry === "pairs" && !event.you.registered;
}

/** The club's members as a partner picker offers them ([{id, name}]; [] if unreadable). */
async function clubMembers(club) {
  try {
    if (!currentProfile()) await loadMe();
    const page = await call("GET", `/api/clubs/${encodeURIComponent(club)}`);
    return page.members.map((member) => ({ id: member.id, name: member.name }));
  } catch (error) {
    showError(error);
    return [];
  }
}

function lengthText(length) {
  if (length === "round") return t("ev_length_round");
  if (length === "match") return t("ev_length_match");
  return t("ev_length_level", { level: length });
}

function eventPanel(event) {
  const panel = el("div", "panel tournament");
  panel.dataset.testid = "ev-page";
  const title = el("h2", "ev-title", event.name);
  title.dataset.testid = "ev-title";
  panel.append(title);
  const facts = [
    t(`ev_format_${event.format}`),
    t(`ev_entry_${event.entry}`),
    event.status === "open" ? t("ev_rounds_total", { n: event.rounds }) : t("ev_rounds_of", { round: event.round, n: event.rounds }),
    lengthText(event.length),
    t(`ev_status_${event.status}`),
  ];
  const meta = el("p", "hint-text ev-meta", facts.join(" · "));
  meta.dataset.testid = "ev-meta";
  panel.append(meta);
  panel.append(actions(event));
  if (event.status === "open") panel.append(playersList(event));
  if (event.standings.length) panel.append(standingsTable(event));
  for (const round of [...event.schedule].reverse()) panel.append(roundBlock(round, event.you.entrant));
  return panel;
}

function actions(event) {
  const row = el("div", "row ev-actions");
  const act = (label, testid, path) => {
    const node = button("btn", label, testid);
    node.addEventListener("click", async () => {
      node.disabled = true;
      try {
        await call("POST", `/api/events/${encodeURIComponent(event.id)}/${path}`);
        await showTournamentRoute(shown);
      } catch (error) {
        node.disabled = false;
        showError(error);
      }
    });
    return node;
  };
  if (event.status === "open") {
    if (event.you.registered) row.append(act(t("ev_withdraw"), "ev-withdraw", "withdraw"));
    else if (wantsPartner(event)) row.append(partnerPicker(event), registerWithPartner(event));
    else row.append(act(t("ev_register"), "ev-register", "register"));
    if (event.you.admin) {
      const start = act(t("ev_start"), "ev-start", "start");
      start.classList.add("btn-primary");
      row.append(start);
    }
    if (event.entry === "pairs") row.append(el("p", "hint-text", t("ev_partner_hint")));
  }
  return row;
}

/** Who may be chosen as a partner: the club's members but the asker and the registered. */
function partnerPicker(event) {
  const me = currentProfile();
  const taken = new Set(event.players.map((player) => player.profile_id));
  const choices = (picker.members || []).filter((member) => !taken.has(member.id) && !(me && member.id === me.id));
  const node = el("select");
  node.dataset.testid = "ev-partner";
  const alone = el("option", null, t("ev_partner_none"));
  alone.value = "";
  node.append(alone);
  for (const member of [...choices].sort((a, b) => a.name.localeCompare(b.name))) {
    const option = el("option", null, member.name);
    option.value = member.id;
    node.append(option);
  }
  node.value = choices.some((member) => member.id === picker.chosen) ? picker.chosen : "";
  picker.chosen = node.value;
  node.addEventListener("change", () => {
    picker.chosen = node.value;
  });
  return field(t("ev_partner"), node);
}

function registerWithPartner(event) {
  const node = button("btn", t("ev_register"), "ev-register");
  node.addEventListener("click", async () => {
    node.disabled = true;
    const partner = picker.chosen;
    try {
      await call("POST", `/api/events/${encodeURIComponent(event.id)}/register`, partner ? { partner } : {});
      picker.chosen = "";
      await showTournamentRoute(shown);
    } catch (error) {
      node.disabled = false;
      showError(error);
      // (A partner who registered meanwhile, or left the club: offer the list as it is now.)
      if (partner) picker.members = null;
    }
  });
  return node;
}

function playersList(event) {
  const block = el("div", "ev-block");
  block.append(el("h3", null, t("ev_players", { n: event.players.length })));
  const list = el("ul", "ev-players");
  list.dataset.testid = "ev-players";
  if (event.entry === "pairs") {
    // Registered pairs together; a player who came alone is drawn a partner at the start.
    const teams = new Map();
    for (const player of event.players) {
      if (!teams.has(player.team)) teams.set(player.team, []);
      teams.get(player.team).push(player.name);
    }
    for (const names of teams.values()) {
      const item = el("li", "ev-pair", names.join(" & "));
      item.dataset.testid = "ev-pair";
      if (names.length === 1) item.append(el("span", "hint-text", ` ${t("ev_partner_drawn")}`));
      list.append(item);
    }
  } else {
    for (const player of event.players) list.append(el("li", null, player.name));
  }
  block.append(list);
  return block;
}

function standingsTable(event) {
  const block = el("div", "ev-block");
  block.append(el("h3", null, t("ev_standings")));
  const table = el("table", "ev-standings");
  table.dataset.testid = "ev-standings";
  const head = el("tr");
  for (const key of ["ev_place", "ev_entrant", "ev_points", "ev_buchholz", "ev_levels"]) {
    const cell = el("th", null, t(key));
    cell.scope = "col";
    head.append(cell);
  }
  table.append(head);
  for (const row of event.standings) {
    const line = el("tr", row.entrant === event.you.entrant ? "ev-mine" : null);
    const levels = row.level_difference > 0 ? `+${row.level_difference}` : String(row.level_difference);
    for (const value of [row.place, row.name ?? "?", row.points, row.buchholz, levels]) {
      line.append(el("td", null, String(value)));
    }
    table.append(line);
  }
  block.append(table, el("p", "hint-text ev-ties", t("ev_tiebreaks")));
  return block;
}

function sideName(side) {
  return side.map((entrant) => entrant.name ?? "?").join(" & ");
}

function roundBlock(round, mine) {
  const block = el("div", "ev-block");
  block.dataset.testid = `ev-round-${round.round}`;
  block.append(el("h3", null, t("ev_round", { n: round.round })));
  const list = el("ul", "ev-tables");
  for (const table of round.tables) {
    const item = el("li", "ev-table");
    if (mine && [...table.north, ...table.east].some((side) => side.entrant === mine)) item.classList.add("ev-mine");
    const head = el("div", "ev-head");
    head.append(el("span", "ev-number", t("ev_table", { n: table.number })), el("span", "hint-text", t(`ev_table_${table.status}`)));
    const sides = el("div", "ev-sides");
    const north = el("span", table.winner === "north" ? "ev-won" : null, sideName(table.north));
    const east = el("span", table.winner === "east" ? "ev-won" : null, sideName(table.east));
    sides.append(north, el("span", "hint-text", ` ${t("ev_vs")} `), east);
    item.append(head, sides);
    if (table.link) {
      const link = el("a", "btn btn-small", table.status === "decided" ? t("ev_watch") : t("ev_open_table"));
      link.href = table.link;
      link.dataset.testid = "ev-table-link";
      item.append(link);
    }
    list.append(item);
  }
  for (const bye of round.byes) {
    list.append(el("li", "ev-table hint-text", t("ev_bye", { name: bye.name ?? "?" })));
  }
  block.append(list);
  return block;
}
