// Who this browser plays as: a player (its public id, name and secret key) made once by
// POST /players and kept in this browser's storage; no password. The key moves the player
// to another device as a link (/#player=KEY: the part after # never reaches a server's
// log) or to `lc play --connect URL --player KEY`. Rated rooms seat players only.
import { safeGet, safeRemove, safeSet } from "./i18n.js";

const PLAYER_KEY = "lc-player";
const PLAYER_ID = /^[a-z2-7]{16}$/;

/** The player this browser plays as, `{ id, name, key }`, or null. */
export function myPlayer() {
  let p = null;
  try { p = JSON.parse(safeGet(PLAYER_KEY) || "null"); } catch { return null; }
  if (!p || typeof p !== "object" || !PLAYER_ID.test(String(p.id || ""))
      || typeof p.name !== "string" || typeof p.key !== "string" || !p.key) return null;
  return { id: p.id, name: p.name, key: p.key };
}

export function keepPlayer(p) { safeSet(PLAYER_KEY, JSON.stringify({ id: p.id, name: p.name, key: p.key })); }
export function forgetPlayer() { safeRemove(PLAYER_KEY); }

/** The link that moves the player of `key` to another device. */
export function moveLink(key) { return `${location.origin}/#player=${encodeURIComponent(key)}`; }

/** POST a JSON body; `{ ok, status, body }` (body `{}` when not JSON). */
async function post(path, body) {
  const answer = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body) });
  return { ok: answer.ok, status: answer.status, body: await answer.json().catch(() => ({})) };
}

/** Make a player called `name`: `{ player }` kept in this browser, or `{ error }` (the server's line). */
export async function createPlayer(name) {
  const got = await post("/players", { name });
  if (!got.ok || !PLAYER_ID.test(String(got.body.player || ""))) return { error: got.body.text || String(got.status) };
  const player = { id: got.body.player, name: String(got.body.name), key: String(got.body.key) };
  keepPlayer(player);
  return { player };
}

/** The key in this page's address (`#player=KEY`), taken out of the address; or "". */
export function keyInAddress() {
  const found = location.hash.match(/^#player=([^&]{1,200})$/);
  if (!found) return "";
  history.replaceState(null, "", location.pathname + location.search);
  try { return decodeURIComponent(found[1]); } catch { return ""; }
}

/** Become the player whose key is `key` (asked of the server): `{ player }` or `{ error }`. */
export async function claim(key) {
  const got = await post("/players/me", { key });
  if (!got.ok || !PLAYER_ID.test(String(got.body.player || ""))) return { error: got.body.text || String(got.status) };
  const player = { id: got.body.player, name: String(got.body.name), key };
  keepPlayer(player);
  return { player };
}
