// The replay pages: /matches/ID (a finished match of this server) and /replay (a record file
// the user drops or chooses). Both step through the same frames (server/replays.py): the
// server reads the record and replays it with the library, checking it as `lc replay` does;
// this page never judges a record, it only draws the frames and sends a dropped file's text.
//
// Keys: Right or j the next frame, Left or k the previous one, Home the deal, End the last.
// The frame shown is kept in the address (#N), so the share link opens the same turn.
import { applyLabels, currentLang, packText, safeGet, setLang, startLang, t } from "./i18n.js";
import { cardElement, colourClass, colourLabel, colourSymbol, deckElement, getFace, setFace } from "./cards.js";
import { $, el } from "./state.js";
import { drawBoard } from "./board.js";
import { matchTable, roundTables, roundTitle, roundTotals, winnerLine } from "./sheets.js";

const MATCH_ID = (location.pathname.match(/^\/matches\/([a-z2-7]{16})\/?$/) || [])[1] || "";
/** the most of a chosen file the page reads and sends (the server's own limit is lower) */
const READ_BYTES = 8 * 1024 * 1024;

const R = {
  rematchRoom: "", // the room of this match when this browser played it and it can rematch
  replay: null, // the server's answer: pack, players, frames, totals, winners, games
  at: 0, // the frame shown
  text: null, // a dropped file's text (sent again in another language)
  fileName: "",
  game: 1,
};

function showError(text) {
  $("error").textContent = text;
  $("error").hidden = !text;
}

/** The error line of a refused request: the server's own (in the page's language). */
async function refusalText(answer) {
  try {
    const body = await answer.json();
    if (body && typeof body.text === "string") return body.text;
  } catch { /* not JSON: said by its status */ }
  return t("web.error.http", { status: answer.status });
}

async function load() {
  showError("");
  $("loading").hidden = false;
  let answer;
  try {
    if (MATCH_ID) {
      answer = await fetch(`/matches/${MATCH_ID}/frames?lang=${currentLang()}`);
    } else {
      const query = new URLSearchParams({ game: String(R.game), name: R.fileName, lang: currentLang() });
      answer = await fetch(`/replays?${query}`, {
        method: "POST", headers: { "Content-Type": "application/x-ndjson" }, body: R.text });
    }
  } catch {
    $("loading").hidden = true;
    showError(t("web.error.network"));
    return;
  }
  $("loading").hidden = true;
  if (!answer.ok) {
    showError(await refusalText(answer));
    if (!MATCH_ID) { R.replay = null; draw(); }
    return;
  }
  R.replay = await answer.json();
  setFace(R.replay.pack);
  R.at = Math.min(R.at, R.replay.frames.length - 1);
  games();
  draw();
}

/** The match picker of a file of several matches. */
function games() {
  const count = R.replay.games || 1;
  $("game-pick").hidden = MATCH_ID !== "" || count < 2;
  const pick = $("game");
  if (pick.options.length !== count) {
    pick.replaceChildren();
    for (let k = 1; k <= count; k += 1) {
      const option = el("option", "", t("web.replay.game-n", { game: k, games: count }));
      option.value = String(k);
      pick.append(option);
    }
  }
  pick.value = String(R.game);
}

/** The frame the address asks for (#N), else the deal. */
function frameAsked() {
  return Number((location.hash.match(/^#(\d{1,6})$/) || [])[1] || 0);
}

function go(index) {
  if (!R.replay) return;
  const last = R.replay.frames.length - 1;
  R.at = Math.max(0, Math.min(last, index));
  draw();
}

function nameOf(seat) {
  return R.replay && R.replay.players[seat] !== undefined ? R.replay.players[seat] : `#${seat + 1}`;
}

function draw() {
  const body = document.body;
  const replay = R.replay;
  $("felt").hidden = !replay;
  body.dataset.ready = replay ? "1" : "0";
  body.dataset.frames = replay ? String(replay.frames.length) : "0";
  body.dataset.frame = replay ? String(R.at) : "";
  if (!replay) { $("pack-name").textContent = ""; return; }
  const frame = replay.frames[R.at];
  const face = getFace();
  $("pack-name").textContent = packText(face.pack, "name", face.name);
  const last = replay.frames.length - 1;
  $("btn-first").disabled = R.at === 0;
  $("btn-prev").disabled = R.at === 0;
  $("btn-next").disabled = R.at === last;
  $("btn-last").disabled = R.at === last;
  $("position").textContent = t(frame.seat === null ? "web.replay.position-deal" : "web.replay.position", {
    frame: R.at + 1, frames: last + 1, round: frame.round, rounds: replay.rounds, turn: frame.turn });
  $("words").textContent = frame.seat === null
    ? t("web.replay.deal", { round: frame.round, rounds: replay.rounds, name: nameOf(frame.starter) })
    : frame.words;
  drawTable(frame.table);
  drawBoard($("board"), frame.table && frame.table.board, nameOf);
  drawSheet(frame, R.at === last);
  if (MATCH_ID) {
    const url = `${location.origin}/matches/${MATCH_ID}${R.at ? `#${R.at}` : ""}`;
    $("share-url").value = url;
    history.replaceState(null, "", R.at ? `#${R.at}` : location.pathname);
  }
  document.title = `${t("web.replay.title")} · ${packText(face.pack, "name", face.name) || t("web.brand")}`;
}

function drawTable(table) {
  const box = $("table");
  box.replaceChildren();
  box.hidden = !table;
  if (!table) return;
  box.style.setProperty("--colours", String(getFace().colours.length));
  const n = table.rows.length;
  // seat 1 (and the others) above the piles, seat 0 below, as the room shows a spectator
  for (let seat = 1; seat < n; seat += 1) box.append(seatBand(table, seat));
  box.append(pilesBand(table));
  box.append(seatBand(table, 0));
}

function seatBand(table, seat) {
  const wrap = el("div", "replay-seat");
  wrap.dataset.seat = String(seat);
  const band = el("div", `band rows${seat === table.to_move ? " moving" : ""}`);
  band.dataset.ofSeat = String(seat);
  const label = el("div", "band-label");
  label.append(el("span", "band-name", nameOf(seat)));
  const score = el("span", "band-score", String(table.live[seat]));
  score.title = t("table.round-score");
  label.append(score);
  band.append(label);
  getFace().colours.forEach((colour, c) => {
    const cell = el("div", `row-cell ${colourClass(c)}`);
    cell.dataset.colour = colour.key;
    const cards = table.rows[seat][c] || [];
    if (!cards.length) cell.append(el("span", "row-empty", colourSymbol(c)));
    for (const card of cards) {
      const shown = cardElement(card, "in-row");
      shown.dataset.card = card;
      cell.append(shown);
    }
    band.append(cell);
  });
  band.append(el("div", "band-end"));
  const hand = el("div", "hand replay-hand");
  hand.dataset.seat = String(seat);
  hand.setAttribute("aria-label", t("web.replay.hand", { name: nameOf(seat) }));
  hand.append(el("span", "hand-label", t("web.replay.hand", { name: nameOf(seat) })));
  for (const card of table.hands[seat]) {
    const shown = cardElement(card, "in-hand");
    shown.dataset.card = card;
    hand.append(shown);
  }
  wrap.append(band, hand);
  return wrap;
}

function pilesBand(table) {
  const band = el("div", "band piles");
  band.append(el("div", "band-label", t("table.discards")));
  getFace().colours.forEach((colour, c) => {
    const pile = el("div", `pile ${colourClass(c)}`);
    pile.dataset.colour = colour.key;
    const top = table.pile_tops[c];
    const size = table.pile_sizes[c] || 0;
    pile.dataset.top = top || "";
    if (top) pile.append(cardElement(top));
    else pile.append(el("span", "pile-empty", colourSymbol(c)));
    pile.append(el("span", "depth", size ? t("web.pile.depth", { count: size }) : colourLabel(colour.key)));
    band.append(pile);
  });
  band.append(deckElement(table.draw_pile));
  return band;
}

function drawSheet(frame, last) {
  const sheet = frame.sheet;
  const replay = R.replay;
  // a match a seat forfeited ends on a turn (its round stopped, unscored): its sheet says so
  const forfeit = last && replay.forfeit ? replay.forfeit : null;
  $("sheet").hidden = !sheet && !forfeit;
  if (!sheet && !forfeit) return;
  const forfeited = forfeit
    ? t(`web.match.forfeit.${forfeit.reason}`, { name: replay.players[forfeit.seat] }) : "";
  $("sheet-title").textContent = sheet ? roundTitle(sheet) : forfeited;
  $("sheet-tables").replaceChildren(...(sheet ? roundTables(sheet) : []));
  $("sheet-totals").textContent = sheet ? roundTotals(sheet) : "";
  $("match-box").hidden = !last;
  if (!last) return;
  const rounds = replay.frames.filter((f) => f.sheet).map((f) => f.sheet.seats.map((s) => s.score));
  $("match-table").replaceChildren(matchTable(replay.players, rounds, replay.totals));
  $("match-winner").textContent = (forfeit ? `${forfeited} ` : "") +
    winnerLine(replay.players, replay.winners, replay.totals);
  $("match-winner").dataset.forfeit = forfeit ? forfeit.reason : "";
  $("rematch-box").hidden = !R.rematchRoom;
}

/** The room this browser played the match in (its page kept it), when that room still
 * holds the seat's token and this match is the room's last one, over: a rematch can be
 * asked there. "" otherwise. */
async function rematchRoom() {
  const room = safeGet(`lc-replay-${MATCH_ID}`) || "";
  if (!/^[a-z2-7]{8}$/.test(room) || !safeGet(`lc-token-${room}`)) return "";
  try {
    const answer = await fetch(`/rooms/${room}`);
    if (!answer.ok) return "";
    const info = (await answer.json()).room;
    return info && info.status === "over" && info.replay === `/matches/${MATCH_ID}` ? room : "";
  } catch {
    return "";
  }
}

/** Ask for a rematch in the match's room as the seat this browser holds there (the room's
 * own WebSocket and `/rematch`, as the room's page would), then go to the room; a refusal
 * is said here, in the server's words. */
function askRematch() {
  const room = R.rematchRoom;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/rooms/${room}/ws`);
  $("btn-rematch").disabled = true;
  ws.addEventListener("open", () => {
    ws.send(JSON.stringify({ type: "hello", lang: currentLang(), token: safeGet(`lc-token-${room}`) }));
    ws.send(JSON.stringify({ type: "line", text: "/rematch" }));
  });
  ws.addEventListener("message", (event) => {
    let m = null;
    try { m = JSON.parse(event.data); } catch { return; }
    if (m && m.type === "error") {
      showError(String(m.text || m.key || ""));
      $("btn-rematch").disabled = false;
      ws.close();
    } else if (m && m.type === "info" && /^info\.rematch/.test(String(m.key))) {
      ws.close();
      location.assign(`/r/${room}`);
    }
  });
  ws.addEventListener("close", () => { $("btn-rematch").disabled = false; });
}

function readFile(file) {
  if (!file) return;
  R.fileName = file.name.slice(0, 80);
  $("file-name").textContent = R.fileName;
  const reader = new FileReader();
  reader.addEventListener("load", () => {
    R.text = String(reader.result);
    R.game = 1;
    R.at = 0;
    $("game").replaceChildren();
    load();
  });
  reader.addEventListener("error", () => showError(t("web.replay.unreadable")));
  reader.readAsText(file.slice(0, READ_BYTES));
}

function wire() {
  $("btn-first").addEventListener("click", () => go(0));
  $("btn-prev").addEventListener("click", () => go(R.at - 1));
  $("btn-next").addEventListener("click", () => go(R.at + 1));
  $("btn-last").addEventListener("click", () => go(Infinity));
  $("btn-rematch").addEventListener("click", askRematch);
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    const moves = { ArrowRight: R.at + 1, j: R.at + 1, ArrowLeft: R.at - 1, k: R.at - 1, Home: 0, End: Infinity };
    if (!(e.key in moves) || !R.replay) return;
    e.preventDefault();
    go(moves[e.key]);
  });
  $("btn-copy").addEventListener("click", async () => {
    const input = $("share-url");
    try { await navigator.clipboard.writeText(input.value); } catch { input.select(); }
    $("btn-copy").textContent = t("web.room.copied");
  });
  $("file").addEventListener("change", () => readFile($("file").files[0]));
  const zone = $("drop");
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("drop-ok"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("drop-ok"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("drop-ok");
    readFile(e.dataTransfer && e.dataTransfer.files[0]);
  });
  $("game").addEventListener("change", () => {
    R.game = Number($("game").value) || 1;
    R.at = 0;
    load();
  });
  window.addEventListener("hashchange", () => go(frameAsked()));
  $("lang").addEventListener("change", async () => {
    $("lang").value = await setLang($("lang").value);
    applyLabels();
    $("share-url").setAttribute("aria-label", t("web.replay.share"));
    if (R.replay) load(); // the turns are said in the new language
  });
}

async function main() {
  $("lang").value = await setLang(startLang());
  applyLabels();
  $("share-url").setAttribute("aria-label", t("web.replay.share"));
  document.body.dataset.mode = MATCH_ID ? "match" : "file";
  $("share").hidden = !MATCH_ID;
  $("drop").hidden = !!MATCH_ID;
  wire();
  if (MATCH_ID) {
    R.at = frameAsked();
    R.rematchRoom = await rematchRoom();
    await load();
  }
}

main();
