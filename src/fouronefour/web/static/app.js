// The 414 browser client: routes between the screens and feeds the server's messages
// through `reduce` (state.js) to the screens that render them.
//
// home.js (create or join), lobby.js, game.js (with hand.js, offer.js, results.js and the
// table renderers in table.js), replay.js. The state comes from the server only
// (docs/protocol.md); each screen reads `session.state` and keeps only its own UI details.

import * as i18n from "./i18n.js";
import { api, ApiError, TableConnection } from "./net.js";
import { $, showScreen } from "./dom.js";
import { storage } from "./storage.js";
import { dispatch, onChange, session } from "./session.js";
import { eventTypes } from "./state.js";
import { clearToast, retranslateToast, showError, toast } from "./toast.js";
import { initHome, retranslateHome, showHome } from "./home.js";
import { initLobby, renderLobby, resetLobby } from "./lobby.js";
import { initGame, renderGame, tickGame } from "./game.js";
import { initHand, resetHand } from "./hand.js";
import { initOffer, resetOffer } from "./offer.js";
import { initRoundPanel } from "./roundpanel.js";
import { announceChange } from "./announce.js";
import { alertChange, initAlerts, setBaseTitle } from "./alerts.js";
import { animateChange } from "./motion.js";
import { initSettings } from "./settings.js";
import { initPush } from "./push.js";
import { applyChatConfig, chatChange, initChat, retranslateChat } from "./chat.js";
import { initRoundEnd } from "./roundend.js";
import { initMyAnalysis } from "./myanalysis.js";
import { initPeople, renderClaim, renderPresence } from "./people.js";
import { initResults, onResultsChange, resetResults, retranslateResults, showLastResults } from "./results.js";
import { initQuickMatch, resumeQuickMatch, retranslateQuickMatch } from "./quickmatch.js";
import { initPlayAgain } from "./playagain.js";
import { openReplays, rerenderReplay } from "./replay.js";
import { initLearn, learnRoute, retranslateLearn, showLearn } from "./learn.js";
import { initLesson, openLesson, retranslateLesson } from "./lesson.js";
import { initPractice, retranslatePractice } from "./practice.js";
import { clubRoute, initClubs, showClubRoute } from "./clubs.js";
import { initTournaments, showTournamentRoute, tournamentRoute } from "./tournaments.js";
import { initFriends, retranslateFriends, startFriends } from "./friends.js";
import { initProfile, loadMe, onProfileChange, profileLoaded, profileRoute, rememberLanguage, showProfileRoute } from "./profile.js";

/** The invite link's own part: `/t/CODE`, and `#invite=SECRET` for a private table. */
export function inviteLink(code) {
  const invite = storage.invite(code);
  return `${location.origin}/t/${code}${invite ? `#invite=${invite}` : ""}`;
}

/** Keep the invite of a private table's link (#invite=..., also in a handoff link). */
function keepInviteFromHash(code) {
  const match = location.hash.match(/invite=([A-Za-z0-9_-]+)/);
  if (match) storage.setInvite(code, match[1]);
}

function tableCodeFromPath() {
  const match = location.pathname.match(/^\/t\/([A-Za-z0-9]+)\/?$/);
  return match ? match[1].toUpperCase() : null;
}

/** Draw the table screen (lobby or game) from the state. */
function render() {
  const state = session.state;
  if (!state.table) return;
  const table = state.table;
  const options = table.options;
  const bits = [i18n.t("table_n", { code: table.code }), i18n.t("seats_count", { n: options.players })];
  if (options.hooking) bits.push(i18n.t("rule_hooking"));
  if (options.tribute) bits.push(i18n.t("rule_tribute"));
  if (options.private) bits.push(i18n.t("private_short"));
  if (options.rated) bits.push(i18n.t("game_rated"));
  $("topbar-info").textContent = bits.join(" · ");
  setBaseTitle(`414 · ${table.code}`);
  const inLobby = table.status === "lobby" || !state.state;
  $("invite").hidden = !inLobby && state.role === "player" && table.status === "playing";
  $("lobby").hidden = !inLobby;
  $("game").hidden = inLobby;
  document.body.classList.toggle("in-game", !inLobby);
  if (inLobby) renderLobby();
  else renderGame();
  renderClaim();
  renderPresence();
}

// Updates can come in bursts (bots at speed, the missed updates after a reconnect): the
// state takes each at once, the screen is drawn once per frame from the latest state.
let drawing = null; // messages since the last drawing, or null when none is due

function drawSoon(message) {
  if (drawing) {
    drawing.push(message);
    return;
  }
  drawing = [message];
  // A hidden tab gets no animation frames; it is drawn all the same.
  if (document.hidden) setTimeout(draw, 50);
  else requestAnimationFrame(draw);
}

function draw() {
  const messages = drawing || [];
  drawing = null;
  render();
  for (const message of messages) chatChange(null, session.state, message);
  const moved = messages.filter((message) => eventTypes(message).has("play") || eventTypes(message).has("hook") || eventTypes(message).has("unhook"));
  if (moved.length) animateChange(moved[moved.length - 1]);
}

function replays() {
  openReplays(session.state.code, "screen-table");
}

async function enterTable(code) {
  if (session.conn) session.conn.close();
  session.conn = null;
  hideStopped();
  dispatch({ type: "enter", code });
  resetLobby();
  resetHand();
  resetOffer();
  resetResults();
  clearToast();
  showScreen("screen-table");
  $("lobby").hidden = true;
  $("game").hidden = true;
  $("invite-code").textContent = code;
  keepInviteFromHash(code);
  $("invite-link").value = inviteLink(code);
  let table;
  try {
    table = await api.table(code);
  } catch (error) {
    showError(error);
    if (error instanceof ApiError && error.code === "table_not_found") {
      history.replaceState(null, "", "/");
      showHome();
    }
    return;
  }
  if (session.state.code !== code) return; // left meanwhile
  let saved = storage.seat(code);
  if (!saved) {
    // No token here, but this profile holds a seat (played from another device): take it
    // back (docs/protocol.md, "return"; the other device's connections are closed).
    const me = await profileLoaded();
    if (me && table.seats.some((seat) => seat.profile === me.id)) {
      try {
        const back = await api.returnSeat(code);
        storage.setSeat(code, back.seat, back.token);
        saved = { seat: back.seat, token: back.token };
        table = back.table;
      } catch {
        // (signed out meanwhile, or the seat is gone: watch, as without a profile)
      }
      if (session.state.code !== code) return;
    }
  }
  dispatch({ type: "table", table });
  connect(code, saved ? saved.token : null);
  render();
}

function connect(code, token) {
  const stamped = (message) => ({ ...message, received: Date.now() });
  const conn = new TableConnection(code, token, {
    onWelcome: (message) => dispatch(stamped(message)),
    onSnapshot: (message) => dispatch(stamped(message)),
    onUpdate: (message) => dispatch(stamped(message)),
    onPresence: (message) => dispatch(stamped(message)),
    onStatus(connected) {
      $("conn").hidden = connected;
    },
    onFatal(error) {
      if (error.code === "too_many_connections") {
        // Not a toast: this tab is done until its player says otherwise.
        showStopped(error.replaced ? "stopped_replaced" : "error_too_many_connections", error.replaced ? "play_here" : "try_again");
        return;
      }
      if (error.code === "bad_token" || error.code === "kicked") {
        // The stored seat is no longer valid (another server, or a reset): watch instead.
        // Removed by the host: keep the token, by which the server knows this player.
        if (error.code === "kicked" && conn.token) storage.setRemoved(code, conn.token);
        storage.forgetSeat(code);
        showError(error);
        conn.reopenAs(null);
        return;
      }
      showError(error);
    },
  });
  conn.name = storage.name() || null;
  session.conn = conn;
  conn.open();
}

/** Say why this tab stopped, with one button to connect again. */
function showStopped(textKey, buttonKey) {
  $("stopped-text").dataset.i18n = textKey;
  $("stopped-retry").dataset.i18n = buttonKey;
  i18n.translatePage($("stopped"));
  $("conn").hidden = true;
  $("stopped").hidden = false;
  $("stopped-retry").focus();
}

function hideStopped() {
  $("stopped").hidden = true;
}

function route() {
  const code = tableCodeFromPath();
  if (code) enterTable(code);
  else {
    if (session.conn) session.conn.close();
    session.conn = null;
    hideStopped();
    dispatch({ type: "enter", code: null });
    document.body.classList.remove("in-game");
    clearToast();
    const learn = learnRoute(location.pathname);
    const profile = profileRoute();
    const club = clubRoute();
    const tournament = tournamentRoute();
    if (tournament) showTournamentRoute(tournament);
    else if (club) showClubRoute(club);
    else if (profile) showProfileRoute(profile);
    else if (learn && learn.id) openLesson(learn.id);
    else if (learn) showLearn();
    else showHome();
  }
}

function copyLink() {
  const input = $("invite-link");
  const done = () => toast("link_copied");
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(done, () => {
      input.select();
      document.execCommand("copy");
      done();
    });
  } else {
    input.select();
    document.execCommand("copy");
    done();
  }
}

function fillLanguages() {
  const select = $("lang-select");
  for (const [code, name] of Object.entries(i18n.LANGUAGES)) {
    const option = document.createElement("option");
    option.value = code;
    option.textContent = name;
    select.append(option);
  }
  select.value = i18n.language();
  select.addEventListener("change", () => {
    i18n.setLanguage(select.value);
    rememberLanguage(select.value);
  });
}

async function main() {
  await i18n.setLanguage(i18n.preferredLanguage(), { remember: false });
  fillLanguages();
  i18n.onLanguageChange(() => {
    $("lang-select").value = i18n.language();
    render();
    rerenderReplay();
    retranslateResults();
    retranslateHome();
    retranslateToast();
    retranslateChat();
    retranslateLearn();
    retranslateLesson();
    retranslatePractice();
    retranslateQuickMatch();
    retranslateFriends();
  });
  initHome(enterTable);
  initLobby(render);
  initGame(replays);
  initHand();
  initOffer();
  initRoundPanel();
  initSettings();
  initAlerts();
  initChat();
  initRoundEnd();
  initMyAnalysis();
  initPeople();
  api.config().then(applyChatConfig, () => {});
  initResults(replays);
  initQuickMatch(enterTable);
  initPlayAgain(enterTable, showLastResults);
  initLearn((path) => {
    history.pushState(null, "", path);
    route();
  });
  initLesson();
  initPractice(enterTable);
  const navigate = (path) => {
    history.pushState(null, "", path);
    route();
  };
  initProfile(navigate);
  initClubs(navigate, (path) => {
    history.replaceState(null, "", path);
    route();
  });
  initPush();
  initTournaments(navigate);
  initFriends(navigate);
  // This browser's profile (a guest made on the first visit): the top bar shows it.
  const meLoaded = loadMe();
  // Its friends, and their statuses live, for whoever is signed in (again after a sign-in).
  onProfileChange((profile) => startFriends(profile ? profile.id : null));
  onChange((previous, next, message) => {
    if (message.type === "update" || message.type === "snapshot" || message.type === "welcome") {
      onResultsChange(previous, next, message);
      if (eventTypes(message).has("round_start")) clearToast(); // last round's news is old
      announceChange(previous, next, message);
      alertChange(previous, next);
      drawSoon(message);
    } else if (message.type === "presence") {
      renderPresence();
    }
  });
  $("copy-link").addEventListener("click", copyLink);
  $("stopped-retry").addEventListener("click", () => {
    hideStopped();
    session.conn?.open(); // a seat's player here again: the oldest other connection goes
  });
  window.addEventListener("popstate", route);
  setInterval(tickGame, 250);
  route();
  await meLoaded;
  if (!session.state.code) resumeQuickMatch(); // (still waiting in the queue: a reload)
  document.body.dataset.ready = "true";
  // Installable: the service worker keeps the app shell (served from the root: its scope).
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
}

main();
