// The room page (/r/ID): the table of rule text 002 in the browser.
//
// Everything shown comes from the room's WebSocket (/rooms/ID/ws, docs/server.md): the server
// is authoritative, the page only sends intentions. A turn is one `move` message in the
// engine's notation ("p r5 deck", "d r5 g", "p g3 pawn=0 step=b deck"), built by narrowing the
// `legal` list of the last `state` message: first a card, then a target (my row or its
// discard pile), then a draw (the deck or a pile), then, if several moves still remain (board
// packs), a button of #choice. Text from the network is set with textContent only.
import { applyLabels, currentLang, packText, safeGet, safeRemove, safeSet, setLang, startLang, t }
  from "./i18n.js";
import { cardElement, cardWords, chip, colourClass, colourIndex, colourLabel, colourSymbol, getFace,
  parseCard, setFace } from "./cards.js";

const $ = (id) => document.getElementById(id);
const ROOM_ID = (location.pathname.match(/^\/r\/([a-z2-7]{8})\/?$/) || [])[1] || "";
const TOKEN_KEY = `lc-token-${ROOM_ID}`;
const MAX_TURNS = 30;
const MAX_CHAT = 200;

const S = {
  info: null, // ROOMINFO of the last state
  seat: null, // my seat, or null (a spectator)
  view: null, // the engine's view of my seat
  legal: null, // my legal moves (parsed) when I am to move, else null
  sel: null, // {card, index}: the hand card selected or dragged
  placed: null, // {action, key}: where the selected card goes
  choices: null, // the moves left to choose between (#choice)
  sent: false, // a move is on its way: wait for the server
  turns: [], // the last `turn` messages, oldest first ({gap: N} for N turns not seen)
  since: null, // the number of the first turn this page knows of (the turns before: not shown)
  socketTurns: false, // a `turn` came on this socket: it is sent every one after, no gap
  chat: [], // chat and info lines
  chatSeen: -1, // the number of the last chat line shown
  round: null, // the last `round` message, until its sheet is closed
  match: null, // the last `match` message
  matchClosed: false,
  hint: null, // the last `hint` message for this turn
  live: null, // the running scores, one per seat (the view's `live`, else GET .../scores)
  ws: null,
  retries: 0,
  // the server welcomes each new socket at once (as a spectator) and again in answer to the
  // page's hello (with my seat): only from that second welcome on is the page up to date
  welcomes: 0,
  ready: false,
};

// ---------------------------------------------------------------- the connection

function send(message) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) {
    S.ws.send(JSON.stringify(message));
    return true;
  }
  showError(t("web.conn.offline"));
  return false;
}

function hello() {
  const message = { type: "hello", lang: currentLang() };
  const token = safeGet(TOKEN_KEY);
  if (token) message.token = token;
  send(message);
}

function setConn(state, params = {}) {
  const el = $("conn");
  el.dataset.state = state;
  el.textContent = t(`web.conn.${state}`, params);
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/rooms/${ROOM_ID}/ws`);
  S.ws = ws;
  S.welcomes = 0;
  S.ready = false;
  S.socketTurns = false;
  setConn("connecting");
  ws.addEventListener("open", () => { S.retries = 0; hello(); });
  ws.addEventListener("message", (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (message && typeof message === "object") receive(message);
  });
  ws.addEventListener("close", () => {
    if (S.ws !== ws) return;
    S.ws = null;
    S.ready = false;
    if (S.sent) resetTurn(); // the move may not have arrived: the next state says
    document.body.dataset.connected = "0";
    // back off: 0.5 s, 1 s, 2 s ... up to 15 s, with a little jitter
    const delay = Math.min(15000, 500 * 2 ** S.retries) * (0.8 + Math.random() * 0.4);
    S.retries = Math.min(S.retries + 1, 10);
    setConn("retry", { seconds: Math.max(1, Math.round(delay / 1000)) });
    S.reconnect = setTimeout(connect, delay);
    render();
  });
}

/** Reconnect at once when the network or the tab comes back. */
function reconnectNow() {
  if (S.ws || !ROOM_ID) return;
  clearTimeout(S.reconnect);
  connect();
}

function receive(m) {
  switch (m.type) {
    case "welcome":
      S.welcomes += 1;
      if (S.welcomes > 1 && !S.ready) {
        // the answer to my hello: the state that follows is my seat's, as the server has it
        S.ready = true; // body data-connected follows with the state drawn
        setConn("online");
      }
      break;
    case "seated":
      if (typeof m.token === "string") safeSet(TOKEN_KEY, m.token);
      break;
    case "state": onState(m); break;
    case "chat":
      // a new socket is sent the last chat lines again: those already shown are skipped
      if (Number.isInteger(m.number)) {
        if (m.number <= S.chatSeen) break;
        S.chatSeen = m.number;
      }
      addChat({ kind: "chat", name: String(m.name || ""), text: String(m.text || "") });
      break;
    case "info": addChat({ kind: "info", text: String(m.text || "") }); break;
    case "turn": {
      if (!Number.isInteger(m.number)) break;
      // a new socket is sent the last turns again (before the answer to its hello): those
      // already shown are skipped; the first new one tells what was missed while offline
      const first = !S.socketTurns;
      S.socketTurns = true;
      if (m.number <= lastTurn()) break;
      if (S.since === null) S.since = m.number;
      else if (first) noteGap(m.number);
      S.turns.push(m);
      if (S.turns.length > MAX_TURNS) S.turns.shift();
      renderTurns();
      break;
    }
    case "round": S.round = m; renderRound(); break;
    case "match": S.match = m; S.matchClosed = false; break;
    case "hint": S.hint = m; render(); break;
    case "error":
      if (m.key === "error.bad-token") safeRemove(TOKEN_KEY);
      if (S.sent) resetTurn();
      showError(String(m.text || m.key || ""));
      render();
      break;
    default: break; // pong, and messages a newer server may add
  }
}

function onState(m) {
  // before the answer to my hello, a state is the spectator's (or stale): the one after it
  // replaces it, so it is not shown (the hand would empty for a moment)
  if (!S.ready || !m.room || typeof m.room !== "object") return;
  const turns = Number(m.room.turns) || 0;
  if (S.since === null) S.since = turns; // no turn sent: the match had these before the page
  // the count tells of missed turns only when this socket brought none (once it has, it is
  // sent every turn; and a CONT takes a number without being a turn)
  if (!S.socketTurns) noteGap(turns);
  const before = S.info ? S.info.turns : -1;
  const sameStatus = S.info && S.info.status === m.room.status;
  S.info = m.room;
  S.seat = Number.isInteger(m.seat) ? m.seat : null;
  S.view = m.view || null;
  S.legal = Array.isArray(m.legal) ? m.legal.map(parseMove) : null;
  if (m.room.turns !== before || !S.legal || S.sent) {
    resetTurn();
    if (m.room.turns !== before) S.hint = null;
  }
  if (!sameStatus) S.matchClosed = false;
  if (S.view && Array.isArray(S.view.live)) S.live = S.view.live;
  else if (m.room.turns !== before || !sameStatus) S.live = null;
  render();
  renderTurns();
  if (S.view && !Array.isArray(S.view.live)) refreshScores(m.room.turns);
}

/** The running scores (what each seat would score if the round ended now): the view's
 * `live` when the server sends it, else GET /rooms/ID/scores once per turn. */
async function refreshScores(turns) {
  try {
    const answer = await fetch(`/rooms/${ROOM_ID}/scores`);
    if (!answer.ok) return;
    const body = await answer.json();
    if (!S.info || body.turns !== S.info.turns || !Array.isArray(body.live)) return;
    S.live = body.live;
    updateScores();
  } catch { /* the next state asks again */ }
}

function liveOf(seat) {
  return S.live && Number.isInteger(S.live[seat]) ? S.live[seat] : null;
}

/** Put the running scores in place (no redraw: a drag under way is kept). */
function updateScores() {
  for (const node of document.querySelectorAll("[data-of-seat] .band-score")) {
    const live = liveOf(Number(node.closest("[data-of-seat]").dataset.ofSeat));
    node.textContent = live === null ? "" : String(live);
  }
  for (const node of document.querySelectorAll(".seat[data-seat] .score")) {
    const live = liveOf(Number(node.closest(".seat").dataset.seat));
    node.textContent = live === null ? "" : String(live);
  }
}

// ---------------------------------------------------------------- moves

/** "p g3 pawn=0 step=b deck" -> {text, action, card, options, draw}; draw null on a last play. */
function parseMove(text) {
  const parts = String(text).split(" ");
  const rest = parts.slice(2);
  const draw = rest.length && !rest[rest.length - 1].includes("=") ? rest.pop() : null;
  return { text, action: parts[0] === "p" ? "play" : "discard", card: parts[1],
    options: rest.join(" "), draw };
}

function resetTurn() {
  S.sel = null;
  S.placed = null;
  S.choices = null;
  S.sent = false;
}

/** The phase of the contract: lobby, over, card, draw or wait. */
function phase() {
  if (!S.ready) return "wait"; // offline, or my seat not yet confirmed by the server
  const status = S.info ? S.info.status : "lobby";
  if (status === "lobby" || status === "over") return status;
  if (!S.legal || S.sent || S.seat === null) return "wait";
  return S.placed ? "draw" : "card";
}

/** The legal moves of card `card` (with `action` when given, and `draw` when given). */
function movesOf(card, action, draw) {
  return (S.legal || []).filter((m) => m.card === card && (!action || m.action === action)
    && (draw === undefined || m.draw === draw));
}

/** Whether the selected card may go to target "play:KEY" / "discard:KEY". */
function targetOk(target) {
  if (!S.sel) return false;
  const [action, key] = target.split(":");
  return parseCard(S.sel.card).key === key && movesOf(S.sel.card, action).length > 0;
}

/** Whether the placed card's turn may end drawing from `source` ("deck" or a colour key). */
function drawOk(source) {
  return !!(S.sel && S.placed) && movesOf(S.sel.card, S.placed.action, source).length > 0;
}

function select(card, index) {
  if (phase() !== "card" && phase() !== "draw") return;
  const same = S.sel && S.sel.index === index;
  S.placed = null;
  S.choices = null;
  S.sel = same ? null : { card, index };
  showError("");
  render();
}

function place(target) {
  if (!targetOk(target)) return;
  const [action, key] = target.split(":");
  S.placed = { action, key };
  const moves = movesOf(S.sel.card, action);
  if (moves.every((m) => m.draw === null)) finish(moves); // the last play: no draw
  else render();
}

function draw(source) {
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

function sendMove(text) {
  showError("");
  if (send({ type: "move", move: text })) S.sent = true;
  S.choices = null;
  render();
}

function line(text) {
  showError("");
  return send({ type: "line", text });
}

// ---------------------------------------------------------------- rendering

function el(tag, className = "", text = null) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null) node.textContent = text;
  return node;
}

function showError(text) {
  const box = $("error");
  box.textContent = text;
  box.hidden = !text;
}

function nameOf(seat) {
  const row = S.info && S.info.seats.find((s) => s.seat === seat);
  if (row) return row.name;
  return S.view && S.view.players[seat] !== undefined ? S.view.players[seat] : `#${seat + 1}`;
}

function toMove() {
  const v = S.view;
  return S.info && S.info.status === "playing" && v && v.phase !== "over" ? v.to_move : null;
}

function render() {
  const body = document.body;
  const info = S.info;
  body.dataset.connected = S.ready ? "1" : "0";
  body.dataset.status = info ? info.status : "";
  body.dataset.seat = S.seat === null ? "" : String(S.seat);
  body.dataset.phase = phase();
  body.dataset.turns = info ? String(info.turns) : "0";
  body.dataset.round = S.view ? String(S.view.round) : "";
  body.classList.toggle("is-board", !!getFace().board);
  renderHeader();
  renderSeats();
  renderTable();
  renderBoard();
  renderButtons();
  renderHand();
  renderChoice();
  renderPrompt();
  renderRoundSheet();
  renderMatch();
  renderHint();
}

function renderHeader() {
  const face = getFace();
  $("pack-name").textContent = packText(face.pack, "name", face.name);
  const v = S.view;
  const parts = [];
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
    const name = el("span", "name", row.seat === moving ? `*${row.name}*` : row.name);
    item.append(name);
    const badges = el("span", "badges");
    if (row.seat === S.seat) badges.append(el("span", "badge you", t("web.seat.you")));
    if (row.kind === "bot") badges.append(el("span", "badge", t("web.seat.bot", { bot: row.bot })));
    if (row.kind === "left") badges.append(el("span", "badge left", t("web.seat.left")));
    if (row.kind === "human" && row.present === false) {
      badges.append(el("span", "badge away", t("web.seat.away")));
    }
    if ((S.info.cont || []).includes(row.seat)) badges.append(el("span", "badge", "CONT ✓"));
    item.append(badges);
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
    else pile.classList.toggle("dim", !!S.sel && !targetOk(target));
    pile.classList.toggle("ok", drawing ? drawOk(colour.key) : !!S.sel && targetOk(target));
    band.append(pile);
  });
  const deck = el("div", "deck");
  deck.dataset.draw = "deck";
  makeTarget(deck, null);
  const back = el("div", "card back");
  back.append(el("span", "big", "◈"));
  deck.append(back);
  const count = el("span", "depth");
  count.append(el("span", "", t("web.deck.label")), " ");
  const number = el("strong", "", String(v.draw_pile));
  number.id = "deck-count";
  count.append(number);
  deck.append(count);
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
  const key = JSON.stringify([v && v.hand, S.seat, S.legal && S.legal.length, currentLang()]);
  if (hand.dataset.key !== key) {
    // rebuilt only when the hand changes, so a drag under way keeps its element
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
    if (phase() !== "card" && phase() !== "draw") { e.preventDefault(); return; }
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

function describeOptions(options) {
  const leaders = (getFace().board || {}).leaders || 0;
  return options.split(" ").filter(Boolean).map((part) => {
    const [name, value] = part.split("=");
    if (name === "pawn") {
      return Number(value) < leaders ? t("web.choice.leader") : t("web.choice.pawn", { pawn: value });
    }
    if (name === "step") {
      return value === "none" ? t("web.choice.step-none")
        : t("web.choice.step", { colour: colourLabel(value) });
    }
    return part;
  }).join(" · ") || t("web.choice.plain");
}

function renderChoice() {
  const box = $("choice");
  box.replaceChildren();
  box.hidden = !S.choices;
  if (!S.choices) return;
  box.append(el("span", "choice-title", t("web.choice.title")));
  for (const move of S.choices) {
    const button = el("button", "btn", describeOptions(move.options));
    button.type = "button";
    button.dataset.choice = move.options;
    button.title = move.text;
    button.addEventListener("click", () => sendMove(move.text));
    box.append(button);
  }
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
  show("btn-join", !!info && !seated && (!full || (status !== "lobby" && seats.some((s) => s.kind === "left"))));
  show("name", !!info && !seated && status === "lobby");
  show("btn-bot", !!info && seated && (status === "lobby" ? !full : takeable));
  $("bot-kind").parentElement.hidden = $("btn-bot").hidden;
  show("btn-start", !!info && seated && status === "lobby");
  $("btn-start").disabled = seats.length < (info ? info.min_players : 2);
  const canCont = !!info && status === "over" && info.continuation && !!me && me.kind === "human";
  show("btn-cont", canCont);
  $("btn-cont").disabled = canCont && (info.cont || []).includes(S.seat);
  show("btn-hint", !!info && info.hints === true && seated && status === "playing");
  $("btn-hint").disabled = !(phase() === "card" || phase() === "draw");
  show("btn-leave", seated);
}

function renderPrompt() {
  const p = phase();
  const prompt = $("prompt");
  let text = "";
  if (!S.ready && S.info) text = t("web.conn.offline");
  else if (p === "card") text = S.sel ? t("web.prompt.target") : t("web.prompt.card");
  else if (p === "draw") text = S.choices ? t("web.choice.title") : t("web.prompt.draw");
  else if (p === "wait" && S.sent) text = t("web.prompt.sent");
  else if (p === "wait" && toMove() !== null) text = t("web.prompt.wait", { name: nameOf(toMove()) });
  else if (p === "lobby" && S.info) text = t("web.prompt.lobby", { min: S.info.min_players });
  else if (p === "over") text = t("web.prompt.over");
  prompt.textContent = text;
  prompt.classList.toggle("your-turn", p === "card" || p === "draw");
  const face = getFace();
  document.title = `${p === "card" || p === "draw" ? "● " : ""}${
    packText(face.pack, "name", face.name) || t("web.brand")}`;
}

/** The number of the last turn shown (or known of), -1 for none. */
function lastTurn() {
  if (S.turns.length) return S.turns[S.turns.length - 1].number;
  return S.since === null ? -1 : S.since - 1;
}

/** The turns before turn number `next` that the page was not sent (it was offline longer
 * than the server's backlog reaches): one {gap} entry in their place, so the history does
 * not pretend to be whole. */
function noteGap(next) {
  const last = lastTurn();
  if (S.since === null || next <= last + 1) return;
  S.turns.push({ gap: next - last - 1, number: next - 1 });
  if (S.turns.length > MAX_TURNS) S.turns.shift();
}

function renderTurns() {
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

function addChat(entry) {
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

// ---------------------------------------------------------------- board packs

function renderBoard() {
  const box = $("board");
  const board = S.view && S.view.board;
  const face = getFace();
  box.hidden = !board;
  box.replaceChildren();
  if (!board) return;
  const head = el("div", "board-head");
  head.append(el("strong", "", t("web.board.title")));
  const crossings = el("span", "crossings", board.crossings_to_end
    ? t("web.board.crossings", { crossings: board.crossings, end: board.crossings_to_end })
    : t("web.board.crossings-open", { crossings: board.crossings }));
  crossings.id = "crossings";
  head.append(crossings, el("span", "legend muted", t("web.board.legend")));
  box.append(head);
  const grid = el("div", "tracks");
  const before = board.bridge_after > 0 && board.bridge_after < board.spaces ? board.bridge_after : 0;
  grid.classList.toggle("has-bridge", before > 0);
  grid.style.setProperty("--before", String(before || board.spaces));
  grid.style.setProperty("--after", String(board.spaces - before));
  face.colours.forEach((colour, c) => {
    const track = el("div", `track ${colourClass(c)}`);
    track.dataset.track = colour.key;
    const label = el("div", "track-label");
    label.title = colourLabel(colour.key);
    label.append(el("span", "sym", colourSymbol(c)), " ", el("span", "track-name", colourLabel(colour.key)));
    track.append(label);
    const points = (face.board && face.board.points[c]) || [];
    for (let space = 1; space <= board.spaces; space += 1) {
      const cell = el("div", "space");
      cell.dataset.space = String(space);
      if (points.length) cell.append(el("span", "points", String(points[space - 1])));
      for (const tile of board.tiles) {
        if (tile.track === colour.key && tile.space === space) cell.append(tileElement(tile));
      }
      board.pawns.forEach((pawns, seat) => pawns.forEach((pawn) => {
        if (pawn.track === colour.key && pawn.space === space) cell.append(pawnElement(seat, pawn.leader));
      }));
      track.append(cell);
      if (space === board.bridge_after && space < board.spaces) {
        // the bridge: a column of its own between two spaces
        const bridge = el("div", "bridge", "‖");
        bridge.title = t("web.board.bridge");
        bridge.dataset.after = String(space);
        track.append(bridge);
      }
    }
    grid.append(track);
  });
  box.append(grid);
  const centre = el("div", "centre-pawns");
  board.pawns.forEach((pawns, seat) => {
    const waiting = pawns.filter((p) => p.track === null);
    const line = el("span", "centre-line");
    line.append(el("span", "", `${nameOf(seat)}: `));
    waiting.forEach((p) => line.append(pawnElement(seat, p.leader)));
    if (!waiting.length) line.append(el("span", "muted", "—"));
    centre.append(line);
  });
  box.append(el("div", "muted centre-title", t("web.board.centre")), centre);
}

function tileElement(tile) {
  const kind = String(tile.kind);
  const mark = kind === "points" ? `+${tile.value}` : kind === "artefact" ? "◆" : kind === "step" ? "»" : kind.slice(0, 1);
  const node = el("span", `tile tile-${kind.replace(/[^a-z-]/g, "")}`, mark);
  node.title = t(`web.tile.${kind}`, { value: tile.value ?? "" });
  return node;
}

function pawnElement(seat, leader) {
  const node = el("span", `pawn seat-${seat % 4}`, leader ? `${seat + 1}★` : String(seat + 1));
  node.dataset.seat = String(seat);
  if (leader) node.dataset.leader = "1";
  node.title = `${nameOf(seat)}${leader ? ` (${t("result.leader")})` : ""}`;
  return node;
}

// ---------------------------------------------------------------- round and match end

function cell(tag, content, className = "") {
  const node = el(tag, className);
  if (content instanceof Node) node.append(content);
  else node.textContent = String(content);
  return node;
}

function renderRound() { renderRoundSheet(); }

function renderRoundSheet() {
  const sheet = $("round-result");
  const r = S.round;
  sheet.hidden = !r;
  if (!r) return;
  const reason = t(`end.${r.end}`) === `end.${r.end}` ? r.end : t(`end.${r.end}`);
  $("round-title").textContent = t("result.title", { round: r.number, reason });
  const box = $("round-tables");
  box.replaceChildren();
  const columns = Array.isArray(r.columns) ? r.columns : [];
  const hasRows = r.seats.some((s) => (s.rows || []).length) || columns.length;
  const hasPawns = r.seats.some((s) => (s.pawns || []).length) || !!getFace().board;
  if (hasRows) {
    const table = el("table", "score-table");
    const head = el("tr");
    [t("result.player"), t("result.row"), t("result.cards"),
      ...columns.map((c) => (t(`column.${c}`) === `column.${c}` ? c : t(`column.${c}`))),
      t("result.score")].forEach((h) => head.append(cell("th", h)));
    table.append(head);
    r.seats.forEach((seat) => {
      (seat.rows || []).forEach((row, i) => {
        const tr = el("tr");
        tr.append(cell("td", i === 0 ? seat.name : ""));
        const colour = cell("td", colourLabel(row.colour), colourClass(colourIndex(row.colour)));
        tr.append(colour);
        const cards = el("td", "cards");
        (row.cards || []).forEach((c) => cards.append(chip(c)));
        tr.append(cards);
        columns.forEach((c) => tr.append(cell("td", row.parts ? row.parts[c] ?? "" : "", "num")));
        tr.append(cell("td", row.score, "num strong"));
        table.append(tr);
      });
      if (!hasPawns) {
        const total = el("tr", "total-row");
        total.append(cell("td", (seat.rows || []).length ? "" : seat.name), cell("td", t("result.round-total")),
          cell("td", ""), ...columns.map(() => cell("td", "")), cell("td", seat.score, "num strong"));
        table.append(total);
      }
    });
    box.append(table);
  }
  if (hasPawns) {
    const table = el("table", "score-table");
    const head = el("tr");
    [t("result.player"), t("result.pawn"), t("result.space"), t("result.score")]
      .forEach((h) => head.append(cell("th", h)));
    table.append(head);
    r.seats.forEach((seat) => {
      let first = true;
      const who = () => { const name = first ? seat.name : ""; first = false; return name; };
      (seat.pawns || []).forEach((pawn) => {
        const tr = el("tr");
        tr.append(cell("td", who()), cell("td", `${colourLabel(pawn.track)}${pawn.leader ? ` (${t("result.leader")})` : ""}`,
          colourClass(colourIndex(pawn.track))), cell("td", pawn.space, "num"), cell("td", pawn.score, "num"));
        table.append(tr);
      });
      const tokens = el("tr");
      tokens.append(cell("td", who()), cell("td", t("result.tokens")), cell("td", ""), cell("td", seat.tokens ?? 0, "num"));
      const artefacts = el("tr");
      artefacts.append(cell("td", ""), cell("td", t("result.artefacts", { count: seat.artefacts ?? 0 })),
        cell("td", ""), cell("td", ""));
      const total = el("tr", "total-row");
      total.append(cell("td", ""), cell("td", t("result.round-total")), cell("td", ""), cell("td", seat.score, "num strong"));
      table.append(tokens, artefacts, total);
    });
    box.append(table);
  }
  $("round-totals").textContent = `${t("table.totals", { rounds: r.number })} ${
    r.seats.map((s, i) => `${s.name}: ${r.totals[i]}`).join(" · ")}`;
}

function renderMatch() {
  const sheet = $("match-end");
  const v = S.view;
  const over = S.info && S.info.status === "over" && v;
  sheet.hidden = !over || S.matchClosed;
  if (!over) return;
  const rounds = S.match && S.match.rounds ? S.match.rounds : v.round_scores;
  const totals = S.match && S.match.totals ? S.match.totals : v.totals;
  const table = el("table", "score-table");
  const head = el("tr");
  head.append(cell("th", t("result.player")));
  rounds.forEach((_, i) => head.append(cell("th", t("result.round-n", { round: i + 1 }))));
  const bonus = v.players.map((_, s) => totals[s] - rounds.reduce((sum, r) => sum + (r[s] || 0), 0));
  if (bonus.some(Boolean)) head.append(cell("th", t("result.match-bonus")));
  head.append(cell("th", t("result.total")));
  table.append(head);
  v.players.forEach((name, s) => {
    const tr = el("tr");
    tr.append(cell("td", name));
    rounds.forEach((r) => tr.append(cell("td", r[s], "num")));
    if (bonus.some(Boolean)) tr.append(cell("td", bonus[s], "num"));
    tr.append(cell("td", totals[s], "num strong"));
    table.append(tr);
  });
  $("match-table").replaceChildren(table);
  const best = Math.max(...totals);
  const winners = S.match && S.match.winners ? S.match.winners : totals.map((x, i) => (x === best ? i : -1)).filter((i) => i >= 0);
  const names = winners.map((w) => v.players[w]);
  $("match-winner").textContent = t(names.length === 1 ? "result.winner" : "result.shared",
    { names: names.join(t("result.and")), score: totals[winners[0]] });
  const humans = S.info.seats.filter((s) => s.kind === "human").length;
  const me = S.info.seats.find((s) => s.seat === S.seat);
  const canCont = S.info.continuation && me && me.kind === "human";
  $("match-cont").textContent = S.info.continuation
    ? t("web.match.cont", { asked: (S.info.cont || []).length, needed: humans }) : "";
  $("match-cont-btn").hidden = !canCont;
  $("match-cont-btn").disabled = !!canCont && (S.info.cont || []).includes(S.seat);
}

function renderHint() {
  const box = $("hint-text");
  const h = S.hint;
  box.hidden = !h || !(phase() === "card" || phase() === "draw");
  box.textContent = h ? t("web.hint.says", { words: h.words || h.move || "" }) : "";
}

// ---------------------------------------------------------------- start

function wire() {
  $("btn-join").addEventListener("click", () => {
    const name = $("name").value.trim();
    if (name) safeSet("lc-name", name);
    line(name ? `/join ${name}` : "/join");
  });
  $("btn-bot").addEventListener("click", () => line(`/bot ${$("bot-kind").value}`));
  $("btn-start").addEventListener("click", () => line("/start"));
  $("btn-cont").addEventListener("click", () => line("/cont"));
  $("match-cont-btn").addEventListener("click", () => line("/cont"));
  $("btn-leave").addEventListener("click", () => line("/leave"));
  $("btn-help").addEventListener("click", () => line("/help"));
  $("btn-hint").addEventListener("click", () => { showError(""); send({ type: "hint" }); });
  $("btn-copy").addEventListener("click", async () => {
    const input = $("room-url");
    try { await navigator.clipboard.writeText(input.value); } catch { input.select(); }
    $("btn-copy").textContent = t("web.room.copied");
  });
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const input = $("chat-input");
    const text = input.value.trim();
    if (text && line(text)) input.value = "";
  });
  for (const button of document.querySelectorAll(".sheet-close")) {
    button.addEventListener("click", () => {
      if (button.closest("#round-result")) S.round = null;
      else S.matchClosed = true;
      render();
    });
  }
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && (S.sel || S.choices)) { S.sel = null; S.placed = null; S.choices = null; render(); }
  });
  $("lang").addEventListener("change", async () => {
    $("lang").value = await setLang($("lang").value);
    applyLabels();
    $("hand").dataset.key = "";
    render();
    renderTurns();
    if (S.ws) hello(); // the server's messages follow the language
  });
  window.addEventListener("online", reconnectNow);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) reconnectNow(); });
  setInterval(() => { if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send('{"type":"ping"}'); }, 30000);
}

async function main() {
  $("lang").value = await setLang(startLang());
  applyLabels();
  $("room-url").value = `${location.origin}/r/${ROOM_ID}`;
  $("name").value = safeGet("lc-name") || "";
  wire();
  setConn("connecting");
  const answer = await fetch(`/rooms/${ROOM_ID}/table`);
  if (!answer.ok) {
    setConn("gone");
    showError(t("web.error.no-room"));
    return;
  }
  setFace(await answer.json());
  render();
  connect();
}

main();
