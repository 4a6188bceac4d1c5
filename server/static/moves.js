// The move entry (room.js's header tells the whole path): a turn is built by narrowing the
// `legal` list of the last `state` message, first a card, then a target (my row or its
// discard pile), then a draw (the deck or a pile), then, if several moves still remain (board
// packs), a button of #choice; the one move left is sent as a `move` message.
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

/** The phase of the contract: lobby, over, card, draw or wait. */
export function phase() {
  if (!S.ready) return "wait"; // offline, or my seat not yet confirmed by the server
  const status = S.info ? S.info.status : "lobby";
  if (status === "lobby" || status === "over") return status;
  if (!S.legal || S.sent || S.seat === null) return "wait";
  return S.placed ? "draw" : "card";
}

/** The legal moves of card `card` (with `action` when given, and `draw` when given). */
export function movesOf(card, action, draw) {
  return (S.legal || []).filter((m) => m.card === card && (!action || m.action === action)
    && (draw === undefined || m.draw === draw));
}

/** Whether the selected card may go to target "play:KEY" / "discard:KEY". */
export function targetOk(target) {
  if (!S.sel) return false;
  const [action, key] = target.split(":");
  return parseCard(S.sel.card).key === key && movesOf(S.sel.card, action).length > 0;
}

/** Whether the placed card's turn may end drawing from `source` ("deck" or a colour key). */
export function drawOk(source) {
  return !!(S.sel && S.placed) && movesOf(S.sel.card, S.placed.action, source).length > 0;
}

export function select(card, index) {
  if (phase() !== "card" && phase() !== "draw") return;
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
  S.placed = { action, key };
  const moves = movesOf(S.sel.card, action);
  if (moves.every((m) => m.draw === null)) finish(moves); // the last play: no draw
  else render();
}

export function draw(source) {
  if (!drawOk(source)) return;
  finish(movesOf(S.sel.card, S.placed.action, source));
}

/** Send the one move left, or show the choice between those left. */
function finish(moves) {
  if (moves.length === 1) {
    sendMove(moves[0].text);
    return;
  }
  S.choices = moves;
  render();
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
