// The lobby on the landing page: the listed rooms, pushed over WS /lobby/ws (a snapshot,
// then each room added, changed or removed: never polled), filtered by pack; and the quick
// match: a bot of a chosen strength at once, or the next player waiting for the same pack.
// Names are data: every one is put in as text (textContent), never as markup.
import { builtinPackText, currentLang, safeSet, t } from "./i18n.js";
import { clockOf, controlLabel } from "./clocks.js";

const $ = (id) => document.getElementById(id);
const ROOM_ID = /^[a-z2-7]{8}$/;
const SECTIONS = ["waiting", "playing"];

const L = {
  ws: null, retries: 0, rooms: new Map(), more: { waiting: 0, playing: 0 }, waiting: [],
  strengths: [], queued: null, queuedClock: null, drawn: false, packNames: new Map(),
};

/** A pack's name as the page shows it: a built-in one's in the page's language, a house
 * pack's as GET /packs gave it, else its id. */
function packName(pack) {
  return builtinPackText(pack, "name") || L.packNames.get(pack) || pack;
}

/** Send ``message`` on the lobby's socket; false when it is not open. */
function send(message) {
  if (!L.ws || L.ws.readyState !== WebSocket.OPEN) return false;
  L.ws.send(JSON.stringify(message));
  return true;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function roomItem(summary) {
  const item = el("li");
  item.dataset.room = summary.room;
  item.append(el("span", "pack-name", packName(summary.pack)));
  const names = (summary.players || []).map((p) =>
    (p.bot ? t("web.lobby.bot", { name: p.name }) : p.name));
  item.append(el("span", "players", names.length ? names.join(", ") : t("web.lobby.nobody")));
  item.append(el("span", "tag seats",
    t("web.lobby.seats", { seats: summary.seats, total: summary.total })));
  if ("rated" in summary) {
    item.append(el("span", "tag rated", t(summary.rated ? "web.lobby.rated" : "web.lobby.casual")));
  }
  if ("clock" in summary) {
    item.append(el("span", "tag clock", t("web.lobby.clock", { clock: controlLabel(summary.clock) })));
  }
  if (summary.hints) item.append(el("span", "tag hints", t("web.lobby.hints")));
  const open = el("a", "btn small",
    t(summary.section === "waiting" ? "web.lobby.join" : "web.lobby.watch"));
  if (ROOM_ID.test(summary.room)) open.href = `/r/${summary.room}`;
  item.append(open);
  return item;
}

function queueItem({ pack, clock, players }) {
  const item = el("li");
  item.dataset.queue = pack;
  item.append(el("span", "players", t("web.lobby.queue-line", { count: players, pack: packName(pack) })));
  if (clock) item.append(el("span", "tag clock", t("web.lobby.clock", { clock: controlLabel(clock) })));
  if (queueKey(pack, clock) !== queueKey(L.queued, L.queuedClock)) {
    const join = el("button", "btn small", t("web.lobby.queue-join"));
    join.type = "button";
    join.addEventListener("click", () => queue(pack, clock || null));
    item.append(join);
  }
  return item;
}

/** Draw the lobby as it is (at most once a frame, however many messages came). */
export function renderLobby() {
  if (L.drawn) return;
  L.drawn = true;
  requestAnimationFrame(() => {
    L.drawn = false;
    const ordered = [...L.rooms.values()].reverse(); // the newest first
    for (const section of SECTIONS) {
      const list = $(`lobby-${section}`);
      const items = ordered.filter((s) => s.section === section).map(roomItem);
      if (!items.length) items.push(el("li", "empty", t(`web.lobby.none-${section}`)));
      list.replaceChildren(...items);
      const more = $(`more-${section}`);
      more.hidden = !L.more[section];
      more.textContent = L.more[section] ? t("web.lobby.more", { count: L.more[section] }) : "";
    }
    $("lobby-queue").replaceChildren(...L.waiting.map(queueItem));
    const text = $("quick-text");
    $("quick-status").hidden = !L.queued;
    text.textContent = L.queued ? t("web.quick.waiting", { pack: packName(L.queued) }) : "";
    document.body.dataset.lobbyRooms = String(L.rooms.size);
  });
}

function receive(m) {
  switch (m.type) {
    case "lobby":
      L.rooms = new Map(m.rooms.map((s) => [s.room, s]));
      L.more = m.more;
      L.waiting = m.waiting;
      if (!L.strengths.length) fillStrengths(m.strengths);
      document.body.dataset.lobby = "1";
      break;
    case "added":
      L.rooms.delete(m.room.room); // to the end: the newest
      L.rooms.set(m.room.room, m.room);
      break;
    case "changed":
      L.rooms.set(m.room.room, m.room);
      break;
    case "removed":
      L.rooms.delete(m.room);
      break;
    case "more":
      L.more = m.more;
      break;
    case "waiting":
      L.waiting = m.waiting;
      break;
    case "queued":
      L.queued = m.pack;
      L.queuedClock = m.clock || null;
      break;
    case "matched":
      if (!ROOM_ID.test(m.room)) return;
      L.queued = null;
      safeSet(`lc-token-${m.room}`, m.token); // the room page says hello with it: seated
      window.location.assign(`/r/${m.room}`);
      return;
    case "error":
      L.queued = null;
      setButtons(false);
      showLobbyError(m.text || m.key);
      break;
    default:
      return;
  }
  renderLobby();
}

let showLobbyError = () => {};

function fillStrengths(strengths) {
  L.strengths = strengths;
  const select = $("strength");
  select.replaceChildren(...strengths.map((name) => {
    const option = el("option", "", t(`web.quick.strength.${name}`));
    option.value = name;
    option.dataset.i18n = `web.quick.strength.${name}`;
    return option;
  }));
  if (strengths.includes("easy")) select.value = "easy";
}

function watch() {
  const pack = $("lobby-pack").value || null;
  send({ type: "watch", pack, lang: currentLang() });
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/lobby/ws`);
  L.ws = ws;
  ws.addEventListener("open", () => {
    L.retries = 0;
    $("lobby-offline").hidden = true;
    if ($("lobby-pack").value) watch(); // the snapshot came for every pack: narrow it
    ws.keepalive = setInterval(() => send({ type: "ping" }), 60000);
  });
  ws.addEventListener("message", (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (message && typeof message === "object") receive(message);
  });
  ws.addEventListener("close", () => {
    clearInterval(ws.keepalive);
    if (L.ws !== ws) return;
    L.ws = null;
    L.queued = null; // the queue forgets a closed socket
    setButtons(false);
    $("lobby-offline").hidden = false;
    const delay = Math.min(15000, 500 * 2 ** L.retries) * (0.8 + Math.random() * 0.4);
    L.retries = Math.min(L.retries + 1, 10);
    setTimeout(connect, delay);
    renderLobby();
  });
}

function setButtons(busy) {
  $("quick-bot").disabled = busy;
  $("quick-human").disabled = busy;
}

/** What a place in the queue waits for: the pack and the clock (two pages are paired on both). */
function queueKey(pack, clock) {
  return pack ? `${pack} ${clock ? JSON.stringify(clock) : ""}` : "";
}

function queue(pack, clock) {
  showLobbyError("");
  if (!send({ type: "queue", pack, clock })) {
    showLobbyError(t("web.error.network"));
    return;
  }
  L.queued = pack;
  L.queuedClock = clock;
  renderLobby();
}

/** Fill the lobby's filter with the packs (GET /packs), keeping the choice. */
export function fillFilter(packs) {
  const select = $("lobby-pack");
  const chosen = select.value;
  const all = el("option", "", t("web.lobby.all"));
  all.value = "";
  all.dataset.i18n = "web.lobby.all";
  select.replaceChildren(all, ...packs.map(({ pack, name }) => {
    L.packNames.set(pack, name || pack);
    const option = el("option", "", packName(pack));
    option.value = pack;
    return option;
  }));
  select.value = packs.some((p) => p.pack === chosen) ? chosen : "";
  fillStrengths(L.strengths);
  renderLobby();
}

/** Start the lobby: its socket, the filter, the quick-match buttons. ``onError`` shows
 * a line (the landing page's error box). */
export function startLobby(onError) {
  showLobbyError = onError;
  $("lobby-pack").addEventListener("change", watch);
  $("quick-form").addEventListener("submit", (event) => {
    event.preventDefault();
    onError("");
    setButtons(true);
    if (!send({ type: "play_bot", pack: $("quick-pack").value, strength: $("strength").value,
      clock: clockOf($("quick-clock").value) })) {
      setButtons(false);
      onError(t("web.error.network"));
    }
  });
  $("quick-human").addEventListener("click", () => queue($("quick-pack").value, clockOf($("quick-clock").value)));
  $("quick-cancel").addEventListener("click", () => {
    send({ type: "leave_queue" });
    L.queued = null;
    renderLobby();
  });
  connect();
}
