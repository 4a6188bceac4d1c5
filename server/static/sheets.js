// The round and match sheets (#round-result, #match-end) and the hint line (#hint-text).
import { t } from "./i18n.js";
import { chip, colourClass, colourIndex, colourLabel, getFace } from "./cards.js";
import { $, el, S } from "./state.js";
import { phase } from "./moves.js";

function cell(tag, content, className = "") {
  const node = el(tag, className);
  if (content instanceof Node) node.append(content);
  else node.textContent = String(content);
  return node;
}

export function renderRound() { renderRoundSheet(); }

export function renderRoundSheet() {
  const sheet = $("round-result");
  const r = S.round;
  sheet.hidden = !r;
  if (!r) return;
  $("round-title").textContent = roundTitle(r);
  $("round-tables").replaceChildren(...roundTables(r));
  $("round-totals").textContent = roundTotals(r);
}

/** A round sheet's title: "Round 2 over (the draw pile is empty)". */
export function roundTitle(r) {
  const reason = t(`end.${r.end}`) === `end.${r.end}` ? r.end : t(`end.${r.end}`);
  return t("result.title", { round: r.number, reason });
}

/** The totals after a round, one line. */
export function roundTotals(r) {
  return `${t("table.totals", { rounds: r.number })} ${
    r.seats.map((s, i) => `${s.name}: ${r.totals[i]}`).join(" · ")}`;
}

/** The tables of a round sheet (a `round` message: the room's, or a replay frame's sheet):
 * each row's cards and scoring, or each pawn's space and score in the board game. */
export function roundTables(r) {
  const box = [];
  const columns = Array.isArray(r.columns) ? r.columns : [];
  const hasRows = r.seats.some((s) => (s.rows || []).length) || columns.length;
  const hasPawns = r.seats.some((s) => (s.pawns || []).length) || !!getFace().board;
  if (hasRows) {
    const table = el("table", "score-table");
    const head = el("tr");
    [t("result.player"), t("result.row"), t("result.cards"),
      ...columns.map((c) => (t(`column.${c}`) === `column.${c}` ? c : t(`column.${c}`))),
      t("result.score")].forEach((h) => head.append(cell("th", h)));
    table.append(head);
    r.seats.forEach((seat) => {
      (seat.rows || []).forEach((row, i) => {
        const tr = el("tr");
        tr.append(cell("td", i === 0 ? seat.name : ""));
        const colour = cell("td", colourLabel(row.colour), colourClass(colourIndex(row.colour)));
        tr.append(colour);
        const cards = el("td", "cards");
        (row.cards || []).forEach((c) => cards.append(chip(c)));
        tr.append(cards);
        columns.forEach((c) => tr.append(cell("td", row.parts ? row.parts[c] ?? "" : "", "num")));
        tr.append(cell("td", row.score, "num strong"));
        table.append(tr);
      });
      if (!hasPawns) {
        const total = el("tr", "total-row");
        total.append(cell("td", (seat.rows || []).length ? "" : seat.name), cell("td", t("result.round-total")),
          cell("td", ""), ...columns.map(() => cell("td", "")), cell("td", seat.score, "num strong"));
        table.append(total);
      }
    });
    box.push(table);
  }
  if (hasPawns) {
    const table = el("table", "score-table");
    const head = el("tr");
    [t("result.player"), t("result.pawn"), t("result.space"), t("result.score")]
      .forEach((h) => head.append(cell("th", h)));
    table.append(head);
    r.seats.forEach((seat) => {
      let first = true;
      const who = () => { const name = first ? seat.name : ""; first = false; return name; };
      (seat.pawns || []).forEach((pawn) => {
        const tr = el("tr");
        tr.append(cell("td", who()), cell("td", `${colourLabel(pawn.track)}${pawn.leader ? ` (${t("result.leader")})` : ""}`,
          colourClass(colourIndex(pawn.track))), cell("td", pawn.space, "num"), cell("td", pawn.score, "num"));
        table.append(tr);
      });
      const tokens = el("tr");
      tokens.append(cell("td", who()), cell("td", t("result.tokens")), cell("td", ""), cell("td", seat.tokens ?? 0, "num"));
      const artefacts = el("tr");
      artefacts.append(cell("td", ""), cell("td", t("result.artefacts", { count: seat.artefacts ?? 0 })),
        cell("td", ""), cell("td", ""));
      const total = el("tr", "total-row");
      total.append(cell("td", ""), cell("td", t("result.round-total")), cell("td", ""), cell("td", seat.score, "num strong"));
      table.append(tokens, artefacts, total);
    });
    box.push(table);
  }
  return box;
}

export function renderMatch() {
  const sheet = $("match-end");
  const v = S.view;
  const over = S.info && S.info.status === "over" && v;
  sheet.hidden = !over || S.matchClosed;
  if (!over) return;
  const rounds = S.match && S.match.rounds ? S.match.rounds : v.round_scores;
  const totals = S.match && S.match.totals ? S.match.totals : v.totals;
  $("match-table").replaceChildren(matchTable(v.players, rounds, totals));
  const best = Math.max(...totals);
  const winners = S.match && S.match.winners ? S.match.winners : totals.map((x, i) => (x === best ? i : -1)).filter((i) => i >= 0);
  const forfeit = S.info.forfeit;  // a seat resigned or ran out of time: it lost
  const forfeited = forfeit ? `${t(`web.match.forfeit.${forfeit.reason}`, { name: v.players[forfeit.seat] })} ` : "";
  $("match-winner").textContent = forfeited + winnerLine(v.players, winners, totals);
  $("match-winner").dataset.forfeit = forfeit ? forfeit.reason : "";
  // the match's replay: said when it ended, or by the room (a page that came in after)
  const said = S.match && typeof S.match.replay === "string" ? S.match.replay : S.info.replay;
  const replay = typeof said === "string" ? said : "";
  $("match-replay").hidden = !replay;
  if (replay) $("match-replay").href = replay;
  const humans = S.info.seats.filter((s) => s.kind === "human").length;
  const me = S.info.seats.find((s) => s.seat === S.seat);
  const human = !!me && me.kind === "human";
  const asked = S.info.rematch || [];
  $("match-rematch").textContent = t("web.match.rematch", { asked: asked.length, needed: humans });
  $("match-rematch-btn").hidden = !human;
  $("match-rematch-btn").disabled = human && asked.includes(S.seat);
  const canCont = S.info.continuation && me && me.kind === "human";
  $("match-cont").textContent = S.info.continuation
    ? t("web.match.cont", { asked: (S.info.cont || []).length, needed: humans }) : "";
  $("match-cont-btn").hidden = !canCont;
  $("match-cont-btn").disabled = !!canCont && (S.info.cont || []).includes(S.seat);
}

/** The match's sheet: each player's score in each round, the match bonus if any, the total. */
export function matchTable(players, rounds, totals) {
  const table = el("table", "score-table");
  const head = el("tr");
  head.append(cell("th", t("result.player")));
  rounds.forEach((_, i) => head.append(cell("th", t("result.round-n", { round: i + 1 }))));
  const bonus = players.map((_, s) => totals[s] - rounds.reduce((sum, r) => sum + (r[s] || 0), 0));
  if (bonus.some(Boolean)) head.append(cell("th", t("result.match-bonus")));
  head.append(cell("th", t("result.total")));
  table.append(head);
  players.forEach((name, s) => {
    const tr = el("tr");
    tr.append(cell("td", name));
    rounds.forEach((r) => tr.append(cell("td", r[s], "num")));
    if (bonus.some(Boolean)) tr.append(cell("td", bonus[s], "num"));
    tr.append(cell("td", totals[s], "num strong"));
    table.append(tr);
  });
  return table;
}

/** "Winner: Ada, with 90 points." (or the shared win). */
export function winnerLine(players, winners, totals) {
  const names = winners.map((w) => players[w]);
  return t(names.length === 1 ? "result.winner" : "result.shared",
    { names: names.join(t("result.and")), score: totals[winners[0]] });
}

export function renderHint() {
  const box = $("hint-text");
  const h = S.hint;
  box.hidden = !h || !(phase() === "card" || phase() === "draw");
  box.textContent = h ? t("web.hint.says", { words: h.words || h.move || "" }) : "";
}
