// The room page (/r/ID): the table of rule text 002 in the browser.
//
// Everything shown comes from the room's WebSocket (/rooms/ID/ws, docs/server.md): the server
// is authoritative, the page only sends intentions. A turn is one `move` message in the
// engine's notation ("p r5 deck", "d r5 g", "p g3 pawn=0 step=b deck"), built by narrowing the
// `legal` list of the last `state` message: first a card, then a target (my row or its
// discard pile), then, in the board packs, a button of #choice for each decision the moves
// left differ by (a pawn, an advance), then a draw (the deck or a pile). Text from the
// network is set with textContent only.
//
// This module starts the page (main) and wires its buttons (wire); the rest is in
// state.js (S, constants, helpers), connection.js, moves.js (the move entry), table.js (the
// rendering), board.js (the board packs), keys.js (the keyboard), motion.js (the turns
// animated) and sheets.js (the round and match sheets).
import { applyLabels, safeGet, safeSet, setLang, startLang, t } from "./i18n.js";
import { setFace } from "./cards.js";
import { $, render, ROOM_ID, S, send, showError } from "./state.js";
import { line } from "./moves.js";
import { renderTurns } from "./table.js";
import { connect, hello, reconnectNow, setConn } from "./connection.js";
import { wireKeys } from "./keys.js";
import { wireBoard } from "./board.js";

function wire() {
  $("btn-join").addEventListener("click", () => {
    const name = $("name").hidden ? "" : $("name").value.trim();  // a rated room: the player's
    if (name) safeSet("lc-name", name);
    line(name ? `/join ${name}` : "/join");
  });
  $("btn-bot").addEventListener("click", () => line(`/bot ${$("bot-kind").value}`));
  $("btn-start").addEventListener("click", () => line("/start"));
  $("btn-rematch").addEventListener("click", () => line("/rematch"));
  $("match-rematch-btn").addEventListener("click", () => line("/rematch"));
  $("btn-cont").addEventListener("click", () => line("/cont"));
  $("match-cont-btn").addEventListener("click", () => line("/cont"));
  $("btn-leave").addEventListener("click", () => line("/leave"));
  $("btn-resign").addEventListener("click", () => { S.resignAsk = true; render(); $("btn-resign-no").focus(); });
  $("btn-resign-no").addEventListener("click", () => { S.resignAsk = false; render(); });
  $("btn-resign-yes").addEventListener("click", () => { S.resignAsk = false; line("/resign"); });
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
  wireKeys();
  wireBoard();
  // a pointer that changes (a tablet's keyboard and mouse plugged in) changes the words
  window.matchMedia("(pointer: coarse)").addEventListener("change", () => render());
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
