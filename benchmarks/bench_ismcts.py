"""ismcts: time per move at each level and pack, and strength on paired seat-swapped seeds.

Run: ``python benchmarks/bench_ismcts.py [--only time|strength] [--timed BOT,...]
[--packs duel-classic,board-classic] [--yardstick PATH] [--moves N] [--rounds N]
[--seeds N] [--board-seeds N] [--board-base N] [--pairings expert,baseline,board2]
[--baseline module:Class] [--expert module:Class] [--bot NAME] [--path DIR] [--workers K]
[--run-dir DIR] [--batch N]``. Prints:

1. **time per move** of each of ``--timed`` (default ismcts at levels 1-3; a frozen
   earlier search by its module:Class) on each of ``--packs``, against the expert: mean
   CPU (this process's ``time.process_time``) and wall time a decision, the worst CPU,
   over the first ``--moves`` decisions of seeded matches; each line beside the
   yardstick (``../shared/bench/plain_duel.py``, the plain random duel) run in the same
   process just before, as its random matches per CPU second, so that figures from a
   loaded machine compare. The load average is in the header. ``--rounds N`` times every
   bot N times in turns (e.g. a frozen copy of the search before a change, and the
   search now) and prints each one's best and median;
2. **strength**: every seed played once with ismcts at each seat (``2 * seeds`` matches
   at 2 players), ismcts's share of wins (ties count half) with a Wilson 95% interval,
   its wins/ties/losses, its mean score difference a match (95% interval over the
   seeds), and its mean CPU time a decision in those very matches, so that strength
   comes with the thinking it took: the score difference per CPU second a move, and the
   win share above an even 50% per CPU second. Pairings: ``expert`` (ismcts@L vs expert on
   duel-classic), ``baseline`` (ismcts@L vs ``--baseline``, a frozen copy of an earlier
   search, e.g. the search before issue #15 under ``--path``), ``board2`` (ismcts@L vs
   expert on board-classic at 2 players; target 60%). ``--expert`` replaces the expert
   opponent (e.g. a frozen copy, so that a long run does not mix two experts).

With ``--run-dir``, each pairing's finished batches are kept in a sub-folder, and a
run started again resumes from them (refused if a bot's source changed since: the
results would mix two bots); a shorter run reports the first seeds of a longer one.
Batches run through :mod:`lostcities.engine.lab.backends` (the same seeded batches
whatever ``--workers``). Figures, not assertions.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import math
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional

from lostcities.engine.lab.backends import RunDir, batches, run_batches
from lostcities.engine.lab.simulation import Z95, game_seed, wilson

#: the yardstick: one plain function playing random duel-classic matches
YARDSTICK = Path(__file__).resolve().parents[2] / "shared" / "bench" / "plain_duel.py"


@dataclass(frozen=True)
class Pairing:
    """``bot`` against ``others`` on ``pack``: every seed once with ``bot`` at each seat."""

    pack: str
    bot: str
    others: str
    players: int
    seed: int
    path: str = ""       #: a folder put first on sys.path (a frozen baseline's package)


class Timed:
    """A bot whose decisions are timed (CPU of this process, and wall)."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.name = inner.name
        self.cpu = 0.0
        self.wall = 0.0
        self.worst = 0.0
        self.decisions = 0

    def choose(self, view: Any) -> Any:
        """The inner bot's move, timed."""
        wall, cpu = time.perf_counter(), time.process_time()
        move = self.inner.choose(view)
        spent = time.process_time() - cpu
        self.wall += time.perf_counter() - wall
        self.cpu += spent
        self.worst = max(self.worst, spent)
        self.decisions += 1
        return move


def play_seeds(job: Pairing, start: int, stop: int) -> dict[str, Any]:
    """Batch function: for each seed, ``job.bot`` at each seat in turn; per seed its wins,
    ties, mean score difference, CPU and wall seconds thinking, and decisions."""
    from lostcities.engine.bots.registry import make_bot
    from lostcities.engine.game.turn import totals
    from lostcities.engine.lab.simulation import play_match
    from lostcities.engine.packs.loader import load_pack

    if job.path and job.path not in sys.path:
        sys.path.insert(0, job.path)
    pack = load_pack(job.pack)
    out = []
    for index in range(start, stop):
        seed = game_seed(job.seed, index)
        wins = ties = diff = cpu = wall = 0.0
        decisions = 0
        for seat in range(job.players):
            # names typed by the person running the benchmark: a module:Class is imported
            bots: list[Any] = [make_bot(job.others, allow_import=True)
                               for _ in range(job.players)]
            timed = bots[seat] = Timed(make_bot(job.bot, allow_import=True))
            scores = totals(play_match(pack, bots, seed))
            best_other = max(s for i, s in enumerate(scores) if i != seat)
            wins += scores[seat] > best_other
            ties += scores[seat] == best_other
            diff += scores[seat] - best_other
            cpu += timed.cpu
            wall += timed.wall
            decisions += timed.decisions
        out.append([wins, ties, diff / job.players, cpu, wall, decisions])
    return {"seeds": out}


def source_digest(job: Pairing) -> str:
    """A digest of the engine's source and of the modules the bots name: a run folder
    resumes only with the same bots."""
    import lostcities.engine as engine

    digest = hashlib.sha256()
    files = sorted(Path(engine.__file__).parent.rglob("*.py"))
    if job.path:
        files += sorted(Path(job.path).rglob("*.py"))
    for path in files:
        digest.update(str(path).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def strength(job: Pairing, seeds: int, workers: int, label: str,
             run_dir: Optional[str] = None, size: Optional[int] = None) -> None:
    """Play and print one pairing (resumable with ``run_dir``)."""
    start = time.perf_counter()
    size = size or max(1, min(10, seeds // (workers * 4) or 1))
    todo = batches(seeds, size)
    done: dict[int, Any] = {}
    save = None
    if run_dir is not None:
        name = f"{job.pack}-{job.bot}-{job.others}-{job.players}".replace(":", "-")
        folder = RunDir(os.path.join(run_dir, name))
        done = folder.open({"job": asdict(job), "batch": size, "source": source_digest(job)})
        done = {i: result for i, result in done.items() if i < len(todo)
                and len(result["seeds"]) == todo[i].stop - todo[i].start}
        save = folder.save
        if done:
            print(f"  ({label}: {len(done)} of {len(todo)} batches already in {folder.path})",
                  flush=True)
    rows: list[list[float]] = []
    for batch, result in run_batches(play_seeds, job, todo, workers=workers, done=done,
                                     save=save):
        rows.extend(result["seeds"])
        if len(todo) > 1:
            print(f"    {batch.stop} of {seeds} seeds, {time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)
    matches = seeds * job.players
    wins = sum(r[0] for r in rows)
    ties = sum(r[1] for r in rows)
    losses = matches - wins - ties
    share = (wins + ties / 2) / matches
    lo, hi = wilson(round(wins + ties / 2), matches)
    diffs = [r[2] for r in rows]
    mean = sum(diffs) / len(diffs)
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / max(1, len(diffs) - 1))
    half = Z95 * sd / math.sqrt(len(diffs))
    decisions = sum(r[5] for r in rows)
    cpu = sum(r[3] for r in rows) / max(1, decisions)
    wall = sum(r[4] for r in rows) / max(1, decisions)
    print(f"  {label:<40} {share:6.1%}  [{lo:.1%}, {hi:.1%}]  W/T/L {wins:.0f}/{ties:.0f}/"
          f"{losses:.0f} of {matches}  score diff {mean:+.1f} [{mean - half:+.1f}, "
          f"{mean + half:+.1f}]", flush=True)
    print(f"  {'':<40} thinking: CPU {cpu * 1000:.0f} ms, wall {wall * 1000:.0f} ms a decision "
          f"({decisions} decisions); per CPU second a move: score diff {mean / cpu:+.0f}, "
          f"win share above 50% {(share - 0.5) * 100 / cpu:+.0f} points", flush=True)


def yardstick(path: Path, matches: int = 40) -> float:
    """The yardstick's random duel-classic matches per CPU second, in this process."""
    import random

    spec = importlib.util.spec_from_file_location("plain_duel", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise SystemExit(f"{Path(sys.argv[0]).stem}: no yardstick at {path} (--yardstick PATH)")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = random.Random(0)
    cpu = time.process_time()
    for _ in range(matches):
        module.random_match(rng)
    return matches / (time.process_time() - cpu)


def time_per_move(pack_id: str, bot: str, moves: int, expert: str, path: str = ""
                  ) -> Timed:
    """``bot`` against ``expert`` on ``pack_id``: its first ``moves`` decisions timed over
    seeded 2-player matches (the expert plays its seat on after that)."""
    from lostcities.engine.bots.registry import make_bot
    from lostcities.engine.lab.simulation import play_match
    from lostcities.engine.packs.loader import load_pack

    if path and path not in sys.path:
        sys.path.insert(0, path)
    pack = load_pack(pack_id)
    timed = Timed(make_bot(bot, allow_import=True))

    class Capped:
        name = "ismcts"

        def __init__(self) -> None:
            self.stand_in = make_bot(expert, allow_import=True)

        def choose(self, view: Any) -> Any:
            if timed.decisions >= moves:
                return self.stand_in.choose(view)
            return timed.choose(view)

    match = 0
    while timed.decisions < moves:
        bots: list[Any] = [Capped(), make_bot(expert, allow_import=True)]
        if match % 2:
            bots.reverse()
        play_match(pack, bots, game_seed(99, match))
        match += 1
    return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["time", "strength"])
    parser.add_argument("--timed", default="ismcts@1,ismcts@2,ismcts@3",
                        help="bots timed, comma-separated (names or module:Class)")
    parser.add_argument("--packs", default="duel-classic,board-classic",
                        help="packs timed, comma-separated")
    parser.add_argument("--yardstick", default=str(YARDSTICK),
                        help="the yardstick's plain_duel.py (default: ../shared/bench/)")
    parser.add_argument("--moves", type=int, default=60, help="decisions timed per level")
    parser.add_argument("--rounds", type=int, default=1, help="time every bot this many times, "
                        "in turns, then print each one's best and median")
    parser.add_argument("--level", type=int, default=2, help="ismcts level in strength runs")
    parser.add_argument("--bot", help="the searcher of the strength runs (a name or "
                        "module:Class, e.g. a variant under --path; default ismcts@LEVEL)")
    parser.add_argument("--seeds", type=int, default=50, help="seeds per duel pairing")
    parser.add_argument("--board-seeds", type=int, default=40)
    parser.add_argument("--board-base", type=int, default=4, help="board2's seed base: "
                        "seeds game_seed(BASE, i); another base tunes a variant on seeds "
                        "apart from those it is then measured on")
    parser.add_argument("--pairings", default="expert,baseline,board2",
                        help="strength pairings, comma-separated")
    parser.add_argument("--baseline", default="ismcts_before.ismcts:ISMCTSBot",
                        help="module:Class of the earlier search (importable from --path)")
    parser.add_argument("--expert", default="expert", help="the expert opponent (a name or "
                        "module:Class)")
    parser.add_argument("--path", default="", help="a folder put first on sys.path, "
                        "holding the --baseline (or --expert) package")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--run-dir", help="keep finished batches here and resume from them")
    parser.add_argument("--batch", type=int, help="seeds per batch")
    args = parser.parse_args()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    print(f"bench_ismcts: {os.cpu_count()} cores, {args.workers} workers, "
          f"Python {sys.version.split()[0]}, load average {load}", flush=True)
    if args.only in (None, "time"):
        print("time per move (against the expert; CPU of this process):")
        rounds: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for turn in range(max(1, args.rounds)):
            if args.rounds > 1:
                print(f" round {turn + 1} of {args.rounds}:", flush=True)
            for pack_id in args.packs.split(","):
                for bot in args.timed.split(","):  # in turns: the same load for each bot
                    pace = yardstick(Path(args.yardstick))
                    timed = time_per_move(pack_id.strip(), bot.strip(), args.moves,
                                          args.expert, args.path)
                    n = timed.decisions
                    rounds.setdefault((pack_id, bot), []).append((timed.cpu / n, pace))
                    print(f"  {pack_id:<14} {bot:<10}  CPU {timed.cpu / n * 1000:7.1f} ms  "
                          f"wall {timed.wall / n * 1000:7.1f} ms  worst CPU "
                          f"{timed.worst * 1000:6.0f} ms  ({n} moves; yardstick "
                          f"{pace:.0f} random matches per CPU s)", flush=True)
        if args.rounds > 1:
            print(" best and median of the rounds: CPU ms a move, and the yardstick's random "
                  "matches in that CPU time:")
            for (pack_id, bot), runs in rounds.items():
                ms = sorted(cpu * 1000 for cpu, _ in runs)
                worth = sorted(cpu * pace for cpu, pace in runs)
                print(f"  {pack_id:<14} {bot:<10}  best {ms[0]:7.1f}  median "
                      f"{ms[len(ms) // 2]:7.1f} ms;  {worth[0]:.0f} / {worth[len(worth) // 2]:.0f}"
                      f" yardstick matches", flush=True)
    if args.only in (None, "strength"):
        print("strength (paired seeds, seats swapped; ties count half):")
        bot = args.bot or f"ismcts@{args.level}"
        pairings = {
            "expert": (Pairing("duel-classic", bot, args.expert, 2, 3, args.path),
                       args.seeds, f"duel-classic {bot} vs {args.expert}"),
            "baseline": (Pairing("duel-classic", bot, args.baseline, 2, 11, args.path),
                         args.seeds, f"duel-classic {bot} vs {args.baseline}"),
            "board2": (Pairing("board-classic", bot, args.expert, 2, args.board_base, args.path),
                       args.board_seeds, f"board-classic 2p {bot} vs {args.expert} "
                       f"(target >= 60%)"),
        }
        for name in args.pairings.split(","):
            job, seeds, label = pairings[name.strip()]
            strength(job, seeds, args.workers, label, args.run_dir, args.batch)


if __name__ == "__main__":
    main()
