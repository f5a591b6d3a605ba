// Motion a person can follow: a played move glides from its player's seat to the centre,
// a bomb (and 414) lands with a flash. Only when motion is allowed (settings.js: the
// system's prefers-reduced-motion unless the player chose). The table is drawn at its new
// state first; the animation only moves the drawn move from where it came (FLIP), so the
// state shown never waits on an animation.

import { $ } from "./dom.js";
import { isBomb } from "./moves.js";
import { motionAllowed } from "./settings.js";

const MOVES = new Set(["play", "hook", "unhook"]);
const GLIDE_MS = 320;

/** After the table is drawn for `message`: glide the move on top in from its seat. */
export function animateChange(message) {
  if (message.type !== "update" || !motionAllowed()) return;
  const moves = (message.events || []).filter((event) => MOVES.has(event.type));
  if (!moves.length) return;
  const last = moves[moves.length - 1];
  const top = document.querySelector("[data-testid=top-move]");
  const seat = $("ring").querySelector(`[data-seat="${last.seat}"]`);
  if (!top || !seat || top.dataset.move !== last.move) return;
  const from = seat.getBoundingClientRect();
  const to = top.getBoundingClientRect();
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  top.animate(
    [
      { transform: `translate(${dx}px, ${dy}px) scale(0.55)`, opacity: 0.4 },
      { transform: "translate(0, 0) scale(1)", opacity: 1 },
    ],
    { duration: GLIDE_MS, easing: "cubic-bezier(0.2, 0.8, 0.3, 1)" },
  );
  if (isBomb(last.move)) {
    $("felt").animate(
      [
        { transform: "translateX(0)" },
        { transform: "translateX(-5px)" },
        { transform: "translateX(5px)" },
        { transform: "translateX(0)" },
      ],
      { duration: 260, delay: GLIDE_MS - 40, easing: "ease-out" },
    );
  }
}
