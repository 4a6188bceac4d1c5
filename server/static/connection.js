// The connection: the room's WebSocket (/rooms/ID/ws, docs/server.md), the hello that names
// my seat (its token) and language, the reconnection with back-off, and what each message
// from the server does to `S` and the page; the running scores.
import { currentLang, safeGet, safeRemove, safeSet, t } from "./i18n.js";
import { $, liveOf, MAX_TURNS, render, ROOM_ID, S, send, showError, TOKEN_KEY } from "./state.js";
import { parseMove, resetTurn } from "./moves.js";
import { renderRound } from "./sheets.js";
import { addChat, renderTurns } from "./table.js";
import { noteTurn, showTurns } from "./motion.js";
import { myPlayer } from "./identity.js";
import { takeClocks } from "./clocks.js";

/** The close code of a WebSocket to a room the server does not have (protocol.ROOM_GONE). */
export const ROOM_GONE = 4404;
/** The close code of every socket of a server whose database went out of reach
 * (protocol.STORE_LOST): reconnect, to it or another process of the same rooms. */
export const STORE_LOST = 1012;

export function hello() {
  const message = { type: "hello", lang: currentLang() };
  const token = safeGet(TOKEN_KEY);
  if (token) message.token = token;
  const me = myPlayer();  // who I am: a rated room seats players only
  if (me) message.player = me.key;
  send(message);
}

export function setConn(state, params = {}) {
  const el = $("conn");
  el.dataset.state = state;
  el.textContent = t(`web.conn.${state}`, params);
}

export function connect() {
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
  ws.addEventListener("close", (event) => {
    clearInterval(ws.keepalive);
    if (S.ws !== ws) return;
    S.ws = null;
    S.ready = false;
    if (event.code === ROOM_GONE) { // the server has no such room: one line, no retry
      S.gone = true;
      document.body.dataset.connected = "0";
      setConn("gone");
      showError(t("web.error.no-room"));
      render();
      return;
    }
    if (S.sent) resetTurn(); // the move may not have arrived: the next state says
    document.body.dataset.connected = "0";
    // back off: 0.5 s, 1 s, 2 s ... up to 15 s, with a little jitter
    const delay = Math.min(15000, 500 * 2 ** S.retries) * (0.8 + Math.random() * 0.4);
    S.retries = Math.min(S.retries + 1, 10);
    // the server's database went away: said until a server answers my hello again
    if (event.code === STORE_LOST) S.restarting = true;
    setConn(S.restarting ? "restart" : "retry",
            { seconds: Math.max(1, Math.round(delay / 1000)) });
    S.reconnect = setTimeout(connect, delay);
    render();
  });
}

/** Send a ping every `seconds` (the welcome's `ping`), so a spectator who watches without
 * a word is never closed as an idle socket; quietly: a ping is no move to warn about. */
function keepAlive(seconds) {
  const ws = S.ws;
  if (!ws || !Number.isInteger(seconds) || seconds < 1) return;
  clearInterval(ws.keepalive);
  ws.keepalive = setInterval(() => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "ping" }));
  }, seconds * 1000);
}

/** Reconnect at once when the network or the tab comes back. */
export function reconnectNow() {
  if (S.ws || !ROOM_ID || S.gone) return;
  clearTimeout(S.reconnect);
  connect();
}

function receive(m) {
  switch (m.type) {
    case "welcome":
      S.welcomes += 1;
      keepAlive(m.ping);
      if (S.welcomes > 1 && !S.ready) {
        // the answer to my hello: the state that follows is my seat's, as the server has it
        S.ready = true; // body data-connected follows with the state drawn
        S.restarting = false;
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
      if (S.ready) noteTurn(m); // not one of the turns sent again on connecting
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
  if (S.info && m.room.match !== S.info.match) {
    // a rematch: a new match in this room, its turns from now on (the old ones' seats moved)
    S.turns = [];
    S.since = turns;
    S.match = null;
    S.round = null;
  }
  const before = S.info ? S.info.turns : -1;
  const sameStatus = S.info && S.info.status === m.room.status;
  S.info = m.room;
  S.seat = Number.isInteger(m.seat) ? m.seat : null;
  rememberReplay(m.room.replay);
  S.view = m.view || null;
  S.legal = Array.isArray(m.legal) ? m.legal.map(parseMove) : null;
  takeClocks(m);
  if (m.room.status !== "playing") S.resignAsk = false;
  if (m.room.turns !== before || !S.legal || S.sent) {
    resetTurn();
    if (m.room.turns !== before) S.hint = null;
  }
  if (!sameStatus) S.matchClosed = false;
  if (S.view && Array.isArray(S.view.live)) S.live = S.view.live;
  else if (m.room.turns !== before || !sameStatus) S.live = null;
  render();
  renderTurns();
  showTurns();
  if (S.view && !Array.isArray(S.view.live)) refreshScores(m.room.turns);
}

/** A player's finished match: its replay page (/matches/ID) is told which room it was played
 * in, so that its end offers that player a rematch (replay.js); a spectator's is not kept. */
function rememberReplay(replay) {
  const id = (String(replay || "").match(/^\/matches\/([a-z2-7]{16})$/) || [])[1];
  if (id && S.seat !== null) safeSet(`lc-replay-${id}`, ROOM_ID);
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

// ---------------------------------------------------------------- the turns missed

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
