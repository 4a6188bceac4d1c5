// The landing page: the lobby and the quick match (lobby.js), choose a pack and open a room
// (POST /rooms, listed in the lobby or not), or open one by its id or link.
// The built-in packs are listed by their names in the page's language, the house packs by
// their own names (GET /packs gives both, with each pack's description).
import { applyLabels, builtinPackText, setLang, startLang, t } from "./i18n.js";
import { fillFilter, renderLobby, startLobby } from "./lobby.js";
import { clockOf, fillClocks } from "./clocks.js";
import { claim, createPlayer, forgetPlayer, keyInAddress, moveLink, myPlayer } from "./identity.js";

const $ = (id) => document.getElementById(id);
const ROOM_ID = /^[a-z2-7]{8}$/;

function showError(text) {
  const box = $("error");
  box.textContent = text;
  box.hidden = !text;
}

async function loadPacks() {
  const answer = await fetch("/packs");
  const packs = (await answer.json()).packs || [];
  fillPacks($("pack"), packs);
  fillPacks($("quick-pack"), packs);
  fillFilter(packs);
}

function fillPacks(select, packs) {
  const chosen = select.value;
  select.replaceChildren();
  for (const { pack, kind, name, description } of packs) {
    const option = document.createElement("option");
    option.value = pack;
    if (kind === "house") {  // a house pack: its name (perhaps its base's) and its id
      const named = name && name !== pack ? `${name} · ${pack}` : pack;
      option.textContent = `${named} (${t("web.landing.house")})`;
      option.title = description || "";
    } else {  // a built-in pack: its name and description in the page's language
      option.textContent = builtinPackText(pack, "name") || name || pack;
      option.title = builtinPackText(pack, "description") || description || "";
    }
    select.append(option);
  }
  const wanted = chosen || "duel-classic";
  if (packs.some((p) => p.pack === wanted)) select.value = wanted;
}

async function newRoom(event) {
  event.preventDefault();
  showError("");
  $("new-room").disabled = true;
  try {
    const answer = await fetch("/rooms", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        pack: $("pack").value, hints: $("hints").checked, unlisted: $("unlisted").checked,
        rated: $("rated").checked, clock: clockOf($("clock").value),
      }),
    });
    const body = await answer.json().catch(() => ({}));
    if (!answer.ok || !ROOM_ID.test(body.room || "")) {
      showError(body.text || t("web.error.http", { status: answer.status }));
      return;
    }
    window.location.assign(`/r/${body.room}`);
  } catch (err) {
    showError(t("web.error.network"));
  } finally {
    $("new-room").disabled = false;
  }
}

/** The "You" panel: the form that makes a player, or who this browser plays as; `once`:
 * the player just made (or moved here), whose key and moving link are shown this once. */
let shownOnce = null;
function showPlayer(once = null) {
  shownOnce = once;
  const me = myPlayer();
  $("player-form").hidden = !!me;
  $("player-known").hidden = !me;
  if (!me) return;
  $("player-you").textContent = t("web.player.you", { name: me.name });
  $("player-page").href = `/players/${me.id}`;
  $("player-once").hidden = !once;
  if (once) {
    $("player-once-text").textContent = once.moved ? t("web.player.moved", { name: me.name })
      : t("web.player.key-once", { name: me.name });
    $("player-link").value = once.moved ? "" : moveLink(me.key);
    $("player-key").value = once.moved ? "" : me.key;
    $("player-link").parentElement.hidden = !!once.moved;
    $("player-key").parentElement.hidden = !!once.moved;
  }
}

async function newPlayer(event) {
  event.preventDefault();
  showError("");
  const name = $("player-name").value.trim();
  if (!name) return;
  $("new-player").disabled = true;
  try {
    const got = await createPlayer(name);
    if (got.error) showError(got.error);
    else showPlayer({ moved: false });
  } catch {
    showError(t("web.error.network"));
  } finally {
    $("new-player").disabled = false;
  }
}

/** Opened with a link that moves a player here (/#player=KEY): become that player. */
async function claimFromAddress() {
  const key = keyInAddress();
  if (!key) return false;
  const got = await claim(key);
  if (got.error) showError(got.error);
  else showPlayer({ moved: true });
  return !got.error;
}

function openRoom(event) {
  event.preventDefault();
  // an id, or any link that ends with one (/r/ID, /rooms/ID, /rooms/ID/ws)
  const text = $("room-id").value.trim().toLowerCase();
  const found = text.match(/([a-z2-7]{8})(?:\/ws)?\/?$/);
  if (!found) {
    showError(t("web.error.room-id"));
    return;
  }
  window.location.assign(`/r/${found[1]}`);
}

async function main() {
  fillClocks($("clock"));
  fillClocks($("quick-clock"));
  const select = $("lang");
  select.value = await setLang(startLang());
  applyLabels();
  document.title = t("web.brand");
  select.addEventListener("change", async () => {
    select.value = await setLang(select.value);
    applyLabels();
    showPlayer(shownOnce);
    await loadPacks();
    renderLobby();
  });
  $("new-form").addEventListener("submit", newRoom);
  $("player-form").addEventListener("submit", newPlayer);
  $("forget-player").addEventListener("click", () => { forgetPlayer(); showPlayer(); });
  // a rated room gives no hints: one or the other
  $("rated").addEventListener("change", () => { if ($("rated").checked) $("hints").checked = false; });
  $("hints").addEventListener("change", () => { if ($("hints").checked) $("rated").checked = false; });
  showPlayer();
  try {
    await claimFromAddress();
  } catch {
    showError(t("web.error.network"));
  }
  $("open-form").addEventListener("submit", openRoom);
  startLobby(showError);
  try {
    await loadPacks();
  } catch {
    showError(t("web.error.network"));
  }
}

main();
