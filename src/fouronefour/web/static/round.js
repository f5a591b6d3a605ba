// The round so far, from public events only: the moves grouped by trick, the last trick,
// and how many cards of each rank the viewer has not seen yet (the card counter).
//
// A trick ends as the engine ends it (docs/rules.md): when every other seat still holding
// cards has passed since the move on top, or when a hook chain ends (the last claimer
// leads next), which shows as a lead after a hook or unhook.

const MOVES = new Set(["play", "hook", "unhook"]);

/**
 * The round's tricks: `{tribute: [events], tricks: [{leader, events, closed}]}`, where a
 * trick's events are its plays, passes, hooks, unhooks and the finishes among them.
 */
export function groupTricks(log, players) {
  const tribute = [];
  const tricks = [];
  let current = null;
  let topSeat = null;
  let passes = 0;
  let chainEnded = false;
  const finished = new Set();
  const close = () => {
    if (current) current.closed = true;
    current = null;
    passes = 0;
  };
  for (const event of log) {
    if (event.type === "tribute" || event.type === "return") {
      tribute.push(event);
      continue;
    }
    if (event.type === "finish") {
      finished.add(event.seat);
      if (current) current.events.push(event);
      continue;
    }
    if (event.type === "hook" || event.type === "unhook") {
      if (!current) {
        current = { leader: event.seat, events: [], closed: false };
        tricks.push(current);
      }
      current.events.push(event);
      topSeat = event.seat;
      chainEnded = true; // unless another claim follows, the claimer leads a new trick
      continue;
    }
    if (chainEnded) close();
    chainEnded = false;
    if (event.type === "play") {
      if (!current) {
        current = { leader: event.seat, events: [], closed: false };
        tricks.push(current);
      }
      current.events.push(event);
      topSeat = event.seat;
      passes = 0;
    } else if (event.type === "pass" && current) {
      current.events.push(event);
      passes += 1;
      const others = players - finished.size - (finished.has(topSeat) ? 0 : 1);
      if (passes >= others) close();
    }
  }
  return { tribute, tricks };
}

/** The last trick that is over (null before the first one ends). */
export function lastClosedTrick(grouped) {
  for (let i = grouped.tricks.length - 1; i >= 0; i -= 1) if (grouped.tricks[i].closed) return grouped.tricks[i];
  return null;
}

/** The moves on the table this trick: [{seat, move, type}], the newest last. */
export function trickMoves(trick) {
  return trick ? trick.events.filter((event) => MOVES.has(event.type)) : [];
}

export const RANK_ORDER = "23456789TJQKABR";

/**
 * Cards of each rank the viewer has not seen: every deck's cards, less the own hand, less
 * the cards played this round, less tribute cards others received and have not played
 * since (public: everyone saw them change hands).
 */
export function unseenCounts(decks, hand, log, mySeat) {
  const unseen = {};
  for (const rank of RANK_ORDER) unseen[rank] = rank === "B" || rank === "R" ? decks : 4 * decks;
  for (const rank of hand || "") unseen[rank] -= 1;
  const known = new Map(); // seat -> {rank: count} of cards seen going to that seat
  const give = (seat, rank) => {
    if (seat === mySeat) return; // in the own hand already
    const held = known.get(seat) || {};
    held[rank] = (held[rank] || 0) + 1;
    known.set(seat, held);
  };
  for (const event of log) {
    if (event.type === "tribute") give(event.to, event.card);
    else if (event.type === "return") give(event.to, event.card);
    else if (MOVES.has(event.type)) {
      const held = known.get(event.seat) || {};
      for (const rank of event.move) {
        unseen[rank] -= 1;
        if (held[rank]) held[rank] -= 1; // the card seen going to that seat, most likely
      }
    }
  }
  for (const held of known.values()) for (const [rank, count] of Object.entries(held)) unseen[rank] -= count;
  for (const rank of RANK_ORDER) unseen[rank] = Math.max(0, unseen[rank]);
  return unseen;
}
