// Cards and colours as the page draws them. A card always shows its letter and value as text
// (r5, r× for a wager) and its expedition's symbol, so it reads without its colour.
import { colourName, t } from "./i18n.js";

/** The colours the page knows by name; any other colour takes a palette slot by position. */
const KNOWN = ["yellow", "blue", "white", "green", "red", "purple"];
/** One symbol per expedition (desert sun, sea waves, snowy peaks, jungle leaf, volcano, ...). */
const SYMBOLS = { yellow: "☀", blue: "≈", white: "❄", green: "♣", red: "▲", purple: "✦" };
const SPARE_SYMBOLS = ["●", "■", "◆", "♠", "♥", "✚"];
export const WAGER_MARK = "×";

/** The pack as the page draws it (GET /rooms/ID/table), set once the room's pack is known. */
let face = { colours: [], wager: "x", board: null };
let keysLongestFirst = [];

export function setFace(value) {
  face = value;
  keysLongestFirst = face.colours.map((c, i) => ({ key: c.key, index: i }))
    .sort((a, b) => b.key.length - a.key.length);
}
export function getFace() { return face; }

/** The CSS class of colour `index` (col-red, or col-spare-N for a colour the page does not know). */
export function colourClass(index) {
  const name = String(face.colours[index]?.name || "").toLowerCase();
  return KNOWN.includes(name) ? `col-${name}` : `col-spare-${index % SPARE_SYMBOLS.length}`;
}

export function colourSymbol(index) {
  const name = String(face.colours[index]?.name || "").toLowerCase();
  return SYMBOLS[name] || SPARE_SYMBOLS[index % SPARE_SYMBOLS.length];
}

export function colourIndex(key) {
  return face.colours.findIndex((c) => c.key === key);
}

/** The translated name of the colour with `key`. */
export function colourLabel(key) {
  const colour = face.colours[colourIndex(key)];
  return colour ? colourName(colour.name) : key;
}

/** A card's notation split: {key, index, value} where value is a number or "x" (a wager). */
export function parseCard(card) {
  for (const { key, index } of keysLongestFirst) {
    if (card.startsWith(key)) {
      const rest = card.slice(key.length);
      return { key, index, value: rest === face.wager ? "x" : rest };
    }
  }
  return { key: card.slice(0, 1), index: -1, value: card.slice(1) };
}

/** The text a card shows: its colour letter and its value (× for a wager). */
export function cardText(card) {
  const { key, value } = parseCard(card);
  return `${key}${value === "x" ? WAGER_MARK : value}`;
}

/** Words for screen readers: "red 5", "red wager". */
export function cardWords(card) {
  const { key, value } = parseCard(card);
  return value === "x" ? t("web.card.wager", { colour: colourLabel(key) })
    : t("web.card.value", { colour: colourLabel(key), value });
}

/** A card element (a div; the caller adds data-card, tabindex... as it needs). */
export function cardElement(card, extraClass = "") {
  const { index, value } = parseCard(card);
  const el = document.createElement("div");
  el.className = `card ${colourClass(index)}${value === "x" ? " wager" : ""} ${extraClass}`.trim();
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.textContent = cardText(card);
  const symbol = document.createElement("span");
  symbol.className = "sym";
  symbol.setAttribute("aria-hidden", "true");
  symbol.textContent = colourSymbol(index);
  const big = document.createElement("span");
  big.className = "big";
  big.setAttribute("aria-hidden", "true");
  big.textContent = value === "x" ? WAGER_MARK : value;
  el.append(corner, symbol, big);
  el.title = cardWords(card);
  el.setAttribute("aria-label", cardWords(card));
  return el;
}

/** The deck as both tables draw it: a card back and its count (`#deck-count`). */
export function deckElement(count) {
  const part = (tag, cls, text) => {
    const node = document.createElement(tag);
    node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const deck = part("div", "deck");
  const back = part("div", "card back");
  back.append(part("span", "big", "◈"));
  const shown = part("span", "depth");
  const number = part("strong", "", String(count));
  number.id = "deck-count";
  shown.append(part("span", "", t("web.deck.label")), " ", number);
  deck.append(back, shown);
  return deck;
}

/** A small inline chip for a card in a sentence or a table ("r5"). */
export function chip(card) {
  const { index } = parseCard(card);
  const el = document.createElement("span");
  el.className = `chip ${colourClass(index)}`;
  el.textContent = `${colourSymbol(index)} ${cardText(card)}`;
  return el;
}
