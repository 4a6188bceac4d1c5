"""Bot strength and speed: paired seeds, swapped seats, 95% intervals; time per move; matches/s.

Run: ``python benchmarks/bench_bots.py [--only strength|time|speed] [--seeds N]
[--ismcts-seeds N] [--ismcts-level L] [--board-seeds N] [--workers K] [--pairings P,...]
[--run-dir DIR] [--batch N] [--time-bots B,...] [--time-matches M]``. With ``--run-dir``, each pairing's finished batches are
kept in a sub-folder and a run started again resumes from them (refused if the engine's
source changed since: the results would mix two bots); a run with fewer seeds reports
the first ones of a longer run in the same folder. Prints:

1. **strength** on duel-classic: for each pairing, every seed is played twice with
   the seats swapped (``2 * seeds`` matches). The first bot's share of wins (ties
   count half) with a Wilson 95% interval, its wins/ties/losses, and its mean score
   difference per match with a 95% interval (per-seed pairs averaged). Pairings:
   expert vs random, expert vs greedy (targets 99% and 90%), expert vs ``opener`` on
   duel-six and duel-classic (target 75%; ``opener``, the test bot of
   ``tests/bots_opener.py``, opens every colour and takes every discard that fits its
   rows), ismcts vs expert (target 60%; ismcts at ``--ismcts-level``, default its default
   level, over ``--ismcts-seeds`` seeds, fewer: each match costs some 70 searches), and on
   board-classic expert vs greedy at 2 players and at 4 (expert at each seat in turn; an
   equal player wins 25%). ``--against module:Class`` adds expert vs that bot (e.g. a copy
   of an earlier expert, to check a change keeps its strength: ``--pairings expert-against``);
2. **time per move** of each bot on duel-classic (mean and worst, and the mean CPU time
   of this process, also as a number of the yardstick's random matches,
   ``../shared/bench/plain_duel.py`` timed in the same process, when it is there), ismcts
   at each level;
3. **matches per second** of random, greedy, expert and ismcts (default level) pairs through
   :func:`~lostcities.engine.lab.simulation.simulate` at 1 and 2 workers.

Games run in the same seeded batches as ``lc balance`` (:mod:`lostcities.engine.lab.backends`):
the figures do not depend on ``--workers``. Figures, not assertions.
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any, Optional

from lostcities.engine import compiled_modules
from lostcities.engine.lab.backends import RunDir, batches, run_batches
from lostcities.engine.bots.ismcts import DEFAULT_LEVEL
from lostcities.engine.lab.simulation import Z95, game_seed, wilson

#: the test bots (tests/bots_opener.py) are importable by name
TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests")
OPENER = "bots_opener:OpenerBot"


@dataclass(frozen=True)
class Pairing:
    """``bot`` against ``others`` on ``pack``: every seed once with ``bot`` at each seat."""

    pack: str
    bot: str
    others: str
    players: int
    seed: int


def play_seeds(job: Pairing, start: int, stop: int) -> dict[str, Any]:
    """Batch function: for each seed, ``job.bot`` at each seat in turn; per-seed results."""
    from lostcities.engine.bots.registry import make_bot
    from lostcities.engine.packs.loader import load_pack
    from lostcities.engine.lab.simulation import play_match
    from lostcities.engine.game.turn import totals

    if TESTS not in sys.path:
        sys.path.insert(0, TESTS)
    pack = load_pack(job.pack)
    out = []
    for index in range(start, stop):
        seed = game_seed(job.seed, index)
        wins = ties = 0.0
        diff = 0.0
        for seat in range(job.players):
            # names typed by the person running the benchmark: a module:Class is imported
            bots = [make_bot(job.others, allow_import=True) for _ in range(job.players)]
            bots[seat] = make_bot(job.bot, allow_import=True)
            scores = totals(play_match(pack, bots, seed))
            best_other = max(s for i, s in enumerate(scores) if i != seat)
            wins += scores[seat] > best_other
            ties += scores[seat] == best_other
            diff += scores[seat] - best_other
        out.append([wins, ties, diff / job.players])
    return {"seeds": out}


def engine_digest() -> str:
    """A digest of the engine's source, its packages (bots, game, ...) included: a run
    folder resumes only with the same bots."""
    import hashlib
    from pathlib import Path

    import lostcities.engine as engine

    root = Path(engine.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def strength(job: Pairing, seeds: int, workers: int, label: str,
             run_dir: Optional[str] = None, size: Optional[int] = None) -> None:
    """Play and print one pairing. With ``run_dir``, finished batches are kept in a
    sub-folder per pairing, so that an interrupted run resumes where it stopped."""
    start = time.perf_counter()
    rows: list[list[float]] = []
    size = size or max(1, min(25, seeds // (workers * 4) or 1))
    todo = batches(seeds, size)
    done: dict[int, Any] = {}
    save = None
    if run_dir is not None:
        name = f"{job.pack}-{job.bot}-{job.others}-{job.players}".replace(":", "-")
        folder = RunDir(os.path.join(run_dir, name))
        # not the number of seeds: a shorter run reports the first batches of a longer one
        done = folder.open({"job": asdict(job), "batch": size, "engine": engine_digest()})
        done = {i: result for i, result in done.items() if i < len(todo)
                and len(result["seeds"]) == todo[i].stop - todo[i].start}
        save = folder.save
        if done:
            print(f"  ({label}: {len(done)} of {len(todo)} batches already in {folder.path})",
                  flush=True)
    for batch, result in run_batches(play_seeds, job, todo, workers=workers, done=done,
                                     save=save):
        rows.extend(result["seeds"])
        if run_dir is not None and len(todo) > 1:
            print(f"    {batch.stop} of {seeds} seeds, {time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - start
    matches = seeds * job.players
    wins = sum(r[0] for r in rows)
    ties = sum(r[1] for r in rows)
    losses = matches - wins - ties
    score = wins + ties / 2
    lo, hi = wilson(round(score), matches)
    diffs = [r[2] for r in rows]
    mean = sum(diffs) / len(diffs)
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / max(1, len(diffs) - 1))
    half = Z95 * sd / math.sqrt(len(diffs))
    print(f"  {label:<44} {score / matches:6.1%}  [{lo:.1%}, {hi:.1%}]  "
          f"W/T/L {wins:.0f}/{ties:.0f}/{losses:.0f} of {matches}  "
          f"score diff {mean:+.1f} [{mean - half:+.1f}, {mean + half:+.1f}]  ({elapsed:.0f} s)",
          flush=True)


def time_per_move(bot: str, matches: int, most: Optional[int] = None
                  ) -> tuple[list[float], list[float], list[float]]:
    """Seconds per decision of ``bot`` against expert on duel-classic: every decision,
    those with 10 cards or fewer in the draw pile, and every decision's CPU time (this
    process's, so that other work on a loaded machine counts less); at most ``most``
    decisions are timed (the expert plays the rest of the match for it, quickly)."""
    from lostcities.engine.bots.registry import make_bot
    from lostcities.engine.packs.loader import load_pack
    from lostcities.engine.lab.simulation import play_match

    pack = load_pack("duel-classic")
    inner = make_bot(bot)
    times: list[float] = []
    late: list[float] = []
    cpu: list[float] = []

    class Timed:
        name = bot

        def choose(self, view: Any) -> Any:
            if most is not None and len(times) >= most:
                return stand_in.choose(view)
            t, c = time.perf_counter(), time.process_time()
            move = inner.choose(view)
            spent = time.perf_counter() - t
            cpu.append(time.process_time() - c)
            times.append(spent)
            if view.observation.draw_pile <= 10:
                late.append(spent)
            return move

    for i in range(matches):
        stand_in = make_bot("expert")
        bots: list[Any] = [Timed(), make_bot("expert")]
        if i % 2:
            bots.reverse()
        play_match(pack, bots, game_seed(99, i))
    return times, late, cpu


def yardstick(matches: int = 20, batches: int = 5) -> Optional[float]:
    """Random matches a CPU second of the plain loop ``../shared/bench/plain_duel.py`` in
    this process (None where it is not there), to pair time figures with: the median of
    ``batches`` batches of ``matches``, after a warm-up (one cold batch of 30 matches was
    seen to read from 600 to 1,000 on a calm machine)."""
    import random

    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "..", "shared", "bench")
    if not os.path.isfile(os.path.join(folder, "plain_duel.py")):
        return None
    if folder not in sys.path:
        sys.path.insert(0, folder)
    import plain_duel  # the yardstick: a file of this machine, not of the project

    rng = random.Random(1)
    for _ in range(3):
        plain_duel.random_match(rng)
    rates = []
    for _ in range(batches):
        start = time.process_time()
        for _ in range(matches):
            plain_duel.random_match(rng)
        rates.append(matches / max(1e-9, time.process_time() - start))
    return statistics.median(rates)


def speed(bot: str, matches: int, workers: int) -> float:
    """Matches per second of ``bot`` against itself through simulate()."""
    from lostcities.engine.lab.simulation import simulate

    start = time.perf_counter()
    simulate("duel-classic", [bot, bot], matches, 5, workers=workers)
    return matches / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["strength", "time", "speed"])
    parser.add_argument("--seeds", type=int, default=1000,
                        help="seeds per duel pairing (matches: twice as many)")
    parser.add_argument("--ismcts-seeds", type=int, default=100)
    parser.add_argument("--ismcts-level", type=int, default=DEFAULT_LEVEL)
    parser.add_argument("--board-seeds", type=int, default=100)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--run-dir", help="keep finished batches here (a sub-folder per "
                        "pairing) and resume from them when run again")
    parser.add_argument("--batch", type=int, help="seeds per batch (default: from --seeds)")
    parser.add_argument("--against", default=OPENER, help="module:Class of the bot that "
                        "the expert-against pairing plays (default: the opener test bot)")
    parser.add_argument("--pairings", default="expert-random,expert-greedy,expert-opener-six,"
                        "expert-opener,ismcts-expert,board2,board4",
                        help="which strength pairings to play, comma-separated")
    parser.add_argument("--time-bots", default="random,greedy,expert,ismcts@1,ismcts@2,ismcts@3,"
                        "ismcts@4,ismcts@5", help="which bots the time per move covers, "
                        "comma-separated (ismcts's high levels take minutes)")
    parser.add_argument("--time-matches", type=int, help="matches timed for each bot "
                        "(default: 20 for random, 10 for greedy and expert, fewer for ismcts)")
    args = parser.parse_args()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    compiled = len(compiled_modules())
    print(f"bench_bots: {os.cpu_count()} cores, {args.workers} workers, "
          f"Python {sys.version.split()[0]}, "
          f"{f'compiled core ({compiled} modules)' if compiled else 'pure Python'}, "
          f"load average {load}")
    if args.only in (None, "strength"):
        print("strength (duel-classic unless said; paired seeds, seats swapped):")
        level = f"ismcts@{args.ismcts_level}"
        pairings = {
            "expert-random": (Pairing("duel-classic", "expert", "random", 2, 1), args.seeds,
                              "expert vs random (target >= 99%)"),
            "expert-greedy": (Pairing("duel-classic", "expert", "greedy", 2, 2), args.seeds,
                              "expert vs greedy (target >= 90%)"),
            "expert-opener-six": (Pairing("duel-six", "expert", OPENER, 2, 6), args.seeds,
                                  "duel-six: expert vs opener (target >= 75%)"),
            "expert-opener": (Pairing("duel-classic", "expert", OPENER, 2, 7), args.seeds,
                              "expert vs opener (target >= 75%)"),
            "expert-against": (Pairing("duel-classic", "expert", args.against, 2, 8), args.seeds,
                               f"expert vs {args.against} (an equal bot: 50%)"),
            "ismcts-expert": (Pairing("duel-classic", level, "expert", 2, 3), args.ismcts_seeds,
                              f"{level} vs expert (target >= 60%)"),
            "board2": (Pairing("board-classic", "expert", "greedy", 2, 4), args.board_seeds,
                       "board-classic 2 players: expert vs greedy"),
            "board4": (Pairing("board-classic", "expert", "greedy", 4, 5),
                       max(1, args.board_seeds // 4), "board-classic 4 players: expert vs 3 greedy"),
        }
        for name in args.pairings.split(","):
            job, seeds, label = pairings[name.strip()]
            strength(job, seeds, args.workers, label, args.run_dir, args.batch)
    if args.only in (None, "time"):
        print("time per move (duel-classic, against expert); the yardstick "
              "(../shared/bench/plain_duel.py, random matches a CPU second, this process) is "
              "timed before and after each bot, and a bot's CPU ms a decision times their mean "
              "is its figure in yardstick matches:")
        for bot, matches, most in (("random", 20, None), ("greedy", 10, None),
                                   ("expert", 10, None), ("ismcts@1", 2, None),
                                   ("ismcts@2", 1, None), ("ismcts@3", 1, None),
                                   ("ismcts@4", 1, 40), ("ismcts@5", 1, 20)):
            if bot not in args.time_bots.split(","):
                continue
            before = yardstick()
            times, late, cpu = time_per_move(bot, args.time_matches or matches, most)
            after = yardstick()
            rate = None if before is None or after is None else (before + after) / 2
            end = (f"; with 10 cards or fewer to draw: mean {sum(late) / len(late) * 1000:9.2f}"
                   f" ms, worst {max(late) * 1000:9.1f} ms ({len(late)} moves)" if late else
                   " (the round's first moves)")
            print(f"  {bot:<10} mean {sum(times) / len(times) * 1000:9.2f} ms   worst "
                  f"{max(times) * 1000:9.1f} ms   CPU mean {sum(cpu) / len(cpu) * 1000:9.2f} ms"
                  + (f" = {sum(cpu) / len(cpu) * rate:.3f} yardstick matches (yardstick "
                     f"{before:.0f} before, {after:.0f} after)" if rate else "")
                  + f"   ({len(times)} moves){end}", flush=True)
    if args.only in (None, "speed"):
        print("matches per second (duel-classic, the bot against itself):")
        for bot, matches in (("random", 4000), ("greedy", 400), ("expert", 60), ("ismcts", 4)):
            one = speed(bot, matches, 1)
            two = speed(bot, matches, 2)
            print(f"  {bot:<10} 1 worker {one:9.2f}   2 workers {two:9.2f}   ({matches} matches)",
                  flush=True)


if __name__ == "__main__":
    main()
