// The table's rendering: `render` draws the whole page from `S` (the header, the seats, the
// rows and piles, the board, the buttons, the hand, the choice, the prompt, the keys, the
// sheets, the hint), keeping the focus in the table; the last turns and the chat are drawn
// as their messages come.
import { currentLang, packText, t, tPointer } from "./i18n.js";
import { cardElement, cardWords, colourClass, colourLabel, colourSymbol, deckElement, getFace }
  from "./cards.js";
import { $, el, liveOf, MAX_CHAT, nameOf, ROOM_ID, S, setRender, toMove } from "./state.js";
import { choose, draw, drawOk, movesOf, myTurn, parseMove, phase, place, select,
  targetOk } from "./moves.js";
import { renderBoard } from "./board.js";
import { renderKeys } from "./keys.js";
import { renderHint, renderMatch, renderRoundSheet } from "./sheets.js";
import { myPlayer } from "./identity.js";
import { clockElement, controlLabel } from "./clocks.js";

export function render() {
  const body = document.body;
  const info = S.info;
  body.dataset.connected = S.ready ? "1" : "0";
  body.dataset.status = info ? info.status : "";
  body.dataset.seat = S.seat === null ? "" : String(S.seat);
  body.dataset.phase = phase();
  body.dataset.turns = info ? String(info.turns) : "0";
  body.dataset.round = S.view ? String(S.view.round) : "";
  body.classList.toggle("is-board", !!getFace().board);
  const focused = focusPlace();
  renderHeader();
  renderSeats();
  renderTable();
  renderBoard();
  renderButtons();
  renderHand();
  renderChoice();
  renderPrompt();
  renderKeys();
  renderRoundSheet();
  renderMatch();
  renderHint();
  keepFocus(focused);
}

/** Where the focus is in the table, as selectors that find its place again after a redraw
 * (the element itself may be replaced): null when it is not in the table. */
function focusPlace() {
  const active = document.activeElement;
  if (!active || !active.closest || !active.closest(".felt")) return null;
  const places = [];
  if (active.dataset.index !== undefined) {
    places.push(`#hand .card[data-index="${active.dataset.index}"]`, "#hand .card:last-child");
  }
  if (active.dataset.target) places.push(`[data-target="${CSS.escape(active.dataset.target)}"]`);
  if (active.dataset.draw) places.push(`[data-draw="${CSS.escape(active.dataset.draw)}"]`);
  if (active.dataset.choice !== undefined) places.push("#choice [data-choice]");
  places.push("#hand .card.selected", "#hand .card[data-card]", "#hand");
  return { active, places };
}

/** Put the focus back in its place in the table when the redraw took its element away,
 * without scrolling: a move never sends the focus (and the page) back to the top. */
function keepFocus(focused) {
  if (!focused || (focused.active.isConnected && document.activeElement === focused.active)) return;
  for (const selector of focused.places) {
    const node = document.querySelector(selector);
    if (node && !node.closest("[hidden]")) {
      node.focus({ preventScroll: true });
      if (document.activeElement === node) return;
    }
  }
}

function renderHeader() {
  const face = getFace();
  $("pack-name").textContent = packText(face.pack, "name", face.name);
  const v = S.view;
  const parts = [];
  if (S.info && S.info.rated) parts.push(t("web.room.rated"));
  if (S.info && S.info.clock) parts.push(controlLabel(S.info.clock));
  if (v) {
    parts.push(t("table.round", { round: v.round, rounds: v.rounds }));
    if (S.info.status === "playing") parts.push(t("table.turn", { turn: v.turn + 1 }));
    if (v.round_scores.length) {
      parts.push(`${t("table.totals", { rounds: v.round_scores.length })} ${
        v.players.map((n, i) => `${n}: ${v.totals[i]}`).join(" · ")}`);
    }
  } else if (S.info) {
    parts.push(t("web.status.lobby", { min: S.info.min_players, max: S.info.max_players }));
  }
  $("status-line").textContent = parts.join("  ·  ");
  $("btn-rules").href = `/rooms/${ROOM_ID}/rules?lang=${currentLang()}`;
}

function renderSeats() {
  const list = $("seats");
  list.replaceChildren();
  if (!S.info) return;
  const moving = toMove();
  const board = S.view && S.view.board;
  for (const row of S.info.seats) {
    const item = el("li", `seat seat-${row.seat % 4}`);
    item.dataset.seat = String(row.seat);
    if (row.seat === moving) item.classList.add("to-move");
    if (row.seat === S.seat) item.classList.add("me");
    item.append(el("span", "seat-mark", String(row.seat + 1)));
    const shown = row.seat === moving ? `*${row.name}*` : row.name;
    const name = el(row.player ? "a" : "span", "name", shown);
    if (row.player) {  // a rated room's seat: its player's page
      name.href = `/players/${encodeURIComponent(row.player)}`;
      name.target = "_blank";
      name.rel = "noopener";
    }
    item.append(name);
    const badges = el("span", "badges");
    if (row.seat === S.seat) badges.append(el("span", "badge you", t("web.seat.you")));
    if (row.kind === "bot") badges.append(el("span", "badge", t("web.seat.bot", { bot: row.bot })));
    if (row.kind === "left") badges.append(el("span", "badge left", t("web.seat.left")));
    if (row.kind === "human" && row.present === false) {
      badges.append(el("span", "badge away", t("web.seat.away")));
    }
    if ((S.info.cont || []).includes(row.seat)) badges.append(el("span", "badge", "CONT ✓"));
    if ((S.info.rematch || []).includes(row.seat)) badges.append(el("span", "badge", t("web.rematch.badge")));
    item.append(badges);
    if (S.clock) item.append(clockElement(row.seat));
    if (S.view) {
      const extra = [t("table.cards-in-hand", { count: S.view.hand_sizes[row.seat] || 0 })];
      if (S.view.round_scores.length) extra.push(t("web.seat.total", { total: S.view.totals[row.seat] ?? 0 }));
      if (board) {
        extra.push(t("web.board.held", { tokens: board.tokens[row.seat] || 0,
          artefacts: board.artefacts[row.seat] || 0 }));
      }
      item.append(el("span", "seat-extra", extra.join(" · ")));
      const score = el("span", "score", liveOf(row.seat) === null ? "" : String(liveOf(row.seat)));
      score.title = t("table.round-score");
      item.append(score);
    }
    list.append(item);
  }
}

/** The seats from top to bottom: the others, then me (a spectator: the last seat below). */
function seatOrder(n) {
  const bottom = S.seat !== null ? S.seat : n - 1;
  const order = [];
  for (let k = 1; k < n; k += 1) order.push((bottom + k) % n);
  order.push(bottom);
  return order;
}

function rowBand(seat, mine) {
  const face = getFace();
  const v = S.view;
  const band = el("div", "band rows");
  band.dataset.ofSeat = String(seat);
  if (mine) band.classList.add("mine");
  if (seat === toMove()) band.classList.add("moving");
  const label = el("div", "band-label");
  label.append(el("span", "band-name", seat === toMove() ? `*${nameOf(seat)}*` : nameOf(seat)));
  const score = el("span", "band-score", liveOf(seat) === null ? "" : String(liveOf(seat)));
  score.title = t("table.round-score");
  label.append(score);
  if (S.clock) label.append(clockElement(seat));
  band.append(label);
  face.colours.forEach((colour, c) => {
    const cell = el("div", `row-cell ${colourClass(c)}`);
    const cards = v.rows[seat][c] || [];
    if (mine) {
      const target = `play:${colour.key}`;
      cell.dataset.target = target;
      makeTarget(cell, target);
      // while choosing where the card goes (in the draw phase the card is already put)
      cell.classList.toggle("dim", !!S.sel && !S.placed && !targetOk(target));
      cell.classList.toggle("ok", !!S.sel && targetOk(target) && !S.placed);
    }
    const ghost = mine && S.placed && S.placed.action === "play" && S.placed.key === colour.key;
    if (!cards.length && !ghost) cell.append(el("span", "row-empty", colourSymbol(c)));
    for (const card of cards) {
      const shown = cardElement(card, "in-row");
      shown.dataset.shown = card;
      cell.append(shown);
    }
    if (ghost) cell.append(cardElement(S.sel.card, "in-row ghost"));
    band.append(cell);
  });
  band.append(el("div", "band-end"));
  return band;
}

function pilesBand() {
  const face = getFace();
  const v = S.view;
  const band = el("div", "band piles");
  band.append(el("div", "band-label", t("table.discards")));
  const drawing = phase() === "draw";
  const choosing = phase() === "choice";
  face.colours.forEach((colour, c) => {
    const pile = el("div", `pile ${colourClass(c)}`);
    const target = `discard:${colour.key}`;
    pile.dataset.target = target;
    pile.dataset.draw = colour.key;
    makeTarget(pile, target);
    const top = v.pile_tops[c];
    const size = v.pile_sizes[c] || 0;
    const ghost = S.placed && S.placed.action === "discard" && S.placed.key === colour.key;
    if (ghost) pile.append(cardElement(S.sel.card, "ghost"));
    else if (top) {
      const shown = cardElement(top);
      shown.dataset.shown = top;
      pile.append(shown);
    } else {
      pile.append(el("span", "pile-empty", `${colourSymbol(c)}`));
    }
    pile.append(el("span", "depth", size ? t("web.pile.depth", { count: size }) : colourLabel(colour.key)));
    if (drawing) pile.classList.toggle("dim", !drawOk(colour.key));
    else pile.classList.toggle("dim", choosing || (!!S.sel && !targetOk(target)));
    pile.classList.toggle("ok", drawing ? drawOk(colour.key) : !choosing && !!S.sel && targetOk(target));
    band.append(pile);
  });
  const deck = deckElement(v.draw_pile);
  deck.dataset.draw = "deck";
  makeTarget(deck, null);
  deck.classList.toggle("dim", drawing ? !drawOk("deck") : !!S.sel);
  deck.classList.toggle("ok", drawing && drawOk("deck"));
  band.append(deck);
  return band;
}

function renderTable() {
  const table = $("table");
  table.replaceChildren();
  const v = S.view;
  if (!v) {
    table.append(el("p", "lobby-note", S.info ? t("web.prompt.lobby", { min: S.info.min_players })
      : t("web.conn.connecting")));
    return;
  }
  table.style.setProperty("--colours", String(getFace().colours.length));
  const order = seatOrder(v.players.length);
  order.slice(0, -1).forEach((seat) => table.append(rowBand(seat, false)));
  table.append(pilesBand());
  const bottom = order[order.length - 1];
  table.append(rowBand(bottom, bottom === S.seat));
}

/** Clicks, keys and drops on a target: my row, a discard pile (also a draw source), the deck. */
function makeTarget(node, target) {
  node.tabIndex = 0;
  node.setAttribute("role", "button");
  const activate = () => {
    const source = node.dataset.draw;
    if (phase() === "draw" && source) draw(source);
    else if (phase() === "card" && target && S.sel) place(target);
  };
  node.addEventListener("click", activate);
  node.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); activate(); }
  });
  if (!target) return;
  node.addEventListener("dragover", (e) => {
    if (S.sel && targetOk(target) && phase() !== "wait") {
      e.preventDefault();
      e.dataTransfer.dropEffect = "move";
      node.classList.add("drop-ok");
    }
  });
  node.addEventListener("dragleave", () => node.classList.remove("drop-ok"));
  node.addEventListener("drop", (e) => {
    e.preventDefault();
    node.classList.remove("drop-ok");
    S.dragging = false;
    place(target);
  });
}

function renderHand() {
  const hand = $("hand");
  const v = S.view;
  const key = JSON.stringify([v && v.hand, S.seat, currentLang(), $("btn-join").hidden]);
  if (hand.dataset.key !== key) {
    // rebuilt only when the hand changes, so a drag under way, or a card drawn travelling
    // into it, keeps its element
    hand.dataset.key = key;
    hand.replaceChildren();
    const cards = v && Array.isArray(v.hand) ? v.hand : [];
    cards.forEach((card, index) => hand.append(handCard(card, index)));
    if (!cards.length && S.seat === null) {
      hand.append(el("span", "muted", $("btn-join").hidden ? t("web.hand.watching") : t("web.hand.spectator")));
    }
  }
  for (const node of hand.querySelectorAll(".card")) {
    const index = Number(node.dataset.index);
    const selected = !!S.sel && S.sel.index === index;
    node.classList.toggle("selected", selected);
    node.classList.toggle("placed", selected && !!S.placed);
    node.setAttribute("aria-selected", selected ? "true" : "false");
    const playable = S.legal ? movesOf(node.dataset.card, "play").length > 0 : true;
    node.classList.toggle("discard-only", !!S.legal && !playable);
    node.title = S.legal && !playable
      ? `${cardWords(node.dataset.card)}: ${t("web.hand.discard-only")}` : cardWords(node.dataset.card);
    node.classList.toggle("hinted", !!S.hint && parseMove(S.hint.move || "").card === node.dataset.card);
  }
  $("hand-title").textContent = S.seat !== null ? t("table.hand") : t("web.hand.title-spectator");
}

function handCard(card, index) {
  const node = cardElement(card, "in-hand");
  node.dataset.card = card;
  node.dataset.index = String(index);
  node.draggable = true;
  node.tabIndex = 0;
  node.setAttribute("role", "option");
  node.addEventListener("click", () => select(card, index));
  node.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); select(card, index); }
  });
  node.addEventListener("dragstart", (e) => {
    if (!myTurn()) { e.preventDefault(); return; }
    e.dataTransfer.setData("text/plain", card);
    e.dataTransfer.effectAllowed = "move";
    S.sel = { card, index };
    S.placed = null;
    S.choices = null;
    S.dragging = true;
    // only the classes change during a drag: the table is redrawn, the hand is not
    requestAnimationFrame(() => { renderTable(); renderHand(); renderPrompt(); });
  });
  node.addEventListener("dragend", () => { S.dragging = false; });
  return node;
}

function renderChoice() {
  const box = $("choice");
  box.replaceChildren();
  box.hidden = !S.choices;
  if (!S.choices) return;
  box.dataset.depth = String(S.placed.options.length); // the decisions taken before this one
  box.append(el("span", "choice-title", choiceQuestion()));
  S.choices.forEach((choice, n) => {
    const button = el("button", "btn", choice.words);
    button.type = "button";
    button.dataset.choice = choice.decision;
    if (n < 10) button.dataset.key = String((n + 1) % 10);
    button.addEventListener("click", () => choose(choice.decision));
    box.append(button);
  });
}

/** The question #choice asks: which pawn a new row sends, or which pawn an advance moves. */
function choiceQuestion() {
  const first = S.choices[0].decision;
  if (first.startsWith("pawn=")) {
    return t("web.choice.pawn", { colour: colourLabel(S.placed.key) });
  }
  return first.startsWith("step=") ? t("web.choice.step") : t("web.choice.title");
}

function renderButtons() {
  const info = S.info;
  const seated = S.seat !== null;
  const status = info ? info.status : "";
  const seats = info ? info.seats : [];
  const full = info ? seats.length >= info.max_players && !seats.some((s) => s.kind === "left") : true;
  const takeable = seats.some((s) => s.kind === "left" || (s.kind === "human" && s.present === false));
  const me = seats.find((s) => s.seat === S.seat);
  const show = (id, on) => { $(id).hidden = !on; };
  const player = !info || !info.rated || !!myPlayer();  // a rated room seats players only
  show("btn-join", !!info && !seated && player && (!full || (status !== "lobby" && seats.some((s) => s.kind === "left"))));
  show("name", !!info && !seated && status === "lobby" && !info.rated);
  show("btn-bot", !!info && seated && (status === "lobby" ? !full : takeable));
  $("bot-kind").parentElement.hidden = $("btn-bot").hidden;
  show("btn-start", !!info && seated && status === "lobby");
  $("btn-start").disabled = seats.length < (info ? info.min_players : 2);
  const human = !!me && me.kind === "human";
  show("btn-rematch", !!info && status === "over" && human);
  $("btn-rematch").disabled = human && (info.rematch || []).includes(S.seat);
  const canCont = !!info && status === "over" && info.continuation && !!me && me.kind === "human";
  show("btn-cont", canCont);
  $("btn-cont").disabled = canCont && (info.cont || []).includes(S.seat);
  show("btn-hint", !!info && info.hints === true && seated && status === "playing");
  $("btn-hint").disabled = !myTurn();
  show("btn-leave", seated);
  const resignable = !!info && seated && status === "playing";
  show("btn-resign", resignable && !S.resignAsk);
  show("resign-ask", resignable && S.resignAsk);
}

function renderPrompt() {
  const p = phase();
  const prompt = $("prompt");
  let text = "";
  if (!S.ready && S.info) text = t("web.conn.offline");
  else if (p === "card") text = S.sel ? t("web.prompt.target") : tPointer("web.prompt.card");
  else if (p === "choice") text = choiceQuestion();
  else if (p === "draw") text = tPointer("web.prompt.draw");
  else if (p === "wait" && S.sent) text = t("web.prompt.sent");
  else if (p === "wait" && toMove() !== null) text = t("web.prompt.wait", { name: nameOf(toMove()) });
  else if (p === "lobby" && S.info && S.info.rated && S.seat === null && !myPlayer()) text = t("web.room.rated-join");
  else if (p === "lobby" && S.info) text = t("web.prompt.lobby", { min: S.info.min_players });
  else if (p === "over") text = t("web.prompt.over");
  prompt.textContent = text;
  prompt.classList.toggle("your-turn", myTurn());
  const face = getFace();
  document.title = `${myTurn() ? "● " : ""}${
    packText(face.pack, "name", face.name) || t("web.brand")}`;
}

// ---------------------------------------------------------------- the last turns and the chat

export function renderTurns() {
  const list = $("turns");
  list.replaceChildren();
  const note = (text) => list.append(el("li", "turn-line from-view muted", text));
  const v = S.view;
  if (v && v.last_play && S.info && S.info.status === "playing") note(t("web.turns.last-play"));
  for (const turn of [...S.turns].reverse()) {
    if (turn.gap) { note(t("web.turns.missed", { count: turn.gap })); continue; }
    const item = el("li", "turn-line");
    item.textContent = turn.words || `${turn.name}: ${turn.move}`;
    list.append(item);
  }
  // the turns before the first one this page was sent (the server sends the last ones to a
  // page that comes in): said while the list still reaches back to it
  if (S.since > 0 && v && (!S.turns.length || S.turns[0].number <= S.since)) {
    note(t("web.turns.before", { count: S.since }));
  }
}

export function addChat(entry) {
  S.chat.push(entry);
  if (S.chat.length > MAX_CHAT) S.chat.shift();
  const log = $("chat-log");
  log.append(chatLine(entry));
  while (log.children.length > MAX_CHAT) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
}

function chatLine(entry) {
  const node = el("div", `chat-line ${entry.kind}`);
  if (entry.kind === "chat") {
    node.append(el("span", "who", entry.name || t("web.chat.spectator")), el("span", "text", entry.text));
  } else {
    node.append(el("span", "text", entry.text));
  }
  return node;
}

// the modules below the table (the move entry) redraw through state.js's render
setRender(render);
