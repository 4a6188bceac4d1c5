// The table in motion: when another player's turn is drawn, their card travels from their
// side of the table to its row or its discard pile, then a card back travels from the deck
// or the pile they drew from to their side; my own draw travels into my hand. CSS
// animations (table.css: .travel, .flyer); none under `prefers-reduced-motion: reduce`.
// A turn is played once both its `turn` message and the `state` after it are drawn,
// whichever came first; only the last turn is played (a page that missed some just shows them).
import { $, S } from "./state.js";

const REDUCED = window.matchMedia("(prefers-reduced-motion: reduce)");
/** how long a card travels, and when the draw starts after the play (ms; table.css too) */
const PLAY_MS = 450;
/** past this, a card still marked travelling is put still anyway (an animation that could
 * not run, e.g. in a hidden tab, sends no animationend) */
const AT_MOST_MS = 2000;
/** the `turn` messages whose state is not drawn yet */
let pending = [];
/** my hand as drawn after N turns (N -> {round, cards}), for the card my last turn drew */
const hands = new Map();

/** A new `turn` message (not one sent again on reconnecting): played once its state is drawn. */
export function noteTurn(turn) {
  pending.push(turn);
  if (pending.length > 4) pending.shift();
  showTurns();
}

/** Called after each state is drawn: play the last turn it shows, when it is the one just
 * played. */
export function showTurns() {
  if (!S.info) return;
  const turns = S.info.turns;
  if (S.view && Array.isArray(S.view.hand) && !hands.has(turns)) {
    hands.set(turns, { round: S.view.round, cards: [...S.view.hand] });
    for (const old of hands.keys()) if (old < turns - 2) hands.delete(old);
  }
  const shown = pending.filter((m) => m.number < turns);
  pending = pending.filter((m) => m.number >= turns);
  const last = shown[shown.length - 1];
  if (!last || last.number !== turns - 1 || REDUCED.matches || !S.view) return;
  if (last.seat === S.seat) showMyDraw(last);
  else showTheirTurn(last);
}

function centre(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

/** `node`, in its place now, is seen coming from the rect `from`. */
function arrive(node, from, delay) {
  const a = centre(from);
  const b = centre(node.getBoundingClientRect());
  node.style.setProperty("--dx", `${Math.round(a.x - b.x)}px`);
  node.style.setProperty("--dy", `${Math.round(a.y - b.y)}px`);
  node.style.setProperty("--delay", `${delay}ms`);
  node.classList.add("travel");
  const done = () => node.classList.remove("travel");
  node.addEventListener("animationend", done, { once: true });
  node.addEventListener("animationcancel", done, { once: true });
  setTimeout(done, AT_MOST_MS);
}

/** A card back travelling from the rect `from` to the rect `to`, gone when it arrives. */
function fly(from, to, delay) {
  const card = document.createElement("div");
  card.className = "card back flyer";
  card.setAttribute("aria-hidden", "true");
  document.body.append(card);
  const size = card.getBoundingClientRect();
  const end = centre(to);
  card.style.left = `${Math.round(end.x - size.width / 2)}px`;
  card.style.top = `${Math.round(end.y - size.height / 2)}px`;
  arrive(card, from, delay);
  const gone = () => card.remove();
  card.addEventListener("animationend", gone, { once: true });
  card.addEventListener("animationcancel", gone, { once: true });
  setTimeout(gone, AT_MOST_MS);
}

function sideOf(seat) {
  return document.querySelector(`.band[data-of-seat="${seat}"] .band-label`);
}

function sourceOf(draw) {
  return draw === "deck" ? document.querySelector('.deck[data-draw="deck"]')
    : document.querySelector(`.pile[data-draw="${CSS.escape(draw)}"]`);
}

/** The card that seat `seat` just put down: the last of its row, or its pile's top. */
function cardPut(turn) {
  const card = CSS.escape(turn.card);
  if (turn.action === "play") {
    const row = `.band[data-of-seat="${turn.seat}"]`;
    const shown = document.querySelectorAll(`${row} [data-shown="${card}"]`);
    return shown[shown.length - 1] || null;
  }
  return document.querySelector(`.pile [data-shown="${card}"]`);
}

function showTheirTurn(turn) {
  const side = sideOf(turn.seat);
  if (!side) return;
  const put = cardPut(turn);
  if (put) arrive(put, side.getBoundingClientRect(), 0);
  const source = turn.draw ? sourceOf(turn.draw) : null;
  const after = put ? PLAY_MS - 100 : 0; // the draw starts as the card put lands
  if (source) fly(source.getBoundingClientRect(), side.getBoundingClientRect(), after);
}

/** The card my turn drew: the one taken from a pile, else the one my hand has more (none
 * when the turn ended the round: the hand is a new deal). */
function showMyDraw(turn) {
  if (!turn.draw) return;
  let drawn = turn.taken;
  const seen = hands.get(turn.number);
  const before = seen && seen.round === S.view.round ? seen.cards : null;
  if (!before) return;
  if (!drawn) {
    const left = before.filter((card, i) => i !== before.indexOf(turn.card));
    for (const card of S.view.hand) {
      const at = left.indexOf(card);
      if (at < 0) { drawn = card; break; }
      left.splice(at, 1);
    }
  }
  const source = sourceOf(turn.draw);
  const nodes = drawn ? $("hand").querySelectorAll(`.card[data-card="${CSS.escape(drawn)}"]`) : [];
  if (source && nodes.length) arrive(nodes[nodes.length - 1], source.getBoundingClientRect(), 0);
}
