"""Compiled scoring vs hand-written Python, on the duel-classic expedition formula.

Run: /work/venv/bin/python benchmarks/bench_scoring.py [--rows N] [--rounds R]

The headline is the compiled closures alone (``pack.scoring.expedition.compute``:
the compiled function without the memo, the row's fields and the formula computed
on every call) against a hand-written function of the same formula, on varied
random legal rows of the pack: target within 2x. The row memo the engine calls (``pack.scoring.expedition``
remembers rows it has scored) is an extra layer, shown apart: here every row is
seen again, its best case.

The machine may be shared and loaded: the functions are timed in turns, in many
short rounds (one pass over the rows each), so that each round sees one load.
Each figure is the best round; the ratio is also shown round by round (paired:
the same round's two timings), its median and spread.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from typing import Callable, Sequence

COST = 20
BONUS = 20
BONUS_CARDS = 8

Row = tuple[int, list[int], int]


def hand_written(colour: int, values: Sequence[int], wagers: int) -> int:
    """duel-classic's expedition score, written by hand."""
    cards = len(values) + wagers
    if cards == 0:
        return 0
    score = (sum(values) - COST) * (1 + wagers)
    if cards >= BONUS_CARDS:
        score += BONUS
    return score


def random_rows(count: int, colours: int = 5, low: int = 2, high: int = 10, wagers: int = 3,
                seed: int = 1) -> list[Row]:
    """Legal rows of a strictly increasing pack: numbers low..high, 0..wagers wagers, 1 in 10
    empty."""
    rng = random.Random(seed)
    rows: list[Row] = []
    for _ in range(count):
        colour = rng.randrange(colours)
        if rng.random() < 0.1:
            rows.append((colour, [], 0))
            continue
        values = sorted(rng.sample(range(low, high + 1), rng.randint(0, high - low + 1)))
        rows.append((colour, values, rng.randint(0, wagers) if values else rng.randint(1, wagers)))
    return rows


def timed(func: Callable[[int, Sequence[int], int], int], rows: list[Row],
          passes: int) -> float:
    """Nanoseconds per call of ``func`` over ``rows``, ``passes`` times over."""
    start = time.perf_counter_ns()
    for _ in range(passes):
        for colour, values, wagers in rows:
            func(colour, values, wagers)
    return (time.perf_counter_ns() - start) / (passes * len(rows))


def loop_overhead(rows: list[Row], passes: int) -> float:
    def nothing(colour: int, values: Sequence[int], wagers: int) -> int:
        return 0
    return timed(nothing, rows, passes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--passes", type=int, default=1, help="passes over the rows per round")
    args = parser.parse_args()

    from lostcities.engine import load_pack
    from lostcities.grammar import compile_scoring
    from lostcities.grammar.parser import scoring_parser

    t0 = time.perf_counter()
    scoring_parser()
    t_parser = time.perf_counter() - t0
    pack = load_pack("duel-classic")
    t0 = time.perf_counter()
    for _ in range(20):
        compile_scoring(pack.scoring_spec, pack.family)
    t_compile = (time.perf_counter() - t0) / 20

    engine_call = pack.scoring.expedition
    closures = engine_call.compute
    rows = random_rows(args.rows, len(pack.colours), pack.min_value, pack.max_value, pack.wagers)
    wrong = [r for r in rows if not closures(*r) == engine_call(*r) == hand_written(*r)]
    if wrong:
        print(f"MISMATCH on {len(wrong)} rows, e.g. {wrong[0]}", file=sys.stderr)
        return 1

    funcs = {"hand": hand_written, "closures": closures, "memo": engine_call}
    times: dict[str, list[float]] = {name: [] for name in funcs}
    for _ in range(args.rounds):
        for name, func in funcs.items():
            times[name].append(timed(func, rows, args.passes))
    best = {name: min(ts) for name, ts in times.items()}
    paired = sorted(c / h for c, h in zip(times["closures"], times["hand"]))
    ratio = best["closures"] / best["hand"]
    memo_ratio = best["memo"] / best["hand"]
    sizes = statistics.mean(len(v) for _, v, _ in rows)

    print(f"duel-classic expedition scoring: {len(rows)} random legal rows "
          f"({sizes:.1f} numbers on average), best of {args.rounds} interleaved rounds")
    print(f"  hand-written Python     : {best['hand']:5.0f} ns/call")
    print(f"  compiled closures alone : {best['closures']:5.0f} ns/call   ratio {ratio:.2f}x "
          f"(target <= 2.00x: {'met' if ratio <= 2.0 else 'MISSED'})")
    quartiles = statistics.quantiles(paired, n=4)
    print(f"    ratio per round       : {statistics.median(paired):.2f}x median, "
          f"{quartiles[0]:.2f}x-{quartiles[2]:.2f}x middle half")
    print(f"  with the row memo       : {best['memo']:5.0f} ns/call   ratio {memo_ratio:.2f}x "
          "(extra layer: every row here is seen again)")
    print(f"  (the timing loop alone  : {loop_overhead(rows, args.passes):5.0f} ns/call, "
          "included above)")
    print(f"  parser build (once)     : {t_parser * 1e3:7.1f} ms")
    print(f"  compile pack scoring    : {t_compile * 1e3:7.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
