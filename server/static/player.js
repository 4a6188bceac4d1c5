// A player's page (/players/ID): the name, the rating in each family of packs, the rating
// after each rated match as a small chart (inline SVG drawn here, no library), and the
// last matches; all from GET /players/ID.json. Names are shown as text, never as HTML.
import { applyLabels, currentLang, setLang, startLang, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const PLAYER_ID = (location.pathname.match(/^\/players\/([a-z0-9-]{1,60})\/?$/) || [])[1] || "";
let data = null;

function el(tag, text = null, className = "") {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null) node.textContent = text;
  return node;
}

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

function family(name) { return t(`web.rating.family.${name}`); }
function day(seconds) { return new Date(seconds * 1000).toLocaleDateString(currentLang()); }
function signed(x) { return `${x > 0 ? "+" : ""}${x.toFixed(1)}`; }

function row(cells, head = false) {
  const tr = el("tr");
  for (const [text, className] of cells) tr.append(el(head ? "th" : "td", text, className || ""));
  return tr;
}

/** The chart of one family's ratings after each match that changed it, oldest first. */
export function chart(points) {
  const w = 360, h = 140, left = 40, right = 10, top = 12, bottom = 22;
  const values = points.map((p) => p.rating);
  let low = Math.min(...values), high = Math.max(...values);
  if (high - low < 2) { low -= 1; high += 1; }
  const x = (i) => left + (points.length < 2 ? (w - left - right) / 2 : i * (w - left - right) / (points.length - 1));
  const y = (v) => top + (high - v) * (h - top - bottom) / (high - low);
  const box = svg("svg", { viewBox: `0 0 ${w} ${h}`, class: "chart", role: "img" });
  box.append(svg("title", {}, t("web.rating.chart")));
  box.append(svg("line", { x1: left, y1: top, x2: left, y2: h - bottom, class: "axis" }));
  box.append(svg("line", { x1: left, y1: h - bottom, x2: w - right, y2: h - bottom, class: "axis" }));
  box.append(svg("text", { x: 2, y: top + 4 }, high.toFixed(1)));
  box.append(svg("text", { x: 2, y: h - bottom }, low.toFixed(1)));
  box.append(svg("text", { x: left, y: h - 6 }, day(points[0].at)));
  if (points.length > 1) box.append(svg("text", { x: w - right - 60, y: h - 6 }, day(points[points.length - 1].at)));
  box.append(svg("polyline", { class: "line", points: points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ") }));
  points.forEach((p, i) => {
    const dot = svg("circle", { cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: 3, class: "dot" });
    dot.append(svg("title", {}, `${day(p.at)}: ${p.rating.toFixed(1)}`));
    box.append(dot);
  });
  return box;
}

function show() {
  applyLabels();
  if (!data) return;
  document.title = `${data.name} · ${t("web.brand")}`;
  $("player-name").textContent = data.name;
  const about = [t("web.player.created", { date: day(data.created) })];
  if (data.bot) about.unshift(t("web.player.bot", { bot: data.bot }));
  $("player-about").textContent = about.join(" · ");
  const ratings = $("ratings");
  ratings.replaceChildren(row([[""], [t("web.rating.rating"), "num"], ["μ", "num"], ["σ", "num"],
    [t("web.rating.matches"), "num"]], true));
  for (const r of data.ratings) {
    ratings.append(row([[family(r.family)], [r.rating.toFixed(1), "num"], [r.mu.toFixed(2), "num"],
      [r.sigma.toFixed(2), "num"], [String(r.matches), "num"]]));
  }
  const charts = $("charts");
  charts.replaceChildren();
  for (const name of ["duel", "board"]) {
    const points = data.history.filter((p) => p.family === name);
    if (!points.length) continue;
    charts.append(el("h3", family(name)));
    charts.append(chart(points));
  }
  if (!charts.children.length) charts.append(el("p", t("web.player.no-matches"), "muted"));
  const matches = $("matches");
  matches.replaceChildren();
  if (!data.matches.length) {
    matches.append(row([[t("web.player.no-matches")]]));
    return;
  }
  matches.append(row([[t("web.rating.date")], [t("web.rating.pack")], [t("web.rating.against")],
    [t("web.rating.score"), "num"], [t("web.rating.place"), "num"], [t("web.rating.change"), "num"]], true));
  for (const m of data.matches) {
    const tr = row([[day(m.at)], [`${m.pack} · ${family(m.family)}`], [m.others.join(", ")],
      [String(m.score), "num"], [String(m.rank), "num"],
      [m.note && m.change === 0 ? "–" : signed(m.change), `num ${m.change > 0 ? "up" : m.change < 0 ? "down" : ""}`]]);
    if (m.note) tr.title = t(`web.rating.note.${m.note}`);
    matches.append(tr);
  }
}

async function main() {
  const select = $("lang");
  select.value = await setLang(startLang());
  select.addEventListener("change", async () => { select.value = await setLang(select.value); show(); });
  applyLabels();
  try {
    const answer = await fetch(`/players/${PLAYER_ID}.json`);
    if (!answer.ok) {
      $("player-name").textContent = t("web.player.no-player");
      return;
    }
    data = await answer.json();
  } catch {
    $("error").textContent = t("web.error.network");
    $("error").hidden = false;
    return;
  }
  show();
}

main();
