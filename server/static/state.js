// The room page's state and the small helpers every part of it shares: the one state object
// `S` (what the last messages said, and where the move being entered stands), the room's
// constants, the DOM helpers, `send` (the one way out to the server: the connection and the
// move entry both send) and `render`, the page's redraw, which the table (table.js)
// registers here so that the modules below it (the move entry) can redraw without importing it.
import { t } from "./i18n.js";

export const $ = (id) => document.getElementById(id);
export const ROOM_ID = (location.pathname.match(/^\/r\/([a-z2-7]{8})\/?$/) || [])[1] || "";
export const TOKEN_KEY = `lc-token-${ROOM_ID}`;
export const MAX_TURNS = 30;
export const MAX_CHAT = 200;

export const S = {
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
  clock: null, // the seats' clocks of the last state (null: no clock), read at `clockAt`
  clockAt: 0,
  resignAsk: false, // the Resign button was pressed: its confirmation is shown
  ws: null,
  retries: 0,
  gone: false, // the server has no such room (its WebSocket closed with ROOM_GONE): no retry
  restarting: false, // the server's database went away (STORE_LOST): said until answered
  // the server welcomes each new socket at once (as a spectator) and again in answer to the
  // page's hello (with my seat): only from that second welcome on is the page up to date
  welcomes: 0,
  ready: false,
};

let renderer = () => {};

/** Register the page's redraw (table.js's render registers itself when it loads). */
export function setRender(fn) { renderer = fn; }

/** Redraw the whole page: the render registered by table.js. */
export function render() { renderer(); }

export function el(tag, className = "", text = null) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null) node.textContent = text;
  return node;
}

export function showError(text) {
  const box = $("error");
  box.textContent = text;
  box.hidden = !text;
}

export function nameOf(seat) {
  const row = S.info && S.info.seats.find((s) => s.seat === seat);
  if (row) return row.name;
  return S.view && S.view.players[seat] !== undefined ? S.view.players[seat] : `#${seat + 1}`;
}

export function toMove() {
  const v = S.view;
  return S.info && S.info.status === "playing" && v && v.phase !== "over" ? v.to_move : null;
}

export function liveOf(seat) {
  return S.live && Number.isInteger(S.live[seat]) ? S.live[seat] : null;
}

/** Send `message` on the room's socket (false, and the offline error shown, when it is not
 * open). It lives here rather than in connection.js because the move entry sends too, and the
 * connection imports the table, which imports the move entry. */
export function send(message) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) {
    S.ws.send(JSON.stringify(message));
    return true;
  }
  showError(t("web.conn.offline"));
  return false;
}
