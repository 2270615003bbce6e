// A minimal Carioca engine and adapter: protocol 1, the `melds` capability, `argentine`.
//
// It answers the three melds questions (check_meld, check_contract, penalty) from the
// Argentine rules of docs/rules.md: trios MELD-TRIO-1..4, runs MELD-RUN-1..6, jokers
// JOKER-1..3, contracts CONTRACT-1..8, card values SCORE-2. It claims nothing else: no
// `turns`, no `deals`, no rejection `reasons`, one profile. Every disputed point is played
// as the profile's default, so the handshake declares no rulings. Node only, no packages.
// Run it: carioca-conformance run --adapter "node docs/quickstart/adapter.js"
"use strict";

const readline = require("node:readline");

const RANKS = { A: 1, J: 11, Q: 12, K: 13 };
for (let n = 2; n <= 10; n++) RANKS[String(n)] = n;
const SUITS = "SHDC";
// The deal's contract: [trios, runs], CONTRACT-1..7.
const CONTRACTS = { 1: [2, 0], 2: [1, 1], 3: [0, 2], 4: [3, 0], 5: [2, 1], 6: [1, 2], 7: [0, 3] };

class BadRequest extends Error {}

// A card code as {rank, suit}, or null for a joker.
function parse(code) {
  if (code === "JK") return null;
  if (typeof code !== "string") throw new BadRequest(`card code ${JSON.stringify(code)}`);
  const rank = code.slice(0, -1);
  const suit = code.slice(-1);
  if (!Object.hasOwn(RANKS, rank) || suit === "" || !SUITS.includes(suit)) {
    throw new BadRequest(`unknown card code ${JSON.stringify(code)}`);
  }
  return { rank: RANKS[rank], suit };
}

function cardsOf(cards) {
  if (!Array.isArray(cards)) throw new BadRequest("cards is not a list");
  return cards.map(parse);
}

// MELD-TRIO: one rank among the natural cards; in an opening 3 cards, one joker at most.
function isTrio(cards, initial) {
  const naturals = cardsOf(cards).filter((c) => c !== null);
  const jokers = cards.length - naturals.length;
  if (initial && (cards.length !== 3 || jokers > 1)) return false; // MELD-TRIO-1, JOKER-2
  // MELD-TRIO-3; a trio needs a natural card to have a rank at all.
  return cards.length >= 3 && naturals.length > 0 && new Set(naturals.map((c) => c.rank)).size === 1;
}

// MELD-RUN: one suit, listed low to high, each card at its own position (A is 1 or 14).
function isRun(cards, initial) {
  const parsed = cardsOf(cards);
  const naturals = parsed.filter((c) => c !== null);
  if (initial && (cards.length !== 4 || naturals.length < 3)) return false; // MELD-RUN-1, JOKER-2
  if (cards.length < 4 || cards.length > 14 || naturals.length === 0) return false;
  if (new Set(naturals.map((c) => c.suit)).size !== 1) return false;
  // Try every start position: the run must lie within 1 (low ace) .. 14 (high ace),
  // which rules out turning the K-A-2 corner (MELD-RUN-3, MELD-RUN-5).
  for (let start = 1; start + cards.length - 1 <= 14; start++) {
    const fits = parsed.every((c, i) => {
      const position = start + i;
      return c === null || c.rank === position || (c.rank === 1 && position === 14);
    });
    if (fits) return true;
  }
  return false;
}

// Whether a {kind, cards} meld is valid, in an opening (initial) or on the table.
function isMeld(meld, initial) {
  if (meld === null || typeof meld !== "object") throw new BadRequest("meld is not an object");
  if (meld.kind === "trio") return isTrio(meld.cards, initial);
  if (meld.kind === "run") return isRun(meld.cards, initial);
  throw new BadRequest(`unknown meld kind ${JSON.stringify(meld.kind)}`);
}

// CONTRACT-8: exactly the deal's trios and runs, each a valid opening meld.
function isContract(dealNumber, melds) {
  if (!Object.hasOwn(CONTRACTS, dealNumber)) throw new BadRequest(`no deal ${dealNumber}`);
  if (!Array.isArray(melds)) throw new BadRequest("melds is not a list");
  const valid = melds.map((m) => isMeld(m, true)).every(Boolean);
  const trios = melds.filter((m) => m.kind === "trio").length;
  const [wantTrios, wantRuns] = CONTRACTS[dealNumber];
  return valid && trios === wantTrios && melds.length - trios === wantRuns;
}

// SCORE-2: a joker 50, an ace 20, J Q K 10, 2 to 10 at face value.
function penalty(cards) {
  return cardsOf(cards).reduce((sum, c) => sum + (c === null ? 50 : c.rank === 1 ? 20 : Math.min(c.rank, 10)), 0);
}

// The answer's fields for one request.
function handle(request) {
  const op = request.op;
  if (op === "hello") {
    return {
      protocol: 1,
      implementation: { name: "quickstart-js", version: "1", language: "javascript" },
      profiles: ["argentine"],
      capabilities: ["melds"],
      rulings: {},
      max_in_flight: 2, // it reads stdin a line at a time
    };
  }
  if (op === "bye") return {};
  if (["check_meld", "check_contract", "penalty"].includes(op) && request.profile !== "argentine") {
    return { error: { kind: "unsupported", message: "argentine only" } };
  }
  if (op === "check_meld") {
    if (typeof request.initial !== "boolean") throw new BadRequest("initial is not a boolean");
    return { valid: isMeld(request.meld, request.initial) };
  }
  if (op === "check_contract") return { valid: isContract(request.deal_number, request.melds) };
  if (op === "penalty") return { points: penalty(request.cards) };
  if (OTHER_OPS.includes(op)) {
    // A protocol op this adapter does not play yet.
    return { error: { kind: "unsupported", message: `no op ${JSON.stringify(op)}` } };
  }
  throw new BadRequest(`unknown op ${JSON.stringify(op)}`); // not in the protocol at all
}

const OTHER_OPS = ["load_state", "act", "new_game", "start_deal", "next_deal", "redeal"];

// One JSON request per line in, one answer per line out; logs go to stderr.
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  let request = null;
  let answer;
  try {
    request = JSON.parse(line);
    if (request === null || typeof request !== "object") throw new BadRequest("not an object");
    answer = handle(request);
  } catch (err) {
    const bad = err instanceof BadRequest || err instanceof SyntaxError;
    if (!bad) console.error(`internal error: ${err.stack}`);
    answer = { error: { kind: bad ? "bad_request" : "internal", message: String(err.message) } };
  }
  const id = request && typeof request === "object" ? request.id : null;
  process.stdout.write(JSON.stringify({ id, ...answer }) + "\n");
  if (request && request.op === "bye") lines.close();
});
