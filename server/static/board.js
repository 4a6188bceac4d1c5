// The board of the board packs (#board): the tracks with their spaces, tiles and pawns, the
// bridge, and the pawns still in the centre; a button (#btn-board) folds it away, so that a
// phone shows the hand without scrolling past it: folded at first on a narrow screen, then
// as the player last left it (kept in the browser).
import { safeGet, safeSet, t } from "./i18n.js";
import { colourClass, colourLabel, colourSymbol, getFace } from "./cards.js";
import { $, el, nameOf, render, S } from "./state.js";

const FOLD_KEY = "lc-board";
/** a screen this narrow starts with the board folded */
const NARROW = "(max-width: 700px)";

/** Whether the board is folded away: as the player left it, else folded on a narrow screen. */
function folded() {
  const kept = safeGet(FOLD_KEY);
  if (kept === "folded" || kept === "open") return kept === "folded";
  return window.matchMedia(NARROW).matches;
}

/** Wire #btn-board (once, when the page starts). */
export function wireBoard() {
  $("btn-board").addEventListener("click", () => {
    safeSet(FOLD_KEY, folded() ? "open" : "folded");
    render();
  });
}

/** The room's board: its fold button, and the board unless folded away. */
export function renderBoard() {
  const board = S.view && S.view.board;
  const toggle = $("btn-board");
  toggle.hidden = !board;
  toggle.textContent = folded() ? t("web.board.show") : t("web.board.hide");
  toggle.setAttribute("aria-expanded", folded() ? "false" : "true");
  drawBoard($("board"), folded() ? null : board, nameOf);
}

/** Draw `board` (a VIEW's board; null: none, the box hidden) into `box`, each seat's name
 * said by `nameOf(seat)`; the room's table and the replay page both draw the board with
 * it (folding is the room's: renderBoard). */
export function drawBoard(box, board, nameOf) {
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
        if (pawn.track === colour.key && pawn.space === space) cell.append(pawnElement(seat, pawn.leader, nameOf));
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
    waiting.forEach((p) => line.append(pawnElement(seat, p.leader, nameOf)));
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

function pawnElement(seat, leader, nameOf) {
  const node = el("span", `pawn seat-${seat % 4}`, leader ? `${seat + 1}★` : String(seat + 1));
  node.dataset.seat = String(seat);
  if (leader) node.dataset.leader = "1";
  node.title = `${nameOf(seat)}${leader ? ` (${t("result.leader")})` : ""}`;
  return node;
}
