// The leaderboard (/leaderboard?family=duel|board): the best-rated players of a family of
// packs, bots among them (each bot strength is a player), from GET /leaderboard.json.
import { applyLabels, setLang, startLang, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const FAMILIES = ["duel", "board"];
const asked = new URLSearchParams(location.search).get("family");
const FAMILY = FAMILIES.includes(asked) ? asked : "duel";
let rows = null;

function cell(tag, text, className = "") {
  const node = document.createElement(tag);
  node.textContent = text;
  if (className) node.className = className;
  return node;
}

function show() {
  applyLabels();
  document.title = `${t("web.player.leaderboard")} · ${t(`web.rating.family.${FAMILY}`)}`;
  for (const name of FAMILIES) {
    if (name === FAMILY) $(`family-${name}`).setAttribute("aria-current", "page");
  }
  if (!rows) return;
  const table = $("board");
  const head = document.createElement("tr");
  head.append(cell("th", t("web.rating.rank"), "num"), cell("th", t("web.rating.player")),
    cell("th", t("web.rating.rating"), "num"), cell("th", t("web.rating.matches"), "num"));
  table.replaceChildren(head);
  for (const p of rows) {
    const tr = document.createElement("tr");
    const who = document.createElement("td");
    const link = cell("a", p.bot ? t("web.player.bot", { bot: p.bot }) : p.name);
    link.href = `/players/${encodeURIComponent(p.player)}`;
    who.append(link);
    tr.append(cell("td", String(p.rank), "num"), who, cell("td", p.rating.toFixed(1), "num"),
      cell("td", String(p.matches), "num"));
    table.append(tr);
  }
  $("empty").hidden = rows.length > 0;
}

async function main() {
  const select = $("lang");
  select.value = await setLang(startLang());
  select.addEventListener("change", async () => { select.value = await setLang(select.value); show(); });
  show();
  try {
    const answer = await fetch(`/leaderboard.json?family=${FAMILY}`);
    rows = answer.ok ? ((await answer.json()).players || []) : [];
  } catch {
    $("error").textContent = t("web.error.network");
    $("error").hidden = false;
    return;
  }
  show();
}

main();
