// A live region for screen readers: each move as a sentence, and the viewer's turn.

import { t } from "./i18n.js";
import { $ } from "./dom.js";
import { decisionOf, tableView } from "./state.js";
import { describeEvent } from "./table.js";

const SPOKEN = new Set(["play", "pass", "hook", "unhook", "finish", "return"]);

/** After a change: read out what happened (the latest events) and whose turn it is. */
export function announceChange(previous, next, message) {
  if (message.type !== "update" || !next.table || !next.state) return;
  const view = tableView(next);
  const lines = (message.events || []).filter((event) => SPOKEN.has(event.type)).map((event) => describeEvent(view, event));
  const decision = decisionOf(next);
  if (decision && decision !== decisionOf(previous)) {
    lines.push(t(decision === "hook" || decision === "unhook" ? "announce_offer" : "announce_your_turn"));
  }
  if (lines.length) $("announce").textContent = lines.slice(-3).join(". ");
}
