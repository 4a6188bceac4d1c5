// The move entry (room.js's header tells the whole path): a turn is built by narrowing the
// `legal` list of the last `state` message in the order the engine decides it: a card, a
// target (my row or its discard pile), then in the board game each decision the moves left
// still differ by (the pawn a new row sends, each advance due: one button of #choice per
// answer, in words), then the draw (the deck or a pile); the one move left is sent as a
// `move` message.
import { colourLabel, getFace, parseCard } from "./cards.js";
import { t } from "./i18n.js";
import { render, S, send, showError } from "./state.js";

/** "p g3 pawn=0 step=b deck" -> {text, action, card, options, draw}; draw null on a last play. */
export function parseMove(text) {
  const parts = String(text).split(" ");
  const rest = parts.slice(2);
  const draw = rest.length && !rest[rest.length - 1].includes("=") ? rest.pop() : null;
  return { text, action: parts[0] === "p" ? "play" : "discard", card: parts[1],
    options: rest.join(" "), draw };
}

/** What a move of parseMove does past its card and its draw (the pawn it sends, each
 * advance), in the words lc play and the turn log say it with: the catalogue's
 * turn.sends-leader / turn.sends / turn.step / turn.step-none, chosen as
 * lostcities.entry.option_notes chooses them (a test compares the two); "" when the
 * move does nothing more. */
export function optionWords(move) {
  const leaders = (getFace().board || {}).leaders || 0;
  const words = [];
  for (const part of move.options.split(" ").filter(Boolean)) {
    const [name, value] = part.split("=");
    if (name === "pawn") {
      const key = Number(value) < leaders ? "turn.sends-leader" : "turn.sends";
      words.push(t(key, { pawn: value, colour: colourLabel(parseCard(move.card).key) }));
    } else if (name === "step") {
      words.push(value === "none" ? t("turn.step-none")
        : t("turn.step", { colour: colourLabel(value) }));
    }
  }
  return words.join(" ");
}

export function resetTurn() {
  S.sel = null;
  S.placed = null;
  S.choices = null;
  S.sent = false;
}

/** The phase of the contract: lobby, over, card, choice (a pawn or an advance to choose,
 * board packs), draw or wait. */
export function phase() {
  if (!S.ready) return "wait"; // offline, or my seat not yet confirmed by the server
  const status = S.info ? S.info.status : "lobby";
  if (status === "lobby" || status === "over") return status;
  if (!S.legal || S.sent || S.seat === null) return "wait";
  if (!S.placed) return "card";
  return S.choices ? "choice" : "draw";
}

/** Whether I am entering a move now (a card, a choice or a draw to make). */
export function myTurn() {
  const p = phase();
  return p === "card" || p === "choice" || p === "draw";
}

/** The legal moves of card `card` (with `action` when given, and `draw` when given). */
export function movesOf(card, action, draw) {
  return (S.legal || []).filter((m) => m.card === card && (!action || m.action === action)
    && (draw === undefined || m.draw === draw));
}

/** The decisions of a move past its card and before its draw: ["pawn=0", "step=b"]. */
function decisionsOf(move) {
  return move.options.split(" ").filter(Boolean);
}

/** The moves of the placed card that agree with the decisions taken so far. */
function movesLeft(draw) {
  const taken = S.placed.options;
  return movesOf(S.sel.card, S.placed.action, draw).filter((m) => {
    const own = decisionsOf(m);
    return taken.every((d, i) => (own[i] || "") === d); // "": no more decision
  });
}

/** Whether the selected card may go to target "play:KEY" / "discard:KEY". */
export function targetOk(target) {
  if (!S.sel) return false;
  const [action, key] = target.split(":");
  return parseCard(S.sel.card).key === key && movesOf(S.sel.card, action).length > 0;
}

/** Whether the placed card's turn, its decisions taken, may end drawing from `source`
 * ("deck" or a colour key). */
export function drawOk(source) {
  return phase() === "draw" && movesLeft(source).length > 0;
}

export function select(card, index) {
  if (!myTurn()) return;
  const same = S.sel && S.sel.index === index;
  S.placed = null;
  S.choices = null;
  S.sel = same ? null : { card, index };
  showError("");
  render();
}

export function place(target) {
  if (!targetOk(target)) return;
  const [action, key] = target.split(":");
  S.placed = { action, key, options: [] };
  decide();
}

/** Take a decision of #choice (a `data-choice`: "pawn=0", "step=b", "step=none"). */
export function choose(decision) {
  if (phase() !== "choice" || !S.choices.some((c) => c.decision === decision)) return;
  S.placed.options.push(decision);
  decide();
}

/** The next decision the moves left differ by: asked (#choice), or taken when there is one
 * answer only; once none is left, the draw (or, when no move left draws, the move sent). */
function decide() {
  for (;;) {
    const left = movesLeft();
    const depth = S.placed.options.length;
    const answers = [...new Set(left.map((m) => decisionsOf(m)[depth] || ""))];
    if (answers.length === 1 && answers[0]) {
      S.placed.options.push(answers[0]);
      continue;
    }
    if (answers.length > 1) {
      S.choices = answers.map((decision) => ({ decision, words: decisionWords(decision) }));
      render();
      return;
    }
    S.choices = null;
    if (left.every((m) => m.draw === null)) sendMove(left[0].text); // no draw: the last play
    else render();
    return;
  }
}

/** One decision in words, as optionWords says it ("" for "no more decision"). */
function decisionWords(decision) {
  return optionWords({ card: S.sel.card, options: decision }) || t("web.choice.plain");
}

export function draw(source) {
  if (!drawOk(source)) return;
  sendMove(movesLeft(source)[0].text);
}

export function sendMove(text) {
  showError("");
  if (send({ type: "move", move: text })) S.sent = true;
  S.choices = null;
  render();
}

export function line(text) {
  showError("");
  return send({ type: "line", text });
}
