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

/**
 * Each seat's latest action in the trick on the table (plays, passes, hooks, unhooks): a
 * map seat -> {type, move}. Empty when a new trick is to be led: nothing on top and no
 * claim window open (after a hook chain the last claimer leads, and the chain is over).
 */
export function seatActions(view) {
  const actions = new Map();
  if (!view || ((view.top === null || view.top === undefined) && !view.window)) return actions;
  const grouped = groupTricks(view.log, view.players);
  const trick = grouped.tricks[grouped.tricks.length - 1];
  if (!trick || trick.closed) return actions;
  for (const event of trick.events) {
    if (event.type !== "finish") actions.set(event.seat, { type: event.type, move: event.move });
  }
  return actions;
}

export const RANK_ORDER = "23456789TJQKABR";

/**
 * Cards of each rank the viewer has not seen: every deck's cards, less the own hand, less
 * the cards played this round, less the cards others were seen to receive (tribute and
 * returns are public) and have not given away or played since. A card given back is no
 * longer known to be with its giver: a receiver may return the very card it was paid
 * (docs/rules.md, section 8).
 */
export function unseenCounts(decks, hand, log, mySeat) {
  const unseen = {};
  for (const rank of RANK_ORDER) unseen[rank] = rank === "B" || rank === "R" ? decks : 4 * decks;
  for (const rank of hand || "") unseen[rank] -= 1;
  const known = new Map(); // seat -> {rank: count} of cards seen going to that seat
  const held = (seat) => {
    if (!known.has(seat)) known.set(seat, {});
    return known.get(seat);
  };
  const gone = (seat, rank) => {
    const cards = held(seat);
    if (cards[rank]) cards[rank] -= 1; // the card seen going there, as far as anyone knows
  };
  for (const event of log) {
    if (event.type === "tribute" || event.type === "return") {
      gone(event.seat, event.card);
      if (event.to !== mySeat) held(event.to)[event.card] = (held(event.to)[event.card] || 0) + 1;
    } else if (MOVES.has(event.type)) {
      for (const rank of event.move) {
        unseen[rank] -= 1;
        gone(event.seat, rank);
      }
    }
  }
  for (const [seat, cards] of known) {
    if (seat === mySeat) continue; // in the own hand already
    for (const [rank, count] of Object.entries(cards)) unseen[rank] -= count;
  }
  for (const rank of RANK_ORDER) unseen[rank] = Math.max(0, unseen[rank]);
  return unseen;
}
