// Move helpers the UI needs beyond the engine's legal move list: which moves are bombs,
// and how strong a move is (for ordering hints).

const JOKER_PAIRS = new Set(["BB", "BR", "RR"]);

export function isBomb(move) {
  if (move === "pass") return false;
  if (move === "44A" || JOKER_PAIRS.has(move)) return true;
  return move.length >= 3 && [...move].every((rank) => rank === move[0]);
}

/** Strength of a move's highest card in the round's order (`order`: lowest first). */
export function topPower(move, order) {
  let best = -1;
  for (const rank of move) best = Math.max(best, order.indexOf(rank));
  return best;
}

/**
 * Legal moves in the order a hint offers them: plain moves before bombs, weakest first,
 * longer before shorter at the same strength (shed more cards), pass never.
 */
export function hintOrder(legalMoves, order) {
  const moves = legalMoves.filter((move) => move !== "pass");
  return moves.sort((a, b) => {
    const bombA = isBomb(a) ? 1 : 0;
    const bombB = isBomb(b) ? 1 : 0;
    if (bombA !== bombB) return bombA - bombB;
    if (bombA) return a.length - b.length || topPower(a, order) - topPower(b, order);
    return topPower(a, order) - topPower(b, order) || b.length - a.length;
  });
}

const RUN = "3456789TJQKA";

/** The kind of a legal move: "single", "pair", "straight", "double_dragon" or "bomb". */
export function moveKind(move) {
  if (isBomb(move)) return "bomb";
  if (move.length === 1) return "single";
  if (move.length === 2) return "pair";
  if (move.length % 2 === 0 && move.length >= 6 && [...move].every((r, i) => i % 2 === 0 || r === move[i - 1])) {
    const tops = [...move].filter((_, i) => i % 2 === 0).join("");
    if (RUN.includes(tops)) return "double_dragon";
  }
  return "straight";
}
