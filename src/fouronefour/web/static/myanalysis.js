// "Your decisions": once a round has ended, a player sees the analysis of their own
// decisions in it (docs/protocol.md section 2, analysis; asked with the seat's token): the
// label of each, and the better move where one was marked. In the side panel, opened from
// the round-end panel too; everybody's decisions come with the replay once the match is over.

import { t } from "./i18n.js";
import { $, el } from "./dom.js";
import { session } from "./session.js";
import { storage } from "./storage.js";
import { analysisStatus, decisionList, roundAnalysis } from "./analysis.js";
import { tableView } from "./state.js";
import { seatName } from "./table.js";
import { openSide } from "./roundpanel.js";

/** The round whose analysis a player may see now: the last one ended in this match. */
function shownRound() {
  const state = session.state;
  if (state.role !== "player" || !state.table || !state.code) return null;
  const round = state.results.length;
  if (!round || !state.table.match_number) return null;
  return { code: state.code, match: state.table.match_number, round };
}

export function renderMyAnalysis() {
  const section = $("my-analysis-section");
  const shown = shownRound();
  $("round-end-analysis").hidden = !shown;
  section.hidden = !shown;
  if (!shown) return;
  const saved = storage.seat(shown.code);
  const token = saved ? saved.token : null;
  const entry = roundAnalysis(shown.code, shown.match, shown.round, token, () => {
    const now = shownRound();
    const wanted = Boolean(now) && now.code === shown.code && now.match === shown.match && now.round === shown.round;
    if (wanted) renderMyAnalysis();
    return wanted;
  });
  $("my-analysis-title").textContent = t("my_analysis_title", { n: shown.round });
  const body = $("my-analysis");
  if (entry.status !== "ready") {
    body.replaceChildren(el("p", "hint-text analysis-status", analysisStatus(entry)));
    return;
  }
  // (Once the match is over the server sends everybody's: this list is the player's own.)
  const seat = session.state.seat;
  const own = entry.data.decisions
    .map((decision, index) => ({ decision, index }))
    .filter(({ decision }) => decision.seat === seat);
  // A forced move (one legal move, a pass mostly) says nothing: counted, not listed.
  const chosen = own.filter(({ decision }) => decision.label !== "forced");
  const forced = own.length - chosen.length;
  body.replaceChildren();
  // each with the trick it was made in (the public moves before it), named as at the table
  const view = tableView(session.state);
  const names = (other) => (other === seat ? t("you") : seatName(view, other));
  if (chosen.length) body.append(decisionList(chosen, null, null, names));
  if (forced) body.append(el("p", "hint-text", t("my_analysis_forced", { n: forced })));
  if (!own.length) body.append(el("p", "hint-text", t("my_analysis_empty")));
}

export function initMyAnalysis() {
  $("round-end-analysis").addEventListener("click", () => {
    openSide();
    $("my-analysis-section").scrollIntoView({ block: "nearest" });
    $("my-analysis-title").focus();
  });
}
