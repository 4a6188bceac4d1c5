// The table's keyboard: a whole duel turn in four keys at most, wherever the focus is but in
// a text box: a card's number (1 to 9, 0 the tenth), P to play it on its row or D to discard
// it, then D for the deck ("." in a pack with a colour D) or a colour's letter for its pile;
// in the board game a pawn or an advance, when asked, by its number among the #choice
// buttons; Esc chooses again. The legend (#keys) says it in the catalogue's words. The focus
// follows the card chosen, so it stays in the table (table.js keeps it there on a redraw).
import { t } from "./i18n.js";
import { getFace, parseCard } from "./cards.js";
import { $, el, render, S } from "./state.js";
import { choose, draw, myTurn, phase, place, select } from "./moves.js";

/** The key that draws from the deck: d, or "." when a colour of the pack is D. */
export function deckKey() {
  return getFace().colours.some((c) => c.key.toLowerCase() === "d") ? "." : "d";
}

/** The colour key of the pile a letter names: the colour keyed so, else the one colour
 * keyed so in the other case; null for none. */
function pileOf(letter) {
  const colours = getFace().colours;
  const exact = colours.find((c) => c.key === letter);
  if (exact) return exact.key;
  const other = colours.filter((c) => c.key.toLowerCase() === letter.toLowerCase());
  return other.length === 1 ? other[0].key : null;
}

/** The position a digit key names (1 the first, 0 the tenth), or -1. */
function position(key) {
  return /^[0-9]$/.test(key) ? (Number(key) + 9) % 10 : -1;
}

function selectNth(n) {
  const node = document.querySelectorAll("#hand .card[data-card]")[n];
  if (!node) return false;
  select(node.dataset.card, Number(node.dataset.index));
  const again = document.querySelector(`#hand .card[data-index="${n}"]`);
  if (again) again.focus();
  return true;
}

function chooseNth(n) {
  const button = document.querySelectorAll("#choice [data-choice]")[n];
  if (!button) return false;
  choose(button.dataset.choice);
  return true;
}

function onKey(e) {
  if (e.ctrlKey || e.altKey || e.metaKey || e.isComposing) return;
  const typing = "input, select, textarea, [contenteditable]";
  if (e.target instanceof Element && e.target.closest(typing)) return;
  if (e.key === "Escape") {
    if (S.sel || S.choices) { S.sel = null; S.placed = null; S.choices = null; render(); }
    return;
  }
  if (!myTurn()) return;
  const key = e.key;
  const p = phase();
  let used = false;
  if (position(key) >= 0) {
    used = p === "choice" ? chooseNth(position(key)) : selectNth(position(key));
  } else if (p === "card" && S.sel && /^[pd]$/i.test(key)) {
    const action = key.toLowerCase() === "p" ? "play" : "discard";
    place(`${action}:${parseCard(S.sel.card).key}`);
    used = true;
  } else if (p === "draw" && key.length === 1) {
    const source = key.toLowerCase() === deckKey() ? "deck" : pileOf(key);
    if (source) { draw(source); used = true; }
  }
  if (used) e.preventDefault();
}

/** Listen to the keys (once, when the page starts). */
export function wireKeys() {
  document.addEventListener("keydown", onKey);
}

/** The legend of the keys (#keys), for a seated player while a match is played. */
export function renderKeys() {
  const box = $("keys");
  const v = S.view;
  const cards = v && Array.isArray(v.hand) ? Math.min(v.hand.length, 10) : 0;
  box.hidden = !(S.seat !== null && S.info && S.info.status === "playing" && cards);
  const colours = getFace().colours.map((c) => c.key);
  const key = JSON.stringify([cards, box.hidden, colours, t("web.keys.title")]);
  if (box.hidden || box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren(el("span", "keys-title", t("web.keys.title")));
  const item = (keys, words) => {
    const part = el("span", "keys-item");
    keys.forEach((k) => part.append(el("kbd", "", k)));
    part.append(" ", words);
    box.append(part);
  };
  item([cards > 1 ? `1–${cards % 10}` : "1"], t("web.keys.card"));
  item(["P"], t("web.keys.play"));
  item(["D"], t("web.keys.discard"));
  item([deckKey().toUpperCase()], t("web.keys.deck"));
  item(colours.map((c) => c.toUpperCase()), t("web.keys.pile"));
  if (getFace().board) item(["1", "2", "…"], t("web.keys.choice"));
  item(["Esc"], t("web.keys.back"));
}
