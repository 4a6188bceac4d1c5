"""Compiled scoring vs hand-written Python, on the duel-classic expedition formula.

Run: /work/venv/bin/python benchmarks/bench_scoring.py [--rows N] [--repeat R]

Prints calls per second of a hand-written function of the same formula, of the
compiled closures computing every call (``pack.scoring.expedition.compute``) and
of ``pack.scoring.expedition`` as the engine calls it (the same closures behind a
memo of rows already scored), the ratios (target: within 2x), and the one-off
costs: building the parser and compiling the pack's formulas.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
import timeit
from typing import Callable, Sequence

COST = 20
BONUS = 20
BONUS_CARDS = 8


def hand_written(colour: int, values: Sequence[int], wagers: int) -> int:
    """duel-classic's expedition score, written by hand."""
    cards = len(values) + wagers
    if cards == 0:
        return 0
    score = (sum(values) - COST) * (1 + wagers)
    if cards >= BONUS_CARDS:
        score += BONUS
    return score


def random_rows(count: int, seed: int = 1) -> list[tuple[int, list[int], int]]:
    """Legal duel-classic rows: strictly increasing values 2-10, 0-3 wagers, some empty."""
    rng = random.Random(seed)
    rows = []
    for _ in range(count):
        if rng.random() < 0.1:
            rows.append((rng.randrange(5), [], 0))
            continue
        values = sorted(rng.sample(range(2, 11), rng.randint(0, 9)))
        wagers = rng.randint(0, 3) if values else rng.randint(1, 3)
        rows.append((rng.randrange(5), values, wagers))
    return rows


def per_call_ns(func: Callable[[int, Sequence[int], int], int],
                rows: list[tuple[int, list[int], int]], repeat: int) -> float:
    def loop() -> None:
        for colour, values, wagers in rows:
            func(colour, values, wagers)
    best = min(timeit.repeat(loop, number=20, repeat=repeat))
    return best / (20 * len(rows)) * 1e9


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
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

    compiled = pack.scoring.expedition
    rows = random_rows(args.rows)
    wrong = [r for r in rows if compiled(*r) != hand_written(*r)]
    if wrong:
        print(f"MISMATCH on {len(wrong)} rows, e.g. {wrong[0]}", file=sys.stderr)
        return 1

    hand_ns = per_call_ns(hand_written, rows, args.repeat)
    closures_ns = per_call_ns(compiled.compute, rows, args.repeat)
    compiled_ns = per_call_ns(compiled, rows, args.repeat)
    ratio = compiled_ns / hand_ns
    print(f"duel-classic expedition scoring, {len(rows)} random legal rows")
    print(f"  hand-written Python          : {hand_ns:5.0f} ns/call {1e9 / hand_ns:12,.0f} calls/s")
    print(f"  compiled closures, every call: {closures_ns:5.0f} ns/call "
          f"{1e9 / closures_ns:12,.0f} calls/s  ({closures_ns / hand_ns:.2f}x)")
    print(f"  pack.scoring.expedition      : {compiled_ns:5.0f} ns/call "
          f"{1e9 / compiled_ns:12,.0f} calls/s  ({ratio:.2f}x; remembers rows seen)")
    print(f"  ratio engine call/hand       : {ratio:.2f}x  (target <= 2.00x: "
          f"{'met' if ratio <= 2.0 else 'MISSED'})")
    print(f"  parser build (once) : {t_parser * 1e3:7.1f} ms")
    print(f"  compile pack scoring: {t_compile * 1e3:7.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
