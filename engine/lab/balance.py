"""What does a house rule change? Paired-seed comparisons of two packs (``lc balance``).

Both packs play game ``i`` from the same seed :func:`~.simulation.game_seed`
``(seed, i)`` with the same bots, so each measure is compared game by game: the
difference of the means is the mean of the per-game differences, with the 95%
interval mean ± 1.96·sd/√n, much narrower than two independent samples would
give. Proportions get Wilson intervals per pack; their difference is the paired
difference of the per-game 0/1 values. A difference is *significant* when its
interval leaves out 0.

Games run in seeded batches (:mod:`.backends`): results are identical for any
number of workers and on any backend, and a run folder lets an interrupted run
resume. With ``precision``, the run stops after the first batch (in batch
order) at which every interval is narrow enough.
"""
from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from ..bots.registry import make_bot
from ..game.moves import DECK, PLAY
from ..game.rules import RulePack
from ..game.turn import check_players, totals, winners
from ..packs.loader import load_pack
from .backends import Batch, RunDir, batch_size, batches, check_workers, game_played, run_batches
from .simulation import Z95, game_seed, pack_reference, play_match, wilson

#: matches decided by fewer points than this count as close (the issue's "under 10 points")
CLOSE_MARGIN = 10
#: a precision check needs at least this many games
MIN_GAMES = 50


@dataclass(frozen=True)
class Measure:
    """One figure measured on every match: its name, label, kind and unit."""

    key: str
    label: str
    proportion: bool = False      #: a per-match 0..1 value: Wilson intervals per pack
    board: bool = False           #: board packs only


MEASURES: tuple[Measure, ...] = (
    Measure("first_player_wins", "first player wins (share of matches)", proportion=True),
    Measure("score", "mean score per player and match"),
    Measure("margin", "winning margin (points)"),
    Measure("close", f"matches decided by under {CLOSE_MARGIN} points", proportion=True),
    Measure("turns", "turns per round"),
    Measure("rows_opened", "rows opened per player and round"),
    Measure("wagers", "wagers played per player and round"),
    Measure("bonuses", "long-expedition bonuses per player and round"),
    Measure("discard_draws", "draws from discard piles per player and round"),
    Measure("turn_cap", "rounds ended by the turn cap", proportion=True),
    Measure("crossings", "bridges crossed per round", board=True),
    Measure("artefacts", "artefacts taken per player and match", board=True),
)
BY_KEY = {m.key: m for m in MEASURES}


# ----------------------------------------------------------------- statistics

@dataclass
class Moments:
    """Count, mean and sum of squared deviations; mergeable (Chan et al.) and JSON-ready."""

    count: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def add(self, x: float) -> None:
        """Count one value (Welford)."""
        self.count += 1
        delta = x - self.mean
        self.mean += delta / self.count
        self.m2 += delta * (x - self.mean)

    def merge(self, other: "Moments") -> None:
        """Add another sample's moments (the result depends on the order of merges only)."""
        if not other.count:
            return
        n = self.count + other.count
        delta = other.mean - self.mean
        self.mean += delta * other.count / n
        self.m2 += other.m2 + delta * delta * self.count * other.count / n
        self.count = n

    @property
    def sd(self) -> float:
        """Sample standard deviation (0 below two values)."""
        return math.sqrt(self.m2 / (self.count - 1)) if self.count > 1 else 0.0

    @property
    def half_width(self) -> float:
        """Half the 95% interval of the mean (normal approximation)."""
        return Z95 * self.sd / math.sqrt(self.count) if self.count else math.inf

    def to_list(self) -> list[float]:
        """``[count, mean, m2]``."""
        return [self.count, self.mean, self.m2]

    @classmethod
    def from_list(cls, data: Sequence[float]) -> "Moments":
        """The inverse of :meth:`to_list`."""
        return cls(int(data[0]), float(data[1]), float(data[2]))


def paired_interval(diff: Moments) -> tuple[float, float]:
    """The 95% interval of a mean paired difference: mean ± 1.96·sd/√n."""
    return (diff.mean - diff.half_width, diff.mean + diff.half_width)


# ----------------------------------------------------------------- one match

def match_measures(state: Any) -> dict[str, float]:
    """Every measure of :data:`MEASURES` that applies to a finished match."""
    pack = state.pack
    t = state.tables
    n = state.n
    rounds = state.finished
    scores = totals(state)
    won = winners(state)
    ranked = sorted(scores, reverse=True)
    margin = ranked[0] - ranked[1]
    first = rounds[0].starter
    scoring = pack.scoring
    has_bonus = "bonus" in getattr(scoring, "columns", ())
    opened = wagers = bonuses = pile_draws = 0
    for r in rounds:
        rows: list[list[list[int]]] = [[[] for _ in t.colours] for _ in range(n)]
        for i, move in enumerate(r.moves):
            seat = (r.starter + i) % n
            if move.action == PLAY:
                rows[seat][t.colour_of[move.card]].append(move.card)
                wagers += t.is_wager[move.card]
            if move.draw is not None and move.draw != DECK:
                pile_draws += 1
        for seat_rows in rows:
            for colour, row in enumerate(seat_rows):
                if not row:
                    continue
                opened += 1
                if has_bonus:
                    values = [t.value_of[k] for k in row if not t.is_wager[k]]
                    bonuses += scoring.breakdown(colour, values, len(row) - len(values))["bonus"] > 0
    per = n * len(rounds)
    out = {
        "first_player_wins": (1.0 / len(won)) if first in won else 0.0,
        "score": sum(scores) / n,
        "margin": float(margin),
        "close": 1.0 if margin < CLOSE_MARGIN else 0.0,
        "turns": sum(len(r.moves) for r in rounds) / len(rounds),
        "rows_opened": opened / per,
        "wagers": wagers / per,
        "discard_draws": pile_draws / per,
        "turn_cap": sum(r.end == "turn-cap" for r in rounds) / len(rounds),
    }
    if has_bonus:
        out["bonuses"] = bonuses / per
    facts = t.round_facts  # the board's facts the pack's rounds keep (a duel: none)
    if "crossings" in facts:
        out["crossings"] = sum(r.crossings for r in rounds) / len(rounds)
    if "artefacts" in facts:
        out["artefacts"] = sum(sum(r.artefacts) for r in rounds) / n
    return out


# ----------------------------------------------------------------- batches

@dataclass(frozen=True)
class BalanceJob:
    """What a batch needs, picklable: how to load both packs, the bots, the seed."""

    house: str
    base: str
    bots: tuple[str, ...]
    seed: int
    #: ``module:Class`` bots may be imported (they were named on the command line)
    allow_import: bool = False
    #: the packs' ``extends`` may name files outside their folders (``--allow-outside``)
    allow_outside: bool = False

    def key(self) -> tuple:
        """What the loaded packs and bots depend on (the seed does not)."""
        return (self.house, self.base, self.bots, self.allow_import, self.allow_outside)


_LOADED: dict[tuple, Any] = {}


def _setup(job: BalanceJob) -> tuple[RulePack, RulePack, list]:
    key = job.key()
    if key not in _LOADED:
        _LOADED.clear()
        _LOADED[key] = (load_pack(job.house, allow_outside=job.allow_outside),
                        load_pack(job.base, allow_outside=job.allow_outside),
                        [make_bot(spec, allow_import=job.allow_import) for spec in job.bots])
    return _LOADED[key]


def run_batch(job: BalanceJob, start: int, stop: int) -> dict[str, Any]:
    """Play games ``start .. stop-1`` on both packs; their measures' moments and scores."""
    house, base, bots = _setup(job)
    sides = {"house": house, "base": base}
    stats: dict[str, dict[str, Moments]] = {}
    scores: dict[str, dict[str, int]] = {"house": {}, "base": {}}
    for index in range(start, stop):
        seed = game_seed(job.seed, index)
        values = {}
        for side, pack in sides.items():
            state = play_match(pack, bots, seed, list(job.bots))
            values[side] = match_measures(state)

            for total in totals(state):
                scores[side][str(total)] = scores[side].get(str(total), 0) + 1
        for key in BY_KEY:
            h, b = values["house"].get(key), values["base"].get(key)
            entry = stats.setdefault(key, {"house": Moments(), "base": Moments(),
                                           "diff": Moments()})
            if h is not None:
                entry["house"].add(h)
            if b is not None:
                entry["base"].add(b)
            if h is not None and b is not None:
                entry["diff"].add(h - b)
        game_played()
    return {"games": stop - start,
            "measures": {k: {s: m.to_list() for s, m in v.items()} for k, v in stats.items()},
            "scores": scores}


_SCORE = re.compile(r"-?[0-9]{1,15}")
_SIDES = {"house", "base", "diff"}


def valid_result(result: Any, games: int) -> bool:
    """Whether ``result`` has the shape :func:`run_batch` gives for a batch of ``games``
    games (a run folder's file may have been edited, cut short, or be foreign)."""
    def number(x: Any) -> bool:
        return type(x) in (int, float) and math.isfinite(x)

    if type(result) is not dict or result.get("games") != games or type(games) is not int:
        return False
    measures, scores = result.get("measures"), result.get("scores")
    if type(measures) is not dict or type(scores) is not dict or set(scores) != {"house", "base"}:
        return False
    for key, sides in measures.items():
        if key not in BY_KEY or type(sides) is not dict or not set(sides) <= _SIDES:
            return False
        for data in sides.values():
            if not (type(data) is list and len(data) == 3 and type(data[0]) is int
                    and 0 <= data[0] <= games and number(data[1]) and number(data[2])
                    and data[2] >= 0):
                return False
    for counts in scores.values():
        if type(counts) is not dict or not all(
                type(k) is str and _SCORE.fullmatch(k) and type(v) is int and 0 < v <= games * 64
                for k, v in counts.items()):
            return False
    return True


# ----------------------------------------------------------------- the report

#: the width :meth:`BalanceReport.text` keeps to (at least): a terminal's least
TEXT_WIDTH = 80


@dataclass
class BalanceReport:
    """Both packs' measures with 95% intervals, their paired differences, score counts."""

    house: str
    base: str
    bots: tuple[str, ...]
    seed: int
    planned: int
    games: int = 0
    stats: dict[str, dict[str, Moments]] = field(default_factory=dict)
    scores: dict[str, dict[int, int]] = field(default_factory=lambda: {"house": {}, "base": {}})
    stopped_early: bool = False

    def add(self, result: dict[str, Any]) -> None:
        """Merge one batch's result (in batch order)."""
        self.games += result["games"]
        for key, sides in result["measures"].items():
            entry = self.stats.setdefault(key, {"house": Moments(), "base": Moments(),
                                                "diff": Moments()})
            for side, data in sides.items():
                entry[side].merge(Moments.from_list(data))
        for side, counts in result["scores"].items():
            mine = self.scores[side]
            for score, count in counts.items():
                mine[int(score)] = mine.get(int(score), 0) + count

    def precise(self, precision: float) -> bool:
        """Whether every difference's 95% half-width is within ``precision``: absolute for
        proportions, relative to the base's mean (or its sd, if larger) otherwise."""
        if self.games < MIN_GAMES:
            return False
        for key, entry in self.stats.items():
            diff = entry["diff"]
            if not diff.count:
                continue
            if BY_KEY[key].proportion:
                scale = 1.0
            else:
                scale = max(abs(entry["base"].mean), entry["base"].sd, 1e-9)
            if diff.half_width > precision * scale:
                return False
        return True

    def rows(self) -> list[dict[str, Any]]:
        """One entry per measure: each pack's mean and interval, the difference, significance."""
        out = []
        for m in MEASURES:
            entry = self.stats.get(m.key)
            if entry is None or not (entry["house"].count or entry["base"].count):
                continue
            row: dict[str, Any] = {"measure": m.key, "label": m.label}
            for side in ("base", "house"):
                s = entry[side]
                if not s.count:
                    row[side] = None
                    continue
                if m.proportion:
                    hits = s.mean * s.count
                    lo, hi = wilson(round(hits), s.count)
                else:
                    lo, hi = s.mean - s.half_width, s.mean + s.half_width
                row[side] = {"mean": s.mean, "sd": s.sd, "low": lo, "high": hi, "n": s.count}
            d = entry["diff"]
            if d.count:
                lo, hi = paired_interval(d)
                row["difference"] = {"mean": d.mean, "low": lo, "high": hi, "n": d.count,
                                     "significant": bool(d.count > 1 and (lo > 0 or hi < 0))}
            else:
                row["difference"] = None
            out.append(row)
        spread = self._spread()
        if spread is not None:
            out.insert(2, spread)
        return out

    def _spread(self) -> Optional[dict[str, Any]]:
        """The standard deviation of player scores per pack; its interval by the normal
        approximation sd·(1 ± 1.96/√(2(n-1))) and the difference by unpaired errors."""
        row: dict[str, Any] = {"measure": "spread", "label": "spread of scores (sd)"}
        errors = []
        for side in ("base", "house"):
            counts = self.scores[side]
            n = sum(counts.values())
            if n < 2:
                return None
            mean = sum(s * c for s, c in counts.items()) / n
            sd = math.sqrt(sum(c * (s - mean) ** 2 for s, c in counts.items()) / (n - 1))
            se = sd / math.sqrt(2 * (n - 1))
            errors.append(se)
            row[side] = {"mean": sd, "sd": None, "low": sd - Z95 * se, "high": sd + Z95 * se,
                         "n": n}
        d = row["house"]["mean"] - row["base"]["mean"]
        half = Z95 * math.hypot(*errors)
        row["difference"] = {"mean": d, "low": d - half, "high": d + half,
                             "n": row["house"]["n"], "significant": abs(d) > half}
        return row

    def to_dict(self) -> dict[str, Any]:
        """The report as one JSON-ready document."""
        def rounded(x: Any) -> Any:
            if isinstance(x, float):
                return round(x, 4)
            if isinstance(x, dict):
                return {k: rounded(v) for k, v in x.items()}
            return x

        return {"house": self.house, "base": self.base, "bots": list(self.bots),
                "seed": self.seed, "games": self.games, "planned": self.planned,
                "stopped_early": self.stopped_early,
                "measures": [rounded(r) for r in self.rows()],
                "scores": {side: {str(k): v for k, v in sorted(c.items())}
                           for side, c in self.scores.items()}}

    def text(self, width: int = TEXT_WIDTH) -> str:
        """A readable table (what ``lc balance`` prints), at most ``width`` columns wide
        (at least :data:`TEXT_WIDTH`): each measure takes two lines or more, the values
        on the first and their 95% intervals under them, the label wrapped beside them.
        """
        width = max(width, TEXT_WIDTH)
        head = (f"{self.house} against {self.base}: {self.games} paired games "
                f"(seed {self.seed}, bots {','.join(self.bots)})"
                + (f", stopped early of {self.planned}" if self.stopped_early else ""))
        lines = textwrap.wrap(head, width, break_long_words=False, break_on_hyphens=False,
                              subsequent_indent="  ")
        titles = ("base", "house", "difference")
        table = []  # (label, [(value, interval) per column], significant)
        for r in self.rows():
            fmt = _percent if BY_KEY.get(r["measure"], Measure("", "")).proportion else _number
            cells = []
            for side in ("base", "house", "difference"):
                s = r[side]
                show = fmt if side != "difference" else (lambda x, f=fmt: _signed(f, x))
                cells.append(("-", "") if s is None else
                             (show(s["mean"]), f"[{show(s['low'])}, {show(s['high'])}]"))
            d = r["difference"]
            table.append((r["label"], cells,
                          "" if d is None else ("yes" if d["significant"] else "no")))
        widths = [max([len(t)] + [len(part) for _, cells, _ in table for part in cells[i]])
                  for i, t in enumerate(titles)]
        # label, then each column two spaces apart, then sig.
        room = width - sum(widths) - 2 * len(widths) - 2 - len("sig.")
        label_width = max(12, min(room, max([len("measure")] + [len(t[0]) for t in table])))

        def line(label: str, parts: Sequence[str], sig: str) -> str:
            row = f"{label:<{label_width}}"
            row += "".join(f"  {part:>{w}}" for part, w in zip(parts, widths))
            return (row + f"  {sig}").rstrip()

        lines += ["", line("measure", titles, "sig."),
                  line("", ("[95%]",) * len(titles), "")]
        for label, cells, sig in table:
            wrapped = textwrap.wrap(label, label_width, break_long_words=False,
                                    subsequent_indent="  ") or [""]
            wrapped += [""] * (2 - len(wrapped))
            for i, part in enumerate(wrapped):
                if i == 0:
                    lines.append(line(part, [value for value, _ in cells], sig))
                elif i == 1:
                    lines.append(line(part, [interval for _, interval in cells], ""))
                else:
                    lines.append(part)
        lines.append("")
        lines += textwrap.wrap("[95%]: the 95% interval, under each value. sig.: whether the "
                               "difference (house - base) is significant: its interval leaves "
                               "out 0.", width, break_long_words=False)
        return "\n".join(lines)

    def plot(self, path: str) -> None:
        """Draw the score distributions and the measures' differences side by side (PNG).

        Raises :class:`ImportError` when matplotlib is not installed.
        """
        plot_report(self, path)


def _number(x: float) -> str:
    return f"{round(x, 2) + 0.0:.2f}" if abs(x) < 100 else f"{x:.1f}"


def _percent(x: float) -> str:
    return f"{round(100 * x, 1) + 0.0:.1f}%"


def _signed(fmt: Callable[[float], str], x: float) -> str:
    text = fmt(x)
    return text if text.startswith("-") else "+" + text


def plot_report(report: BalanceReport, path: str) -> None:
    """Score histograms of both packs (left) and each measure's difference (right), as a PNG.

    Differences are drawn in units of the base pack's standard deviation of that
    measure, so that turns, points and proportions share one axis; each is labelled
    with its value in its own unit. Raises :class:`ImportError` without matplotlib.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 6.5),
                                      gridspec_kw={"width_ratios": [1, 1.25]})
    colours = {"base": "#4C72B0", "house": "#DD8452"}
    names = {"base": f"base: {report.base}", "house": f"house: {report.house}"}
    every = [s for side in ("base", "house") for s in report.scores[side]]
    if every:
        low, high = min(every), max(every)
        width = max(1, math.ceil((high - low + 1) / 40))
        edges = list(range(low, high + width + 1, width))
        for side in ("base", "house"):
            counts = report.scores[side]
            values = list(counts)
            weights = [counts[v] for v in values]
            total = sum(weights) or 1
            left.hist(values, bins=edges, weights=[w / total for w in weights],
                      histtype="stepfilled", alpha=0.35, color=colours[side], label=names[side])
            left.hist(values, bins=edges, weights=[w / total for w in weights],
                      histtype="step", linewidth=1.5, color=colours[side])
            mean = sum(v * c for v, c in counts.items()) / total
            left.axvline(mean, color=colours[side], linestyle="--", linewidth=1.2)
    left.set_xlabel("match score of a player (points)")
    left.set_ylabel("share of player-matches")
    left.set_title(f"Score distributions ({report.games} paired games, dashed: means)")
    left.legend(loc="upper left", fontsize=9)
    rows = [r for r in report.rows() if r["difference"] is not None and r["base"]]
    labels, centres, lows, highs, colours_ = [], [], [], [], []
    for r in rows:
        proportion = BY_KEY.get(r["measure"], Measure("", "")).proportion
        base = r["base"]
        sd = base["sd"] if base["sd"] is not None else base["mean"]  # the spread: its own unit
        if proportion:
            sd = math.sqrt(max(base["mean"] * (1 - base["mean"]), 0.0))
        sd = sd or 1.0
        d = r["difference"]
        fmt = _percent if proportion else _number
        labels.append(f"{r['label']}\n{_signed(fmt, d['mean'])} "
                      f"[{_signed(fmt, d['low'])}, {_signed(fmt, d['high'])}]")
        centres.append(d["mean"] / sd)
        lows.append((d["mean"] - d["low"]) / sd)
        highs.append((d["high"] - d["mean"]) / sd)
        colours_.append("#C44E52" if d["significant"] else "#8C8C8C")
    ys = list(range(len(rows)))[::-1]
    for y, c, lo, hi, col in zip(ys, centres, lows, highs, colours_):
        right.errorbar(c, y, xerr=[[lo], [hi]], fmt="o", color=col, capsize=4, markersize=6)
    right.axvline(0, color="black", linewidth=0.8)
    right.set_yticks(ys)
    right.set_yticklabels(labels, fontsize=8)
    right.set_xlabel("house − base, in standard deviations of the base (95% intervals)")
    right.set_title("Differences (red: significant)")
    right.grid(axis="x", alpha=0.3)
    fig.suptitle(f"lc balance: {report.house} vs {report.base}, bots {','.join(report.bots)}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def balance(house: RulePack, base: RulePack, bots: Sequence[str], games: int, seed: int = 0, *,
            workers: Optional[int] = None, precision: Optional[float] = None,
            backend: str = "local", address: Optional[str] = None,
            run_dir: Optional[str] = None, size: Optional[int] = None,
            progress: Optional[Callable[[int], None]] = None,
            oversubscribe: bool = False, allow_import: bool = False,
            allow_outside: bool = False) -> BalanceReport:
    """Play ``games`` paired games of ``house`` and ``base`` and compare them.

    ``bots``: one spec per seat, for both packs. ``precision``: stop early (see
    :meth:`BalanceReport.precise`). ``run_dir``: write each batch there and skip the
    batches already written (resume); a batch file there that does not have a batch's
    shape (:func:`valid_result`) is played again. ``progress(games_done)`` after each
    batch and, on a local pool, as its workers finish games (at most every
    :data:`~.backends.POLL_SECONDS` while a batch runs); ``games_done`` never goes down
    and counts the batches found in ``run_dir``. ``workers``: at most one per core
    unless ``oversubscribe`` (:func:`~.backends.check_workers`). ``allow_import``:
    ``module:Class`` bots may be imported (give it only for names the person at the
    keyboard typed).
    ``allow_outside``: the packs' ``extends`` may name files outside their folders
    (:func:`~.packs.load_pack`); workers that load the packs again (Ray) do it with it,
    so give it whenever a pack needed it. It is not part of the run folder's
    description: it changes no game, only what may be loaded, and it is the caller's
    to give again on a resumed run. Raises :class:`~.bots.BotError`,
    :class:`~.state.SetupError` or :class:`~.backends.BackendError` on bad input.
    """
    specs = tuple(s.strip() for s in bots)
    for pack in (house, base):
        check_players(pack, len(specs))
    if workers is not None and backend == "local":
        check_workers(workers, oversubscribe)
    job = BalanceJob(pack_reference(house), pack_reference(base), specs, seed, allow_import,
                     allow_outside)
    # this process (and the local workers it forks) plays the very pack objects given;
    # Ray workers load them again from the references
    _LOADED.clear()
    _LOADED[job.key()] = (
        house, base, [make_bot(s, allow_import=allow_import) for s in specs])
    size = size or batch_size(games)
    todo = batches(games, size)
    report = BalanceReport(house.id, base.id, specs, seed, games)
    done: dict[int, Any] = {}
    save = None
    if run_dir is not None:
        folder = RunDir(run_dir)
        done = folder.open({"house": job.house, "base": job.base, "bots": list(specs),
                            "seed": seed, "games": games, "batch": size,
                            "kind": "lostcities-balance/1"},
                           check=lambda index, result: 0 <= index < len(todo) and valid_result(
                               result, todo[index].stop - todo[index].start))
        save = folder.save
    shown = 0
    found = sum(todo[index].stop - todo[index].start for index in done)

    def show(games: int) -> None:
        nonlocal shown
        if games > shown and progress is not None:
            shown = games
            progress(games)

    results = run_batches(run_batch, job, todo, backend=backend, workers=workers,
                          address=address, done=done, save=save, oversubscribe=oversubscribe,
                          played=None if progress is None else
                          (lambda games: show(found + games)))
    try:
        for batch, result in results:
            report.add(result)
            show(report.games)
            if precision is not None and batch.index < len(todo) - 1 \
                    and report.precise(precision):
                report.stopped_early = True
                break
    finally:
        results.close()
    return report


__all__ = ["MEASURES", "Measure", "Moments", "BalanceJob", "BalanceReport", "balance",
           "match_measures", "paired_interval", "run_batch", "valid_result", "Batch"]
